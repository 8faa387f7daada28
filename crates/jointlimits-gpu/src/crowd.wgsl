// One frame of a crowd's limits: one invocation per character and joint.
//
// Full-space boxes and ellipsoids are limited here, with the same stream semantics as the CPU
// crowd (jointlimits::crowd, jointlimits::limiter): the nearest allowed rotation over both covers
// of the relative rotation's scaled angle-axis point; with a previous frame, the answer from the
// cover nearest the previous measurement instead, while it is at most the switch margin farther.
// Swing-twist limits with a box or ellipsoid swing are limited here too (region::swing_twist):
// the swing-plane point projected over both covers, the twist measured on its nearest turn (or
// the stream's), and near a 180° swing the answer settled as the CPU settles it. Allowed
// rotations are left as they are. Other kinds are limited on the host afterwards; for
// those with proven cells (jointlimits::rotation_cells) the kernel marks the rotations that lie
// in one, which the host then keeps with no test.

struct Joint {
    // The reference rotation (x, y, z, w).
    reference: vec4<f32>,
    // The shape's frame: its axes (columns) and centre (xyz); center.w is the kind:
    // 0 unlimited, 1 box, 2 ellipsoid, 3 host with proven cells, 4 host, 5 swing-twist with a
    // box swing, 6 swing-twist with an ellipsoid swing (the shape is then the swing's, in
    // swing-plane coordinates), 7 polytope (k-DOP or hull), 8 hinge (its axis in `twist_axis`,
    // its angles' range in `basis_u.w` and `basis_v.w`).
    axis_x: vec4<f32>,
    axis_y: vec4<f32>,
    axis_z: vec4<f32>,
    center: vec4<f32>,
    // A box's lower corner, or an ellipsoid's semi-axes (frame coordinates); for a polytope, x:
    // where its tables start in `lookup` (a whole number).
    low: vec4<f32>,
    // A box's upper corner; a polytope's bounding ball (centre, radius).
    high: vec4<f32>,
    // x: how far the shape reaches from the origin (|ball centre| + radius); y: switch margin;
    // for kind 3, z and w: the offsets (whole numbers) of the coarse cells and the blocks in
    // `lookup`; for kind 6, z: 1 where the swing's short cover alone is projected (swing cones
    // and spherical ellipses, whose centred regions make it at least as near), else 0.
    settings: vec4<f32>,
    // Swing-twist kinds: the swing basis's columns u, v (xyz) and the twist axis; the twist
    // range's ends in u.w and v.w; the basis's third column, which the swing-plane split
    // measures the twist about (the twist axis to within validation's 1e-4).
    basis_u: vec4<f32>,
    basis_v: vec4<f32>,
    twist_axis: vec4<f32>,
    basis_z: vec4<f32>,
}

struct FrameInfo {
    characters: u32,
    joints: u32,
    // Invocations per row of the dispatch grid (workgroups in x times the workgroup size).
    row: u32,
    unused: u32,
}

@group(0) @binding(0) var<storage, read> joints: array<Joint>;
// The frame's local rotations, and the limited ones (kept apart so the kernel can run again on
// the same input).
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> output: array<vec4<f32>>;
// Per character and joint: the last measurement (xyz) and w = 1 when there is one.
@group(0) @binding(2) var<storage, read_write> history: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> info: FrameInfo;
@group(0) @binding(4) var<storage, read_write> outside: atomic<u32>;
// What kernels look up: the proven cells of kind-3 joints (coarse cells, u16, two to a word, the
// even one low, then blocks of 512 bits, 16 words), and the tables of kind-7 polytopes (floats
// as their bits; joints.rs, append_polytope).
@group(0) @binding(6) var<storage, read> lookup: array<u32>;
// A bit per character and joint: the rotation lies in a proven cell.
@group(0) @binding(7) var<storage, read_write> proven: array<atomic<u32>>;

const PI: f32 = 3.14159265358979;
const TAU: f32 = 6.28318530717959;
// A rotation this close to the region counts as inside (jointlimits::contract).
const BOUNDARY_TOLERANCE: f32 = 1e-5;
const ELLIPSOID_SLACK: f32 = 1e-5;
const NEWTON_STEPS: u32 = 40u;
// The layout of proven cells (jointlimits::rotation_cells; a test checks they agree).
const COARSE_CELLS: u32 = 32u;
const FINE_CELLS: u32 = 8u;
const CELLS_REACH: f32 = 0.7072;
const FINE_PER_UNIT: f32 = 180.99548;
const NORM_SLACK: f32 = 0.0002;

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz),
        a.w * b.w - dot(a.xyz, b.xyz),
    );
}

fn conjugate(q: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(-q.xyz, q.w);
}

// rotation::near_unit: q itself within 1e-3 of unit length (in |q|²), else normalised (a zero
// or non-finite q as it is).
fn near_unit(q: vec4<f32>) -> vec4<f32> {
    if abs(dot(q, q) - 1.0) <= 1e-3 {
        return q;
    }
    let largest = max(max(abs(q.x), abs(q.y)), max(abs(q.z), abs(q.w)));
    if !(largest > 0.0 && largest <= 3.40282347e38) {
        return q;
    }
    let scaled = q / largest;
    return scaled / length(scaled);
}

// Vulkan lets a driver's sin, cos and atan2 be far coarser than f32 (sin and cos to 2^-11
// absolute), so the kernel evaluates them as the CPU does (jointlimits::fast_trig), with
// polynomials of additions and multiplications, and agrees with it on every GPU.

// atan(√u)/√u for u ∈ [0, 1]: Hastings' polynomial for atan (error below 2e-8) divided by √u.
fn atan_over_t(u: f32) -> f32 {
    var sum = 0.0028662257;
    sum = sum * u - 0.016165737;
    sum = sum * u + 0.042909614;
    sum = sum * u - 0.07528964;
    sum = sum * u + 0.10656264;
    sum = sum * u - 0.14208899;
    sum = sum * u + 0.19993551;
    sum = sum * u - 0.33333145;
    return sum * u + 1.0;
}

// atan2(y, x) for y ≥ 0: the angle in [0, π].
fn upper_atan2(y: f32, x: f32) -> f32 {
    let ax = abs(x);
    let small = min(y, ax);
    let large = max(y, ax);
    if large == 0.0 {
        return select(0.0, PI, x < 0.0);
    }
    let t = small / large;
    let base = t * atan_over_t(t * t);
    let octants = select(0.5 * PI - base, base, y <= ax);
    return select(octants, PI - octants, x < 0.0);
}

// (sin(θ/2)/θ, cos(θ/2)) from θ² for θ ∈ [0, 2π]: Taylor series in −θ²/4 (error below 3e-7).
fn half_angle_sinc_cos(theta_squared: f32) -> vec2<f32> {
    let x = -0.25 * theta_squared;
    var sinc = 1.0 / 1.216451e17;
    sinc = sinc * x + 1.0 / 3.5568743e14;
    sinc = sinc * x + 1.0 / 1.3076744e12;
    sinc = sinc * x + 1.0 / 6227020800.0;
    sinc = sinc * x + 1.0 / 39916800.0;
    sinc = sinc * x + 1.0 / 362880.0;
    sinc = sinc * x + 1.0 / 5040.0;
    sinc = sinc * x + 1.0 / 120.0;
    sinc = sinc * x + 1.0 / 6.0;
    sinc = sinc * x + 1.0;
    var cosine = 1.0 / 2.432902e18;
    cosine = cosine * x + 1.0 / 6.402374e15;
    cosine = cosine * x + 1.0 / 2.092279e13;
    cosine = cosine * x + 1.0 / 8.717829e10;
    cosine = cosine * x + 1.0 / 479001600.0;
    cosine = cosine * x + 1.0 / 3628800.0;
    cosine = cosine * x + 1.0 / 40320.0;
    cosine = cosine * x + 1.0 / 720.0;
    cosine = cosine * x + 1.0 / 24.0;
    cosine = cosine * x + 1.0 / 2.0;
    cosine = cosine * x + 1.0;
    return vec2<f32>(0.5 * sinc, cosine);
}

// The scaled angle-axis θ·n of the cover with w ≥ 0 (length at most π).
fn short_point(q: vec4<f32>) -> vec3<f32> {
    let r = select(q, -q, q.w < 0.0);
    let s2 = dot(r.xyz, r.xyz);
    if s2 <= r.w * r.w {
        // Up to 90°: with t = s/w ≤ 1, θ/s = 2·atan(t)/(t·w), a polynomial in t².
        let inverse_w = 1.0 / r.w;
        return r.xyz * (2.0 * atan_over_t(s2 * inverse_w * inverse_w) * inverse_w);
    }
    let s = sqrt(s2);
    return r.xyz * (2.0 * upper_atan2(s, r.w) / s);
}

// exp(p/2): the rotation with scaled angle-axis p.
fn rotation_of(p: vec3<f32>) -> vec4<f32> {
    let angle_squared = dot(p, p);
    if angle_squared <= TAU * TAU {
        let series = half_angle_sinc_cos(angle_squared);
        return vec4<f32>(p * series.x, series.y);
    }
    // Past a whole turn (shapes reaching beyond 2π): the half angle's sine and cosine from the
    // polynomials about π/2 (the driver's may be coarse), by its turn.
    let angle = sqrt(angle_squared);
    var half = 0.5 * angle;
    var sign_flip = 1.0;
    if half > PI {
        half -= PI;
        sign_flip = -1.0;
    }
    let sc = sin_cos_upper(half) * sign_flip;
    return vec4<f32>(p * (sc.x / angle), sc.y);
}

// The other cover's point p − 2π·p̂, or p itself at the identity (callers check).
fn other_cover(p: vec3<f32>) -> vec3<f32> {
    return p * (1.0 - TAU / max(length(p), 1e-6));
}

fn has_other_cover(p: vec3<f32>) -> bool {
    return length(p) > 1e-6;
}

fn to_local(j: Joint, p: vec3<f32>) -> vec3<f32> {
    let d = p - j.center.xyz;
    return vec3<f32>(dot(j.axis_x.xyz, d), dot(j.axis_y.xyz, d), dot(j.axis_z.xyz, d));
}

fn to_world(j: Joint, x: vec3<f32>) -> vec3<f32> {
    return j.axis_x.xyz * x.x + j.axis_y.xyz * x.y + j.axis_z.xyz * x.z + j.center.xyz;
}

struct Projection {
    point: vec3<f32>,
    distance: f32,
    inside: bool,
}

// The nearest point of an ellipsoid's surface to the outside frame point x: the monotone Newton
// climb on t of jointlimits::shape::ellipsoid from a lower bound on the root.
fn ellipsoid_surface(a: vec3<f32>, x: vec3<f32>) -> vec3<f32> {
    let a2 = a * a;
    let ax = a * x;
    let ax2 = ax * ax;
    let smallest = min(a2.x, min(a2.y, a2.z));
    let per_axis = a * abs(x) - a2;
    var t = max(max(max(per_axis.x, per_axis.y), per_axis.z), length(ax) - max(a2.x, max(a2.y, a2.z)));
    t = max(t, 0.0);
    for (var step = 0u; step < NEWTON_STEPS; step++) {
        let inverse = 1.0 / (a2 + vec3<f32>(t));
        let terms = ax2 * inverse * inverse;
        let s = terms.x + terms.y + terms.z;
        let cubic = dot(terms, inverse);
        let next = t + s * (sqrt(s) - 1.0) / cubic;
        let climbing = next - t > 1e-4 * (t + smallest);
        if next > t {
            t = next;
        }
        if !climbing {
            break;
        }
    }
    return a2 * x / (a2 + vec3<f32>(t));
}

// Whether the joint's shape is a box (full-space or swing) rather than an ellipsoid.
fn shape_is_box(j: Joint) -> bool {
    return j.center.w < 1.5 || (j.center.w > 4.5 && j.center.w < 5.5);
}

// The projection of the limit-space point p onto the joint's shape, settled within the boundary
// tolerance.
fn project(j: Joint, p: vec3<f32>) -> Projection {
    let x = to_local(j, p);
    var surface = x;
    var inside = true;
    if j.center.w > 6.5 {
        inside = polytope_holds(j, x);
        if !inside {
            surface = polytope_surface(j, x);
        }
    } else if shape_is_box(j) {
        surface = clamp(x, j.low.xyz, j.high.xyz);
        inside = all(surface == x);
    } else {
        let r = x / j.low.xyz;
        inside = dot(r, r) <= 1.0 + ELLIPSOID_SLACK;
        if !inside {
            surface = ellipsoid_surface(j.low.xyz, x);
        }
    }
    if inside {
        return Projection(p, 0.0, true);
    }
    let point = to_world(j, surface);
    let distance = length(p - point);
    if distance <= BOUNDARY_TOLERANCE {
        return Projection(p, 0.0, true);
    }
    return Projection(point, distance, false);
}

// A lower bound on the distance from x to the shape: to its box, to an ellipsoid's box, or to a
// polytope's bounding ball.
fn lower_bound(j: Joint, x: vec3<f32>) -> f32 {
    if j.center.w > 6.5 {
        // How far beyond the polytope's bounding ball.
        return length(x - j.high.xyz) - j.high.w;
    }
    let local = to_local(j, x);
    var low = j.low.xyz;
    var high = j.high.xyz;
    if !shape_is_box(j) {
        low = -j.low.xyz;
        high = j.low.xyz;
    }
    return length(local - clamp(local, low, high));
}

struct Limited {
    relative: vec4<f32>,
    inside: bool,
    violation: f32,
    measured: vec3<f32>,
}

// Whether two unit quaternions (either cover) are within the boundary tolerance as rotations.
fn within_tolerance(a: vec4<f32>, b: vec4<f32>) -> bool {
    let half = 0.5 * BOUNDARY_TOLERANCE;
    let d = min(dot(a - b, a - b), dot(a + b, a + b));
    return d <= half * half;
}

// The result of the projection `projection` made from the cover point `point` of `relative`.
fn result(relative: vec4<f32>, point: vec3<f32>, projection: Projection) -> Limited {
    if projection.inside {
        return Limited(relative, true, 0.0, point);
    }
    let limited = rotation_of(projection.point);
    // On the long cover the logarithm stretches rotation distances without bound.
    if dot(point, point) > PI * PI && within_tolerance(relative, limited) {
        return Limited(relative, true, 0.0, point);
    }
    return Limited(limited, false, projection.distance, point);
}

// The nearest allowed rotation over both covers (the stateless answer).
fn nearest(j: Joint, relative: vec4<f32>, p: vec3<f32>) -> Limited {
    let short = project(j, p);
    if short.inside {
        return result(relative, p, short);
    }
    // The long cover is projected only where it could be nearer.
    if short.distance + j.settings.x > PI && has_other_cover(p) {
        let long_point = other_cover(p);
        if short.distance > lower_bound(j, long_point) {
            let long = project(j, long_point);
            if long.distance < short.distance || long.inside {
                return result(relative, long_point, long);
            }
        }
    }
    return result(relative, p, short);
}

// Whether the cover point `used` is surely the one nearer to `previous` (as on the CPU).
fn surely_nearer_cover(used: vec3<f32>, previous: vec3<f32>) -> bool {
    if !has_other_cover(used) {
        return true;
    }
    let other = other_cover(used);
    let here = dot(used - previous, used - previous);
    let there = dot(other - previous, other - previous);
    return there - here > 1e-6 * (here + there) + 1e-9;
}

// The answer from the cover of p nearer to `previous`.
fn continued_answer(j: Joint, relative: vec4<f32>, p: vec3<f32>, previous: vec3<f32>) -> Limited {
    var point = p;
    if has_other_cover(p) {
        let other = other_cover(p);
        if dot(other - previous, other - previous) < dot(p - previous, p - previous) {
            point = other;
        }
    }
    return result(relative, point, project(j, point));
}

// Whether rotation q lies in a proven cell of the joint (InsideCells::surely_allowed): the
// chart of its largest component, the fine cell of the other three, its coarse cell's block.
// Rounding apart from the CPU's moves a rotation at most across a cell's face, far within the
// margin every cell is proven with.
fn surely_allowed(j: Joint, q: vec4<f32>) -> bool {
    if !(abs(dot(q, q) - 1.0) <= NORM_SLACK) {
        return false;
    }
    let a = abs(q);
    var chart = 3u;
    var largest = q.w;
    var others = q.xyz;
    if a.w >= max(a.x, max(a.y, a.z)) {
    } else if a.x >= max(a.y, a.z) {
        chart = 0u;
        largest = q.x;
        others = q.yzw;
    } else if a.y >= a.z {
        chart = 1u;
        largest = q.y;
        others = q.xzw;
    } else {
        chart = 2u;
        largest = q.z;
        others = q.xyw;
    }
    if largest < 0.0 {
        others = -others;
    }
    let last = f32(COARSE_CELLS * FINE_CELLS - 1u);
    let g = vec3<u32>(clamp((others + CELLS_REACH) * FINE_PER_UNIT, vec3<f32>(0.0), vec3<f32>(last)));
    let c = g / FINE_CELLS;
    let coarse = ((chart * COARSE_CELLS + c.x) * COARSE_CELLS + c.y) * COARSE_CELLS + c.z;
    let pair = lookup[u32(j.settings.z) + coarse / 2u];
    let block = (pair >> (16u * (coarse % 2u))) & 0xFFFFu;
    let f = g % FINE_CELLS;
    let bit = (f.x * FINE_CELLS + f.y) * FINE_CELLS + f.z;
    let word = lookup[u32(j.settings.w) + block * 16u + bit / 32u];
    return ((word >> (bit % 32u)) & 1u) == 1u;
}

@compute @workgroup_size(64)
fn limit_frame(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x + id.y * info.row;
    if slot >= info.characters * info.joints {
        return;
    }
    let j = joints[slot % info.joints];
    let local = input[slot];
    output[slot] = local;
    let kind = u32(j.center.w + 0.5);
    if kind == 0u || kind == 4u {
        return;
    }
    if kind == 3u {
        if surely_allowed(j, local) {
            atomicOr(&proven[slot / 32u], 1u << (slot % 32u));
        }
        return;
    }
    if kind == 5u || kind == 6u {
        limit_swing_twist(j, slot, local);
        return;
    }
    if kind == 8u {
        limit_hinge(j, slot, local);
        return;
    }
    let relative = quat_mul(conjugate(j.reference), near_unit(local));
    let p = short_point(relative);
    var chosen = nearest(j, relative, p);
    let previous = history[slot];
    if !chosen.inside && previous.w > 0.5 && !surely_nearer_cover(chosen.measured, previous.xyz) {
        let continued = continued_answer(j, relative, p, previous.xyz);
        if continued.violation <= chosen.violation + j.settings.y {
            chosen = continued;
        }
    }
    history[slot] = vec4<f32>(chosen.measured, 1.0);
    if !chosen.inside {
        output[slot] = quat_mul(j.reference, chosen.relative);
        atomicAdd(&outside, 1u);
    }
}

// ---- Swing-twist limits (jointlimits::region::swing_twist) ----

// Below this |(v·axis, w)| the twist is ill-conditioned (contract::NEAR_HALF_SWING), and below
// this one undefined (contract::DEGENERATE_TWIST).
const NEAR_HALF_SWING: f32 = 0.1;
const DEGENERATE_TWIST: f32 = 1e-6;
// The family search near a 180° swing (region::half_swing).
const FAMILY_SAMPLES: i32 = 16;
const GOLDEN_STEPS: u32 = 30u;
const GOLDEN_RATIO: f32 = 0.618034;

// The nearest integer, halves away from zero (Rust's f32::round; WGSL's round takes halves to
// even).
fn round_half_away(x: f32) -> f32 {
    return sign(x) * floor(abs(x) + 0.5);
}

// atan2(y, x) in (−π, π].
fn atan2_full(y: f32, x: f32) -> f32 {
    let upper = upper_atan2(abs(y), x);
    return select(upper, -upper, y < 0.0);
}

// (sin x, cos x) for x ∈ [0, π], as fast_trig::sin_cos takes them about π/2: with y = x − π/2,
// sin x = cos y and cos x = −sin y, from the half-angle series at θ = 2y (|θ| ≤ π).
fn sin_cos_upper(x: f32) -> vec2<f32> {
    let y = x - 0.5 * PI;
    let series = half_angle_sinc_cos(4.0 * y * y);
    return vec2<f32>(series.y, -2.0 * y * series.x);
}

// (sin a, cos a) for |a| ≤ π.
fn sin_cos_signed(a: f32) -> vec2<f32> {
    let upper = sin_cos_upper(abs(a));
    return vec2<f32>(select(upper.x, -upper.x, a < 0.0), upper.y);
}

// rotation::rotation_about: the rotation by `angle` about the unit `axis`.
fn rotation_about(axis: vec3<f32>, angle: f32) -> vec4<f32> {
    var half = 0.5 * angle;
    if abs(half) > PI {
        half -= TAU * round_half_away(half / TAU);
    }
    let sc = sin_cos_signed(half);
    return vec4<f32>(axis * sc.x, sc.y);
}

// rotation::to_scaled_angle_axis, either cover (length up to 2π).
fn scaled_angle_axis(q: vec4<f32>) -> vec3<f32> {
    if q.w >= 0.0 {
        return short_point(q);
    }
    let s = length(q.xyz);
    if s < 1e-7 {
        return vec3<f32>(TAU, 0.0, 0.0);
    }
    return q.xyz * (2.0 * upper_atan2(s, q.w) / s);
}

// |(v·axis, w)|².
fn twist_norm_squared(j: Joint, q: vec4<f32>) -> f32 {
    let along = dot(q.xyz, j.twist_axis.xyz);
    return along * along + q.w * q.w;
}

struct Split {
    // The swing-plane point (z = 0) and the twist angle.
    point: vec3<f32>,
    twist: f32,
}

// SwingTwistLimit::split: the swing-plane point (the short way) and the twist of `q`; at a
// swing of exactly 180° the twist is `fallback` (0 without a history).
fn split(j: Joint, q: vec4<f32>, fallback: f32) -> Split {
    let p1 = dot(q.xyz, j.basis_u.xyz);
    let p2 = dot(q.xyz, j.basis_v.xyz);
    let along = dot(q.xyz, j.basis_z.xyz);
    let cos_squared = along * along + q.w * q.w;
    let sin_squared = p1 * p1 + p2 * p2;
    if cos_squared >= 1e-12 * (cos_squared + sin_squared) {
        var scale = 0.0;
        if sin_squared <= cos_squared {
            scale = 2.0 * atan_over_t(sin_squared / cos_squared) / cos_squared;
        } else {
            let sine = sqrt(sin_squared);
            let cosine = sqrt(cos_squared);
            let ratio = cosine / sine;
            scale = (PI - 2.0 * ratio * atan_over_t(ratio * ratio)) / (sine * cosine);
        }
        let plane = vec2<f32>(q.w * p1 - along * p2, q.w * p2 + along * p1) * scale;
        return Split(vec3<f32>(plane, 0.0), 2.0 * atan2_full(along, q.w));
    }
    // At (or, for rotations a hair off unit length, next to) a swing of 180°: the twist is the
    // fallback where the twist part vanishes, else the twist part's own angle
    // (rotation::swing_and_twist_angle_or, rotation::swing_twist).
    var twist = fallback;
    var twist_part = rotation_about(j.twist_axis.xyz, fallback);
    let twist_along = dot(q.xyz, j.twist_axis.xyz);
    let norm_squared = twist_along * twist_along + q.w * q.w;
    if norm_squared >= 1e-12 {
        let norm = sqrt(norm_squared);
        twist_part = vec4<f32>(j.twist_axis.xyz * twist_along, q.w) / norm;
        twist = 2.0 * atan2_full(dot(twist_part.xyz, j.twist_axis.xyz), twist_part.w);
    }
    let swing = quat_mul(q, conjugate(twist_part));
    let point = scaled_angle_axis(swing);
    return Split(vec3<f32>(dot(j.basis_u.xyz, point), dot(j.basis_v.xyz, point), 0.0), twist);
}

struct TwistMeasure {
    turned: f32,
    allowed: f32,
    distance: f32,
}

// TwistRange::measure: the turn of `t` nearest the range.
fn measure_twist(j: Joint, t: f32) -> TwistMeasure {
    let low = j.basis_u.w;
    let high = j.basis_v.w;
    if low <= t && t <= high {
        return TwistMeasure(t, t, 0.0);
    }
    let offset = t - low;
    let turned = low + (offset - TAU * floor(offset * (1.0 / TAU)));
    if turned <= high {
        return TwistMeasure(turned, turned, 0.0);
    }
    let above = turned - high;
    let below = low + TAU - turned;
    if above <= below {
        return TwistMeasure(turned, high, above);
    }
    return TwistMeasure(turned - TAU, low, below);
}

// TwistRange::measure_from: the turn of `t` nearest the stream's last twist.
fn measure_twist_from(j: Joint, t: f32, previous: f32) -> TwistMeasure {
    let turned = t + TAU * round_half_away((previous - t) / TAU);
    let allowed = clamp(turned, j.basis_u.w, j.basis_v.w);
    if allowed != turned {
        let stateless = measure_twist(j, t);
        if stateless.distance == 0.0 {
            return stateless;
        }
    }
    return TwistMeasure(turned, allowed, abs(turned - allowed));
}

struct SwingProjection {
    projection: Projection,
    // The cover point used.
    point: vec3<f32>,
}

// covers::project_covers: the swing point projected over both covers (the short one alone for
// swing cones and spherical ellipses, as theirs).
fn project_swing_covers(j: Joint, p: vec3<f32>) -> SwingProjection {
    let short = project(j, p);
    if short.inside {
        return SwingProjection(short, p);
    }
    let both_covers = j.settings.z == 0.0;
    if both_covers && short.distance + j.settings.x > PI && has_other_cover(p) {
        let long_point = other_cover(p);
        if short.distance > lower_bound(j, long_point) {
            let long = project(j, long_point);
            if long.distance < short.distance {
                return SwingProjection(long, long_point);
            }
        }
    }
    return SwingProjection(short, p);
}

struct SwingLimited {
    relative: vec4<f32>,
    inside: bool,
    violation: f32,
    measured: vec4<f32>,
}

fn swing_unchanged(relative: vec4<f32>, measured: vec4<f32>) -> SwingLimited {
    return SwingLimited(relative, true, 0.0, measured);
}

// The violation of swing-plane point `swing` with twist `twist` (the family's members).
fn swing_twist_violation(j: Joint, swing: vec2<f32>, twist: f32) -> f32 {
    let d = project_swing_covers(j, vec3<f32>(swing, 0.0)).projection.distance;
    let t = measure_twist(j, twist).distance;
    return sqrt(d * d + t * t);
}

// A member of the family through a near-180° swing: the swing turned by t/2 about the twist
// axis and t added to the twist (region::half_swing).
fn family_member(j: Joint, swing: vec2<f32>, twist: f32, t: f32) -> f32 {
    let sc = sin_cos_signed(0.5 * t);
    let turned = vec2<f32>(swing.x * sc.y - swing.y * sc.x, swing.y * sc.y + swing.x * sc.x);
    return swing_twist_violation(j, turned, twist + t);
}

// half_swing::family_within_tolerance.
fn family_within_tolerance(j: Joint, relative: vec4<f32>, swing: vec2<f32>, twist: f32) -> bool {
    let kappa = sqrt(twist_norm_squared(j, relative));
    let reach = min(BOUNDARY_TOLERANCE / max(kappa, 1e-12), PI);
    let step = reach / f32(FAMILY_SAMPLES);
    var best_t = 0.0;
    var best = family_member(j, swing, twist, 0.0);
    for (var k = -FAMILY_SAMPLES; k <= FAMILY_SAMPLES; k++) {
        let t = step * f32(k);
        let value = family_member(j, swing, twist, t);
        if value < best {
            best_t = t;
            best = value;
        }
    }
    if best <= BOUNDARY_TOLERANCE {
        return true;
    }
    // Golden sections over the samples either side of the best (golden_section.rs).
    var low = best_t - step;
    var high = best_t + step;
    var a = high - GOLDEN_RATIO * (high - low);
    var b = low + GOLDEN_RATIO * (high - low);
    var fa = family_member(j, swing, twist, a);
    var fb = family_member(j, swing, twist, b);
    for (var i = 0u; i < GOLDEN_STEPS; i++) {
        if fa <= BOUNDARY_TOLERANCE || fb <= BOUNDARY_TOLERANCE {
            break;
        }
        if fa <= fb {
            high = b;
            b = a;
            fb = fa;
            a = high - GOLDEN_RATIO * (high - low);
            fa = family_member(j, swing, twist, a);
        } else {
            low = a;
            a = b;
            fa = fb;
            b = low + GOLDEN_RATIO * (high - low);
            fb = family_member(j, swing, twist, b);
        }
    }
    return min(fa, fb) <= BOUNDARY_TOLERANCE;
}

// Members sampled over two turns of t (half_swing::MEMBERS), and how much nearer one must be to
// replace the best (half_swing::MEMBER_GAIN).
const MEMBERS: i32 = 300;
const MEMBER_GAIN: f32 = 1e-6;

// half_swing::nearest_member: at a swing of exactly 180°, where every twist splits the rotation,
// the member t of the family whose coordinates lie nearest the region.
fn nearest_member(j: Joint, swing: vec2<f32>, twist: f32) -> f32 {
    let step = 2.0 * TAU / f32(MEMBERS);
    var best_t = 0.0;
    var best = family_member(j, swing, twist, 0.0);
    for (var k = 0; k <= MEMBERS; k++) {
        let t = -TAU + step * f32(k);
        let value = family_member(j, swing, twist, t);
        if value < best - MEMBER_GAIN {
            best_t = t;
            best = value;
        }
    }
    var low = best_t - step;
    var high = best_t + step;
    var a = high - GOLDEN_RATIO * (high - low);
    var b = low + GOLDEN_RATIO * (high - low);
    var fa = family_member(j, swing, twist, a);
    var fb = family_member(j, swing, twist, b);
    for (var i = 0u; i < GOLDEN_STEPS; i++) {
        if fa <= fb {
            high = b;
            b = a;
            fb = fa;
            a = high - GOLDEN_RATIO * (high - low);
            fa = family_member(j, swing, twist, a);
        } else {
            low = a;
            a = b;
            fa = fb;
            b = low + GOLDEN_RATIO * (high - low);
            fb = family_member(j, swing, twist, b);
        }
    }
    var refined = b;
    var value = fb;
    if fa <= fb {
        refined = a;
        value = fa;
    }
    if value < best - MEMBER_GAIN {
        return refined;
    }
    return best_t;
}

// SwingTwistLimit::result: the answer from the swing projection from cover point `point` and
// the twist measure, settled near a 180° swing.
fn swing_twist_result(
    j: Joint,
    relative: vec4<f32>,
    point: vec3<f32>,
    swing: Projection,
    twist: TwistMeasure,
) -> SwingLimited {
    let measured = vec4<f32>(point.xy, 0.0, twist.turned);
    let violation = sqrt(swing.distance * swing.distance + twist.distance * twist.distance);
    if (swing.inside && twist.distance == 0.0) || violation <= BOUNDARY_TOLERANCE {
        return swing_unchanged(relative, measured);
    }
    let allowed_swing = j.basis_u.xyz * swing.point.x + j.basis_v.xyz * swing.point.y;
    let limited = quat_mul(rotation_of(allowed_swing), rotation_about(j.twist_axis.xyz, twist.allowed));
    if twist_norm_squared(j, relative) >= NEAR_HALF_SWING * NEAR_HALF_SWING {
        return SwingLimited(limited, false, violation, measured);
    }
    // Near a 180° swing (half_swing::settle_near_half_swing): an answer within the tolerance
    // of the input as a rotation, or a member of the family within it, is the input.
    if within_tolerance(relative, limited)
        || family_within_tolerance(j, relative, point.xy, twist.turned) {
        return swing_unchanged(relative, measured);
    }
    return SwingLimited(limited, false, violation, measured);
}

// RotationLimit::nearest of a swing-twist limit.
fn swing_twist_nearest(j: Joint, relative: vec4<f32>) -> SwingLimited {
    var parts = split(j, relative, 0.0);
    if twist_norm_squared(j, relative) < DEGENERATE_TWIST * DEGENERATE_TWIST {
        // A swing of exactly 180°: the split nearest the region (SwingTwistLimit::nearest).
        let t = nearest_member(j, parts.point.xy, parts.twist);
        let sc = sin_cos_signed(0.5 * t);
        let s = parts.point.xy;
        parts.point = vec3<f32>(s.x * sc.y - s.y * sc.x, s.y * sc.y + s.x * sc.x, 0.0);
        parts.twist = parts.twist + t;
    }
    let covers = project_swing_covers(j, parts.point);
    return swing_twist_result(j, relative, covers.point, covers.projection, measure_twist(j, parts.twist));
}

// RotationLimit::nearest_continuing: the swing's cover and the twist's turn nearest the last
// frame's measurement.
fn swing_twist_continuing(j: Joint, relative: vec4<f32>, previous: vec4<f32>) -> SwingLimited {
    let parts = split(j, relative, previous.w);
    var point = parts.point;
    let last = vec3<f32>(previous.xy, 0.0);
    if has_other_cover(point) {
        let other = other_cover(point);
        if dot(other - last, other - last) < dot(point - last, point - last) {
            point = other;
        }
    }
    return swing_twist_result(j, relative, point, project(j, point), measure_twist_from(j, parts.twist, previous.w));
}

// One character's swing-twist joint: the stream's answer (limiter::stream_answer). The history
// holds the measurement (swing point xy, twist in w) and z = 1 once there is one.
fn limit_swing_twist(j: Joint, slot: u32, local: vec4<f32>) {
    let relative = quat_mul(conjugate(j.reference), near_unit(local));
    var chosen = swing_twist_nearest(j, relative);
    let previous = history[slot];
    if !chosen.inside && previous.z > 0.5 {
        // SwingTwistLimit::continues_as.
        let turn_kept = abs(chosen.measured.w - previous.w) < PI - 1e-3;
        let continues = twist_norm_squared(j, relative) >= NEAR_HALF_SWING * NEAR_HALF_SWING
            && turn_kept
            && surely_nearer_cover(chosen.measured.xyz, vec3<f32>(previous.xy, 0.0));
        if !continues {
            let continued = swing_twist_continuing(j, relative, previous);
            let degenerate = twist_norm_squared(j, relative) < DEGENERATE_TWIST * DEGENERATE_TWIST;
            if !continued.inside
                && (continued.violation <= chosen.violation + j.settings.y || degenerate) {
                chosen = continued;
            }
        }
    }
    history[slot] = vec4<f32>(chosen.measured.xy, 1.0, chosen.measured.w);
    if !chosen.inside {
        output[slot] = quat_mul(j.reference, chosen.relative);
        atomicAdd(&outside, 1u);
    }
}

// ---- Full-space polytopes (jointlimits::shape::polytope): the walk from the highest face,
// proving its answer by the optimality condition of a convex projection, and the scan of every
// face the point rises above where the walk cannot decide ----

// Height above a face below which a point still counts as inside (Polytope::INSIDE_TOLERANCE).
const POLYTOPE_INSIDE: f32 = 2e-6;
// Faces a walk visits at most (WALK_STEPS), and how far a tangent direction may rise towards the
// point relative to its distance and still count as turning away (OPTIMALITY_SLACK).
const WALK_STEPS: u32 = 64u;
const OPTIMALITY_SLACK: f32 = 2e-6;
const NO_TWIN: u32 = 0xFFFFFFFFu;
const SMALLEST_NORMAL: f32 = 1.17549435e-38;

// A polytope's tables in `lookup` (joints.rs, append_polytope): where each starts, in words.
struct PolytopeAt {
    faces: u32,
    face_table: u32,
    edge_table: u32,
    vertex_table: u32,
    leaving_table: u32,
}

fn polytope_at(j: Joint) -> PolytopeAt {
    let base = u32(j.low.x);
    return PolytopeAt(lookup[base], lookup[base + 1u], lookup[base + 2u], lookup[base + 3u], lookup[base + 4u]);
}

fn lookup_vec3(at: u32) -> vec3<f32> {
    return vec3<f32>(bitcast<f32>(lookup[at]), bitcast<f32>(lookup[at + 1u]), bitcast<f32>(lookup[at + 2u]));
}

fn face_word(p: PolytopeAt, face: u32) -> u32 {
    return p.face_table + 8u * face;
}

fn edge_word(p: PolytopeAt, edge: u32) -> u32 {
    return p.edge_table + 16u * edge;
}

fn face_normal(p: PolytopeAt, face: u32) -> vec3<f32> {
    return lookup_vec3(face_word(p, face));
}

// x's height above face `face`.
fn face_height(p: PolytopeAt, face: u32, x: vec3<f32>) -> f32 {
    let at = face_word(p, face);
    return dot(lookup_vec3(at), x) - bitcast<f32>(lookup[at + 3u]);
}

// Whether the frame-coordinate point x is inside: within the tolerance of every face.
fn polytope_holds(j: Joint, x: vec3<f32>) -> bool {
    let p = polytope_at(j);
    for (var f = 0u; f < p.faces; f++) {
        if !(face_height(p, f, x) <= POLYTOPE_INSIDE) {
            return false;
        }
    }
    return true;
}

struct EdgePoint {
    found: bool,
    point: vec3<f32>,
    edge: u32,
}

// Polytope::nearest_edge_point: for a face `height` below x, none when the foot lies on the
// face polygon, else the nearest point of the polygon's edges the foot lies beyond.
fn nearest_edge_point(p: PolytopeAt, face: u32, x: vec3<f32>, height: f32) -> EdgePoint {
    let foot = x - face_normal(p, face) * height;
    let first = lookup[face_word(p, face) + 4u];
    let end = lookup[face_word(p, face) + 5u];
    var nearest = EdgePoint(false, foot, 0u);
    var nearest_distance = 0.0;
    for (var edge = first; edge < end; edge++) {
        let at = edge_word(p, edge);
        let start = lookup_vec3(at);
        let from_start = foot - start;
        if dot(from_start, lookup_vec3(at + 6u)) >= 0.0 {
            continue;
        }
        let v = lookup_vec3(at + 3u);
        let along = clamp(dot(from_start, v) / max(dot(v, v), SMALLEST_NORMAL), 0.0, 1.0);
        let point = start + v * along;
        let d = dot(point - foot, point - foot);
        if !nearest.found || d < nearest_distance {
            nearest = EdgePoint(true, point, edge);
            nearest_distance = d;
        }
    }
    return nearest;
}

struct Surface {
    // Whether the walk (or scan) decided.
    found: bool,
    point: vec3<f32>,
}

// Polytope::walk from `face`: the projection of the outside point x proven by the optimality
// condition, or not found where the walk cannot decide.
fn polytope_walk(p: PolytopeAt, start_face: u32, x: vec3<f32>) -> Surface {
    var face = start_face;
    for (var step = 0u; step < WALK_STEPS; step++) {
        let height = face_height(p, face, x);
        let nearest = nearest_edge_point(p, face, x, height);
        if !nearest.found {
            return Surface(height > 0.0, x - face_normal(p, face) * height);
        }
        let edge = nearest.edge;
        let at = edge_word(p, edge);
        let start = lookup_vec3(at);
        let vector = lookup_vec3(at + 3u);
        let along = dot(x - start, vector) / max(dot(vector, vector), SMALLEST_NORMAL);
        if along > 0.0 && along < 1.0 {
            // Inside the edge: the tangent directions are along it, into this face and into
            // the face across it.
            let y = start + vector * along;
            let away = x - y;
            let slack = OPTIMALITY_SLACK * length(away);
            if dot(away, lookup_vec3(at + 6u)) > slack {
                return Surface(false, y);
            }
            let twin = lookup[at + 15u];
            if twin == NO_TWIN {
                return Surface(false, y);
            }
            let twin_at = edge_word(p, twin);
            let twin_face = lookup[twin_at + 12u];
            if dot(away, lookup_vec3(twin_at + 6u)) <= slack {
                // Both inward directions turn away; one of the two faces must also see x.
                let seen = dot(away, face_normal(p, face)) > -slack
                    || dot(away, face_normal(p, twin_face)) > -slack;
                return Surface(seen, y);
            }
            face = twin_face;
        } else {
            let vertex = lookup[at + 13u + select(0u, 1u, along >= 1.0)];
            let vertex_at = p.vertex_table + 6u * vertex;
            if lookup[vertex_at + 5u] == 0u {
                return Surface(false, x);
            }
            let corner = lookup_vec3(vertex_at);
            let slack = OPTIMALITY_SLACK * length(x - corner);
            var uphill = NO_TWIN;
            var seen = false;
            for (var k = lookup[vertex_at + 3u]; k < lookup[vertex_at + 4u]; k++) {
                let leaving = lookup[p.leaving_table + k];
                let leaving_at = edge_word(p, leaving);
                let direction = lookup_vec3(leaving_at + 9u);
                if all(direction == vec3<f32>(0.0)) {
                    // A vertex a hair from its neighbour: the scan decides.
                    return Surface(false, x);
                }
                if uphill == NO_TWIN && dot(x - corner, direction) > slack {
                    uphill = leaving;
                }
                seen = seen || dot(x - corner, face_normal(p, lookup[leaving_at + 12u])) > -slack;
            }
            if uphill == NO_TWIN {
                return Surface(seen, corner);
            }
            face = lookup[edge_word(p, uphill) + 12u];
        }
    }
    return Surface(false, x);
}

// Polytope::project_by_scan: over every face x rises above, the foot on the face polygon (then
// the answer), or else the nearest point of the edges the foot lies beyond; the nearest
// candidate.
fn polytope_scan(p: PolytopeAt, x: vec3<f32>) -> vec3<f32> {
    var best = x;
    var have_best = false;
    for (var f = 0u; f < p.faces; f++) {
        let height = face_height(p, f, x);
        if !(height > 0.0) {
            continue;
        }
        let nearest = nearest_edge_point(p, f, x, height);
        if !nearest.found {
            return x - face_normal(p, f) * height;
        }
        let candidate = nearest.point;
        if !have_best || dot(candidate - best, (x - best) + (x - candidate)) > 0.0 {
            best = candidate;
            have_best = true;
        }
    }
    return best;
}

// The nearest point of the polytope to the outside frame-coordinate point x: the walk from the
// face x rises highest above (the first of equals), proven; else the scan.
fn polytope_surface(j: Joint, x: vec3<f32>) -> vec3<f32> {
    let p = polytope_at(j);
    var highest = 0u;
    var most = face_height(p, 0u, x);
    for (var f = 1u; f < p.faces; f++) {
        let height = face_height(p, f, x);
        if height > most {
            highest = f;
            most = height;
        }
    }
    let walked = polytope_walk(p, highest, x);
    if walked.found {
        return walked.point;
    }
    return polytope_scan(p, x);
}

// ---- Hinges (jointlimits::authored::HingeLimit) ----

// The largest part off the hinge (radians) still counted as on it (hinge::OFF_AXIS_SLACK).
const OFF_AXIS_SLACK: f32 = 1e-5;

// rotation::angle_between: the angle of the rotation taking `a` to `b`, either cover.
fn angle_between(a: vec4<f32>, b: vec4<f32>) -> f32 {
    let d = quat_mul(conjugate(a), b);
    return 2.0 * atan2_full(length(d.xyz), abs(d.w));
}

// HingeLimit::angles: the hinge angle of `relative` (in its cover) and the angle of its part
// off the hinge.
fn hinge_angles(j: Joint, relative: vec4<f32>) -> vec2<f32> {
    let axis = j.twist_axis.xyz;
    let along = dot(relative.xyz, axis);
    let off_axis = length(relative.xyz - along * axis);
    let hinge = 2.0 * atan2_full(along, relative.w);
    let off = 2.0 * atan2_full(off_axis, sqrt(along * along + relative.w * relative.w));
    return vec2<f32>(hinge, off);
}

// HingeLimit::result: the rotation about the axis by the allowed angle, or `relative` itself
// when it lies on the hinge within the range (to the tolerances).
fn hinge_result(j: Joint, relative: vec4<f32>, off: f32, angle: TwistMeasure) -> SwingLimited {
    let measured = vec4<f32>(angle.turned, 0.0, 0.0, 0.0);
    if off <= OFF_AXIS_SLACK && angle.distance <= BOUNDARY_TOLERANCE {
        return swing_unchanged(relative, measured);
    }
    let limited = rotation_about(j.twist_axis.xyz, angle.allowed);
    return SwingLimited(limited, false, angle_between(relative, limited), measured);
}

// Whether `relative` swings the hinge's axis by exactly 180° (contract::half_swing).
fn hinge_half_swing(j: Joint, relative: vec4<f32>) -> bool {
    let along = dot(relative.xyz, j.twist_axis.xyz);
    return along * along + relative.w * relative.w < DEGENERATE_TWIST * DEGENERATE_TWIST;
}

// One character's hinge: the stream's answer (limiter::stream_answer; a hinge says nothing of
// continuing, so the continuation is asked whenever the stateless answer moves). The history
// holds the hinge angle's turn in x and z = 1 once there is one.
fn limit_hinge(j: Joint, slot: u32, local: vec4<f32>) {
    let relative = quat_mul(conjugate(j.reference), near_unit(local));
    let angles = hinge_angles(j, relative);
    var chosen = hinge_result(j, relative, angles.y, measure_twist(j, angles.x));
    let previous = history[slot];
    if !chosen.inside && previous.z > 0.5 {
        let degenerate = hinge_half_swing(j, relative);
        // Half a turn off the hinge every hinge angle is equally near: keep the stream's.
        let angle = select(angles.x, previous.x, degenerate);
        let continued =
            hinge_result(j, relative, angles.y, measure_twist_from(j, angle, previous.x));
        if !continued.inside
            && (continued.violation <= chosen.violation + j.settings.y || degenerate) {
            chosen = continued;
        }
    }
    history[slot] = vec4<f32>(chosen.measured.x, 0.0, 1.0, 0.0);
    if !chosen.inside {
        output[slot] = quat_mul(j.reference, chosen.relative);
        atomicAdd(&outside, 1u);
    }
}
