//! An independent measure of every limit kind, for property tests: the representations of a
//! rotation in the kind's coordinates (both covers, several twist turns), whether a
//! representation is allowed, the kind's metric, and a brute-force nearest allowed point found by
//! dense sampling of the allowed set plus a local pattern search. All in f64, none of it through
//! the projections under test; only the shapes' own `contains`/`project` building blocks and the
//! reach cone's twist interpolation (which define the regions) are used.

use std::f64::consts::{PI, TAU};

use glam::{DQuat, DVec3, Quat, Vec3};
use jointlimits::LimitRegion;
use jointlimits::region::covers::COVER_REACH;
use jointlimits::shape::{LimitShape, Shape};

/// Coordinates of a rotation in a kind's own chart (unused entries are zero).
pub type Coords = [f64; 4];

/// The scaled angle-axis of `q` in its own cover (angle in `[0, 2π]`).
fn log(q: DQuat) -> DVec3 {
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-15 {
        return if q.w >= 0.0 {
            DVec3::ZERO
        } else {
            DVec3::X * TAU
        };
    }
    v * (2.0 * s.atan2(q.w) / s)
}

/// Swing (short way, scaled angle-axis) and twist angle of `q` about `axis`.
fn swing_twist(q: DQuat, axis: DVec3) -> (DVec3, f64) {
    let v = DVec3::new(q.x, q.y, q.z);
    let along = v.dot(axis);
    let norm = along.hypot(q.w);
    if norm < 1e-12 {
        return (log(q), 0.0);
    }
    let twist = DQuat::from_xyzw(axis.x * along, axis.y * along, axis.z * along, q.w) / norm;
    let swing = q * twist.conjugate();
    let swing = if swing.w < 0.0 { -swing } else { swing };
    (log(swing), 2.0 * (along / norm).atan2(q.w / norm))
}

/// `p` and its other cover `p − 2π·p̂`; below 1e-6 rad `p` is the identity, whose other cover
/// (a full turn) has no axis (the documented convention: `docs/limits.md`).
fn covers(p: DVec3) -> Vec<DVec3> {
    let length = p.length();
    if length <= 1e-6 {
        return vec![p];
    }
    vec![p, p * (1.0 - TAU / length)]
}

fn turns(twist: f64) -> impl Iterator<Item = f64> {
    (-2..=2).map(move |k| twist + TAU * f64::from(k))
}

/// Whether a shape's point `p` is allowed: in the shape, and within the reach where a region's
/// points count (`COVER_REACH`, a full turn less 0.1).
fn shape_allows(shape: &Shape, p: DVec3) -> bool {
    if p.length() > f64::from(COVER_REACH) + 2e-5 {
        return false;
    }
    let p = p.as_vec3();
    shape.contains(p) || shape.distance(p) <= 2e-5
}

fn unit(v: Vec3) -> DVec3 {
    v.as_dvec3().normalize()
}

fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// The distance from `twist` (any turn) to the interval.
fn twist_gap(twist: f64, min: f64, max: f64) -> f64 {
    turns(twist)
        .map(|t| (t - t.clamp(min, max)).abs())
        .fold(f64::INFINITY, f64::min)
}

/// The swing-plane coordinates of a swing point for the planar kinds.
fn plane(swing: DVec3, first: DVec3, second: DVec3) -> DVec3 {
    DVec3::new(swing.dot(first), swing.dot(second), 0.0)
}

/// The region a stateless caller meets: a coupled limit without its parent's state is its
/// independent box over the whole rotation.
fn stateless(region: &LimitRegion) -> std::borrow::Cow<'_, LimitRegion> {
    match region {
        LimitRegion::Coupled(coupled) => std::borrow::Cow::Owned(LimitRegion::Full(
            jointlimits::FullLimit::new(jointlimits::Shape::Box(coupled.record().independent)),
        )),
        other => std::borrow::Cow::Borrowed(other),
    }
}

/// Every representation of `q` in the region's chart.
pub fn representations(region: &LimitRegion, q: Quat) -> Vec<Coords> {
    let region = &*stateless(region);
    let q = q.as_dquat().normalize();
    let mut out = Vec::new();
    match region {
        LimitRegion::Coupled(_) => unreachable!("made stateless above"),
        LimitRegion::Full(_) => {
            for p in covers(log(if q.w < 0.0 { -q } else { q })) {
                out.push([p.x, p.y, p.z, 0.0]);
            }
        }
        LimitRegion::SwingTwist(limit) => {
            let (swing, twist) = swing_twist(q, unit(limit.twist_axis));
            let basis = limit.swing_basis.as_dmat3();
            let p = (basis.transpose() * swing).with_z(0.0);
            for s in covers(p) {
                out.extend(turns(twist).map(|t| [s.x, s.y, 0.0, t]));
            }
        }
        LimitRegion::Cone(limit) => {
            let axis = unit(limit.twist_axis);
            let (first, second) = axis.any_orthonormal_pair();
            let (swing, twist) = swing_twist(q, axis);
            for s in covers(plane(swing, first, second)) {
                out.extend(turns(twist).map(|t| [s.x, s.y, 0.0, t]));
            }
        }
        LimitRegion::SphericalEllipse(limit) => {
            let axis = unit(limit.twist_axis);
            let first = unit(limit.first_axis);
            let (swing, twist) = swing_twist(q, axis);
            for s in covers(plane(swing, first, axis.cross(first))) {
                out.extend(turns(twist).map(|t| [s.x, s.y, 0.0, t]));
            }
        }
        LimitRegion::ReachCone(limit) => {
            let axis = unit(limit.twist_axis);
            let (_, twist) = swing_twist(q, axis);
            let d = q * axis;
            out.extend(turns(twist).map(|t| [d.x, d.y, d.z, t]));
        }
        LimitRegion::Table(limit) => {
            let axis = unit(limit.twist_axis);
            let (_, twist) = swing_twist(q, axis);
            let d = q * axis;
            out.extend(turns(twist).map(|t| [d.x, d.y, d.z, t]));
        }
        LimitRegion::Euler(limit) => {
            let a = limit.order.from_dquat(q);
            for triple in [a, DVec3::new(a.x + PI, PI - a.y, a.z + PI)] {
                for i in -1..=1 {
                    for j in -1..=1 {
                        for k in -1..=1 {
                            let shift = DVec3::new(f64::from(i), f64::from(j), f64::from(k));
                            let t = triple + shift * TAU;
                            out.push([t.x, t.y, t.z, 0.0]);
                        }
                    }
                }
            }
        }
        LimitRegion::Hinge(limit) => {
            let axis = unit(limit.axis);
            let v = DVec3::new(q.x, q.y, q.z);
            let along = v.dot(axis);
            let off = (v - axis * along).length();
            let hinge = 2.0 * along.atan2(q.w);
            out.extend(turns(hinge).map(|t| [t, off, 0.0, 0.0]));
        }
    }
    out
}

/// Whether a representation lies in the region.
pub fn allowed(region: &LimitRegion, c: &Coords) -> bool {
    let region = &*stateless(region);
    let p = DVec3::new(c[0], c[1], c[2]);
    let tolerance = 2e-5;
    match region {
        LimitRegion::Coupled(_) => unreachable!("made stateless above"),
        LimitRegion::Full(limit) => shape_allows(limit.shape(), p),
        LimitRegion::SwingTwist(limit) => {
            let (min, max) = (f64::from(limit.twist.min), f64::from(limit.twist.max));
            shape_allows(limit.swing(), p) && c[3] >= min - tolerance && c[3] <= max + tolerance
        }
        LimitRegion::Cone(limit) => {
            let (min, max) = (f64::from(limit.twist.min), f64::from(limit.twist.max));
            p.length() <= f64::from(limit.max_swing) + tolerance
                && c[3] >= min - tolerance
                && c[3] <= max + tolerance
        }
        LimitRegion::SphericalEllipse(limit) => {
            let (min, max) = (f64::from(limit.twist.min), f64::from(limit.twist.max));
            let radii = limit.radii.as_dvec2();
            (p.x / radii.x).powi(2) + (p.y / radii.y).powi(2) <= 1.0 + 1e-4
                && c[3] >= min - tolerance
                && c[3] <= max + tolerance
        }
        LimitRegion::ReachCone(limit) => {
            let d = p.as_vec3();
            let range = limit.cone.twist_limits(d);
            let inside =
                limit.cone.contains(d) || angle(p, limit.cone.project(d).as_dvec3()) <= tolerance;
            inside
                && c[3] >= f64::from(range.min) - tolerance
                && c[3] <= f64::from(range.max) + tolerance
        }
        LimitRegion::Table(limit) => {
            // The table's own interpolated values define its region.
            let values = limit.values_at(p.normalize().as_vec3());
            f64::from(values.allowed) <= tolerance
                && c[3] >= f64::from(values.twist.min) - tolerance
                && c[3] <= f64::from(values.twist.max) + tolerance
        }
        LimitRegion::Euler(limit) => {
            let (lo, hi) = (limit.min.as_dvec3(), limit.max.as_dvec3());
            (0..3).all(|k| c[k] >= lo[k] - tolerance && c[k] <= hi[k] + tolerance)
        }
        LimitRegion::Hinge(limit) => {
            c[1] <= 1e-4
                && c[0] >= f64::from(limit.min) - tolerance
                && c[0] <= f64::from(limit.max) + tolerance
        }
    }
}

/// The kind's metric between two representations (hinges measure the rotation angle instead,
/// in [`distance_to`] and [`BruteForce::nearest`]).
pub fn distance(region: &LimitRegion, a: &Coords, b: &Coords) -> f64 {
    let region = &*stateless(region);
    match region {
        LimitRegion::Coupled(_) => unreachable!("made stateless above"),
        LimitRegion::ReachCone(_) | LimitRegion::Table(_) => {
            let (da, db) = (
                DVec3::new(a[0], a[1], a[2]).normalize(),
                DVec3::new(b[0], b[1], b[2]).normalize(),
            );
            angle(da, db).hypot(a[3] - b[3])
        }
        _ => (0..4).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt(),
    }
}

/// The metric distance from `input` to the rotation `output` over every pair of
/// representations with the output's allowed; infinite when no representation of `output` is
/// allowed.
pub fn distance_to(region: &LimitRegion, input: Quat, output: Quat) -> f64 {
    if let LimitRegion::Hinge(_) = region {
        let allowed_output = representations(region, output)
            .iter()
            .any(|c| allowed(region, c));
        if !allowed_output {
            return f64::INFINITY;
        }
        let d = input.as_dquat().normalize().conjugate() * output.as_dquat().normalize();
        return 2.0 * DVec3::new(d.x, d.y, d.z).length().atan2(d.w.abs());
    }
    let outputs: Vec<Coords> = representations(region, output)
        .into_iter()
        .filter(|c| allowed(region, c))
        .collect();
    let mut best = f64::INFINITY;
    for a in representations(region, input) {
        for b in &outputs {
            best = best.min(distance(region, &a, b));
        }
    }
    best
}

/// A deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    /// The next number in `[0, 1)`.
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// A standard normal number (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-300), self.next());
        (-2.0 * u.ln()).sqrt() * (TAU * v).cos()
    }

    /// A Haar-random rotation, in either cover with equal chance.
    pub fn rotation(&mut self) -> Quat {
        let q = DQuat::from_xyzw(self.normal(), self.normal(), self.normal(), self.normal());
        q.normalize().as_quat()
    }

    /// A uniformly random unit vector.
    pub fn direction(&mut self) -> DVec3 {
        DVec3::new(self.normal(), self.normal(), self.normal()).normalize()
    }
}

/// Dense samples of the allowed set (as representations), for the brute force.
fn allowed_samples(region: &LimitRegion, rng: &mut Rng) -> Vec<Coords> {
    let region = &*stateless(region);
    let mut out = Vec::new();
    match region {
        LimitRegion::Coupled(_) => unreachable!("made stateless above"),
        LimitRegion::Full(limit) => {
            let reach = f64::from(limit.shape().reach());
            for _ in 0..6000 {
                let p = (rng.direction() * rng.range(0.0, reach * 1.5)).as_vec3();
                let b = limit.shape().project(p).point.as_dvec3();
                if b.length() <= f64::from(COVER_REACH) {
                    out.push([b.x, b.y, b.z, 0.0]);
                }
            }
        }
        LimitRegion::SwingTwist(limit) => {
            let reach = f64::from(limit.swing().reach());
            let (min, max) = (f64::from(limit.twist.min), f64::from(limit.twist.max));
            for i in 0..6000 {
                let p = (rng.direction().with_z(0.0) * rng.range(0.0, reach * 1.5)).as_vec3();
                let b = limit.swing().project(p).point.as_dvec3();
                let t = min + (max - min) * f64::from(i % 61) / 60.0;
                if b.length() <= f64::from(COVER_REACH) {
                    out.push([b.x, b.y, 0.0, t]);
                }
            }
        }
        LimitRegion::Cone(limit) => {
            let (min, max) = (f64::from(limit.twist.min), f64::from(limit.twist.max));
            for i in 0..6000 {
                let a = rng.range(0.0, TAU);
                let r = f64::from(limit.max_swing) * rng.next().sqrt();
                let t = min + (max - min) * f64::from(i % 61) / 60.0;
                out.push([r * a.cos(), r * a.sin(), 0.0, t]);
            }
        }
        LimitRegion::SphericalEllipse(limit) => {
            let (min, max) = (f64::from(limit.twist.min), f64::from(limit.twist.max));
            let radii = limit.radii.as_dvec2();
            for i in 0..6000 {
                let a = rng.range(0.0, TAU);
                let r = if i % 2 == 0 { 1.0 } else { rng.next().sqrt() };
                let t = min + (max - min) * f64::from(i % 61) / 60.0;
                out.push([r * radii.x * a.cos(), r * radii.y * a.sin(), 0.0, t]);
            }
        }
        LimitRegion::ReachCone(limit) => {
            let boundary = limit.cone.boundary();
            let mut directions: Vec<DVec3> = Vec::new();
            for _ in 0..20_000 {
                directions.push(rng.direction());
            }
            for (i, &a) in boundary.iter().enumerate() {
                let b = boundary[(i + 1) % boundary.len()];
                for k in 0..=100 {
                    let t = f64::from(k) / 100.0;
                    directions.push(a.as_dvec3().lerp(b.as_dvec3(), t).normalize());
                }
            }
            for d in directions {
                let dv = d.as_vec3();
                if !limit.cone.contains(dv) && angle(d, limit.cone.project(dv).as_dvec3()) > 1e-6 {
                    continue;
                }
                let range = limit.cone.twist_limits(dv);
                let (min, max) = (f64::from(range.min), f64::from(range.max));
                for k in 0..=6 {
                    let t = min + (max - min) * f64::from(k) / 6.0;
                    out.push([d.x, d.y, d.z, t]);
                }
            }
        }
        LimitRegion::Table(limit) => {
            let mut directions: Vec<DVec3> = (0..20_000).map(|_| rng.direction()).collect();
            for (a, b) in limit.swing().chains().arcs() {
                directions.push(a.as_dvec3());
                directions.push((a + b).as_dvec3().normalize());
            }
            for d in directions {
                let values = limit.values_at(d.as_vec3());
                if values.allowed > 0.0 {
                    continue;
                }
                let (min, max) = (f64::from(values.twist.min), f64::from(values.twist.max));
                for k in 0..=6 {
                    let t = min + (max - min) * f64::from(k) / 6.0;
                    out.push([d.x, d.y, d.z, t]);
                }
            }
        }
        LimitRegion::Euler(limit) => {
            let (lo, hi) = (limit.min.as_dvec3(), limit.max.as_dvec3());
            for _ in 0..6000 {
                let t = lo + (hi - lo) * DVec3::new(rng.next(), rng.next(), rng.next());
                out.push([t.x, t.y, t.z, 0.0]);
            }
        }
        LimitRegion::Hinge(limit) => {
            let (min, max) = (f64::from(limit.min), f64::from(limit.max));
            for k in 0..=4000 {
                out.push([min + (max - min) * f64::from(k) / 4000.0, 0.0, 0.0, 0.0]);
            }
        }
    }
    out
}

/// The rotation of an allowed representation (for the kinds whose metric needs it).
fn hinge_rotation(axis: Vec3, angle: f64) -> DQuat {
    DQuat::from_axis_angle(unit(axis), angle)
}

/// A brute-force nearest distance for a set of inputs: the best of the dense samples, then a
/// pattern search that only ever accepts allowed points. An upper bound on the true nearest.
pub struct BruteForce {
    samples: Vec<Coords>,
}

impl BruteForce {
    /// Samples the allowed set of `region`.
    pub fn new(region: &LimitRegion, seed: u64) -> BruteForce {
        BruteForce {
            samples: allowed_samples(region, &mut Rng(seed)),
        }
    }

    /// The brute-force nearest distance from `input`.
    pub fn nearest(&self, region: &LimitRegion, input: Quat) -> f64 {
        let reps = representations(region, input);
        let measure = |c: &Coords| -> f64 {
            if let LimitRegion::Hinge(limit) = region {
                let d = input.as_dquat().normalize().conjugate() * hinge_rotation(limit.axis, c[0]);
                return 2.0 * DVec3::new(d.x, d.y, d.z).length().atan2(d.w.abs());
            }
            reps.iter()
                .map(|r| distance(region, r, c))
                .fold(f64::INFINITY, f64::min)
        };
        if reps.iter().any(|r| allowed(region, r)) {
            return 0.0;
        }
        let exact = exact_over_representations(region, &reps);
        let (mut best, mut best_value) = (self.samples[0], f64::INFINITY);
        for c in &self.samples {
            let value = measure(c);
            if value < best_value {
                (best, best_value) = (*c, value);
            }
        }
        // Pattern search around the best sample, in every coordinate.
        let mut step = 0.05;
        while step > 1e-7 {
            let mut improved = false;
            for k in 0..4 {
                for sign in [-1.0, 1.0] {
                    let mut c = best;
                    c[k] += sign * step;
                    if let LimitRegion::ReachCone(_) | LimitRegion::Table(_) = region {
                        let d = DVec3::new(c[0], c[1], c[2]).normalize();
                        (c[0], c[1], c[2]) = (d.x, d.y, d.z);
                    }
                    if allowed(region, &c) {
                        let value = measure(&c);
                        if value < best_value {
                            (best, best_value, improved) = (c, value, true);
                        }
                    }
                }
            }
            if !improved {
                step *= 0.5;
            }
        }
        best_value.min(exact)
    }
}

/// For the kinds built on a convex limit-space shape, the shape's own distance from every
/// representation (every cover and turn, with no shortcut): exact, independent of how the limit
/// chooses among them. Where the shape's nearest point lies past `COVER_REACH` the distance to
/// the part within is larger, and only the brute force measures it.
fn exact_over_representations(region: &LimitRegion, reps: &[Coords]) -> f64 {
    let region = &*stateless(region);
    let within_reach = |shape: &Shape, p: Vec3| {
        let projection = shape.project(p);
        if projection.point.length() <= COVER_REACH {
            f64::from(projection.distance)
        } else {
            f64::INFINITY
        }
    };
    let mut best = f64::INFINITY;
    for c in reps {
        let p = DVec3::new(c[0], c[1], c[2]).as_vec3();
        let value = match region {
            LimitRegion::Full(limit) => within_reach(limit.shape(), p),
            LimitRegion::SwingTwist(limit) => {
                let twist = twist_gap(c[3], limit.twist.min.into(), limit.twist.max.into());
                within_reach(limit.swing(), p).hypot(twist)
            }
            _ => f64::INFINITY,
        };
        best = best.min(value);
    }
    best
}
