//! Limiting many rotations of one joint at once: one joint across a crowd, or a clip's frames.
//!
//! The rotations go through in groups of [`LANES`] laid out as structure-of-arrays, and every
//! step that is the same for all of them (the reference change, the logarithm or swing-twist
//! split, the exponential, the way back) is written lane by lane without branches, so the compiler
//! turns it into SIMD code. Only the projection onto a polytope or an ellipsoid's surface, a reach
//! cone's slice lookup and its nearest boundary point run lane by lane, and the projections only
//! for the lanes that are outside.
//!
//! The results equal [`JointLimit::limit`] (the stateless contract: nearest over both covers and
//! every twist turn) up to f32 rounding, and bit for bit for full-space boxes and ellipsoids, whose
//! lanes make that path's operations in its order; inside rotations come back bit for bit
//! unchanged. The lanes measure the short cover; the rare lane whose long cover may be nearer
//! (see [`crate::region::covers`]) goes through [`JointLimit::limit`].

// Lane loops index several arrays in lockstep by lane number: the form that vectorises.
#![allow(clippy::needless_range_loop)]

mod inside;
mod table_inside;

pub use inside::{ROUNDING_MARGIN, SurelyInside};

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Mat3, Quat, Vec3, Vec4};

use crate::contract::{BOUNDARY_TOLERANCE, Limited, NEAR_HALF_SWING};
use crate::fast_trig;
use crate::joint_limit::{JointLimit, LimitRegion};
use crate::reach_cone::{ReachConeLimit, pseudo_azimuth};
use crate::region::SwingTwistLimit;
use crate::region::covers::{Ball, COVER_REACH, distance_to_box};
use crate::rotation::{
    from_scaled_angle_axis, is_near_unit, near_unit, product, short_log_scale_beyond_quarter,
    short_log_scale_within_quarter,
};
use crate::shape::ellipsoid::{
    newton_start, newton_step, squared_scaled, still_climbing, surface_point,
};
use crate::shape::{BoxShape, EllipsoidShape, Frame, Polytope, Shape};

/// Rotations handled together. Every step is a chain of dependent divisions, square roots and
/// polynomials, so many independent lanes (four AVX registers, eight SSE ones) keep the pipeline
/// full; measured here, 32 lanes run twice as fast per rotation as 8.
pub const LANES: usize = 32;

/// Leftover rotations fewer than this go one at a time rather than in a padded group.
const SCALAR_BELOW: usize = 8;

type Lanes = [f32; LANES];

/// Quaternions, one array per component.
#[derive(Clone, Copy, Default)]
struct Quats {
    x: Lanes,
    y: Lanes,
    z: Lanes,
    w: Lanes,
}

impl Quats {
    #[inline(always)]
    fn get(&self, i: usize) -> Quat {
        Quat::from_xyzw(self.x[i], self.y[i], self.z[i], self.w[i])
    }
}

/// 3D points, one array per coordinate.
#[derive(Clone, Copy, Default)]
struct Points {
    x: Lanes,
    y: Lanes,
    z: Lanes,
}

impl Points {
    #[inline(always)]
    fn get(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    #[inline(always)]
    fn set(&mut self, i: usize, p: Vec3) {
        (self.x[i], self.y[i], self.z[i]) = (p.x, p.y, p.z);
    }

    /// Frame coordinates of every lane ([`Frame::to_local`]).
    #[inline(always)]
    fn in_frame(&self, frame: &Frame) -> Points {
        let mut out = Points::default();
        for i in 0..LANES {
            out.set(i, frame.to_local(self.get(i)));
        }
        out
    }

    /// Limit-space points of frame coordinates in every lane ([`Frame::to_world`]).
    #[inline(always)]
    fn out_of_frame(&self, frame: &Frame) -> Points {
        let mut out = Points::default();
        for i in 0..LANES {
            out.set(i, frame.to_world(self.get(i)));
        }
        out
    }

    /// `m · p + offset` in every lane.
    #[inline(always)]
    fn transform(&self, m: &Mat3, offset: Vec3) -> Points {
        let mut out = Points::default();
        for i in 0..LANES {
            let (x, y, z) = (self.x[i], self.y[i], self.z[i]);
            out.x[i] = m.x_axis.x * x + m.y_axis.x * y + m.z_axis.x * z + offset.x;
            out.y[i] = m.x_axis.y * x + m.y_axis.y * y + m.z_axis.y * z + offset.y;
            out.z[i] = m.x_axis.z * x + m.y_axis.z * y + m.z_axis.z * z + offset.z;
        }
        out
    }
}

impl JointLimit {
    /// Limits every rotation of `rotations` (local rotations of this joint) in place, like
    /// [`JointLimit::limit`] on each, vectorised across them.
    ///
    /// Stateless: each rotation gets the nearest allowed rotation over both covers. Lookup tables
    /// pass the rotations allowed with room through a lane test ([`SurelyInside`]) and limit the
    /// rest one at a time; authored regions and joints with softening go through
    /// [`JointLimit::limit`] one rotation at a time.
    pub fn limit_many(&self, rotations: &mut [Quat]) {
        if let LimitRegion::Table(_) = self.region
            && let Some(lanes) = SurelyInside::of(self)
        {
            self.limit_table_many(&lanes, rotations);
            return;
        }
        let lane_kernel = matches!(
            self.region,
            LimitRegion::Full(_) | LimitRegion::SwingTwist(_) | LimitRegion::ReachCone(_)
        );
        if self.softening.is_some() || !lane_kernel {
            for q in rotations.iter_mut() {
                *q = self.limit(*q);
            }
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been checked for AVX2.
            unsafe { self.limit_groups_avx2(rotations) };
            return;
        }
        self.limit_groups(rotations);
    }

    /// [`JointLimit::limit_many`] for a lookup table: its lane test passes the rotations allowed
    /// with room (unchanged on both paths), and only the rest take [`JointLimit::limit`]. The
    /// nearest allowed rotation of a table is a search with no lane form.
    fn limit_table_many(&self, lanes: &SurelyInside, rotations: &mut [Quat]) {
        let mut groups = rotations.chunks_exact_mut(LANES);
        for group in &mut groups {
            let group: &mut [Quat; LANES] =
                group.try_into().expect("a group holds LANES rotations");
            let surely_inside = lanes.test(group);
            for (q, surely_inside) in group.iter_mut().zip(surely_inside) {
                if !surely_inside {
                    *q = self.limit(*q);
                }
            }
        }
        for q in groups.into_remainder() {
            *q = self.limit(*q);
        }
    }

    /// [`JointLimit::limit_groups`] compiled for AVX2: eight lanes per instruction instead of four.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn limit_groups_avx2(&self, rotations: &mut [Quat]) {
        self.limit_groups(rotations);
    }

    #[inline(always)]
    fn limit_groups(&self, rotations: &mut [Quat]) {
        let mut groups = rotations.chunks_exact_mut(LANES);
        for group in &mut groups {
            self.limit_group(group.try_into().expect("a group holds LANES rotations"));
        }
        let rest = groups.into_remainder();
        if rest.len() < SCALAR_BELOW {
            for q in rest.iter_mut() {
                *q = self.limit(*q);
            }
        } else {
            let mut padded = [Quat::IDENTITY; LANES];
            padded[..rest.len()].copy_from_slice(rest);
            self.limit_group(&mut padded);
            rest.copy_from_slice(&padded[..rest.len()]);
        }
    }

    #[inline(always)]
    fn limit_group(&self, group: &mut [Quat; LANES]) {
        let input = load(group);
        let relative = short_way(&multiply_left(self.reference.conjugate(), &input));
        let LaneResult {
            limited,
            inside,
            fallback,
        } = match &self.region {
            LimitRegion::Full(full) => limit_full(full.shape(), full.ball(), &relative).result,
            LimitRegion::SwingTwist(limit) => limit_swing_twist(&relative, limit),
            LimitRegion::ReachCone(limit) => limit_reach_cone(&relative, limit),
            // Regions without lane kernels (limit_many normally sends them one at a time).
            _ => {
                for q in group.iter_mut() {
                    *q = self.limit(*q);
                }
                return;
            }
        };
        // A lane holding no rotation (a component not finite, or every component zero) reads
        // nothing meaningful in the lanes: it gets the one-at-a-time answer, so both paths
        // agree on every input.
        let no_rotation = group.map(|q| !q.is_finite() || q == Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
        if inside.iter().all(|&i| i) && !fallback.contains(&true) && !no_rotation.contains(&true) {
            return;
        }
        let local = multiply_left(self.reference, &limited);
        for (i, q) in group.iter_mut().enumerate() {
            if fallback[i] || no_rotation[i] {
                *q = self.limit(*q);
            } else if !inside[i] {
                *q = Quat::from_xyzw(local.x[i], local.y[i], local.z[i], local.w[i]);
            }
        }
    }
}

/// A group of one joint's rotations limited by the lane kernel exactly as the one-at-a-time path
/// limits each ([`JointLimit::limit_group_exactly`]).
pub(crate) struct ExactGroup {
    /// The relative rotations in the inputs' covers.
    turned: Quats,
    lanes: FullLanes,
    /// The output local rotations of the lanes outside (none computed when all are inside).
    local: Quats,
}

impl ExactGroup {
    /// Whether every lane was inside (and known).
    #[inline(always)]
    pub fn all_inside(&self) -> bool {
        self.lanes.result.inside.iter().all(|&inside| inside)
    }

    /// Per lane: whether it is known and inside, so kept as it is.
    #[inline(always)]
    pub fn kept_lanes(&self) -> [bool; LANES] {
        let result = &self.lanes.result;
        let mut kept = [false; LANES];
        for lane in 0..LANES {
            kept[lane] = result.inside[lane] & !result.fallback[lane];
        }
        kept
    }

    /// Per lane: [`ExactGroup::known`].
    #[inline(always)]
    pub fn known_lanes(&self) -> [bool; LANES] {
        self.lanes.result.fallback.map(|fallback| !fallback)
    }

    /// Whether `lane`'s results are known: `false` where the one-at-a-time path must make them
    /// (the long cover may be nearer).
    #[inline(always)]
    pub fn known(&self, lane: usize) -> bool {
        !self.lanes.result.fallback[lane]
    }

    /// Whether a known `lane` was inside.
    #[inline(always)]
    pub fn inside(&self, lane: usize) -> bool {
        self.lanes.result.inside[lane]
    }

    /// A `lane`'s relative rotation ([`JointLimit::relative`]).
    #[inline(always)]
    pub fn relative(&self, lane: usize) -> Quat {
        self.turned.get(lane)
    }

    /// A known `lane`'s [`Limited::measured`]: its short cover's point.
    #[inline(always)]
    pub fn measured(&self, lane: usize) -> Vec4 {
        self.lanes.point.get(lane).extend(0.0)
    }

    /// Every lane's short cover point, one array per coordinate: the [`ExactGroup::measured`]
    /// of each (less its `w`, which is zero).
    #[inline(always)]
    pub fn measured_lanes(&self) -> [&[f32; LANES]; 3] {
        let point = &self.lanes.point;
        [&point.x, &point.y, &point.z]
    }

    /// A known `lane`'s [`JointLimit::limit_relative`].
    #[inline(always)]
    pub fn limited(&self, lane: usize) -> Limited {
        if self.inside(lane) {
            return Limited::unchanged(self.relative(lane), self.measured(lane));
        }
        Limited {
            relative: self.lanes.result.limited.get(lane),
            inside: false,
            violation: self.lanes.distance[lane],
            measured: self.measured(lane),
        }
    }

    /// A known outside `lane`'s [`JointLimit::limit`].
    #[inline(always)]
    pub fn output(&self, lane: usize) -> Quat {
        self.local.get(lane)
    }
}

impl JointLimit {
    /// Whether [`JointLimit::limit_group_exactly`] serves this limit: full-space boxes and
    /// ellipsoids without softening, whose lanes make the one-at-a-time path's operations.
    pub(crate) fn has_exact_lanes(&self) -> bool {
        self.softening.is_none()
            && matches!(&self.region, LimitRegion::Full(full)
                if matches!(full.shape(), Shape::Box(_) | Shape::Ellipsoid(_)))
    }

    /// Limits a group of local rotations in lanes, with every known lane's result equal bit for
    /// bit to what [`JointLimit::limit_relative`] and [`JointLimit::limit`] give; only for limits
    /// with [`JointLimit::has_exact_lanes`].
    #[inline(always)]
    pub(crate) fn limit_group_exactly(&self, group: &[Quat; LANES]) -> ExactGroup {
        let LimitRegion::Full(full) = &self.region else {
            unreachable!("exact lanes are for full-space limits");
        };
        let turned = multiply_left(self.reference.conjugate(), &load(group));
        let lanes = limit_full(full.shape(), full.ball(), &short_way(&turned));
        let mut exact = ExactGroup {
            turned,
            lanes,
            local: Quats::default(),
        };
        if !exact.all_inside() {
            exact.local = multiply_left(self.reference, &exact.lanes.result.limited);
        }
        exact
    }
}

/// What a lane kernel gives back: the limited relative rotations, which lanes were inside, and
/// which lanes the scalar path must redo (a rotation whose other cover may be nearer).
struct LaneResult {
    limited: Quats,
    inside: [bool; LANES],
    fallback: [bool; LANES],
}

/// The group in lanes, each rotation made near unit as [`JointLimit::relative`] makes it.
#[inline(always)]
fn load(group: &[Quat; LANES]) -> Quats {
    let mut q = Quats::default();
    for (i, r) in group.iter().enumerate() {
        (q.x[i], q.y[i], q.z[i], q.w[i]) = (r.x, r.y, r.z, r.w);
    }
    let mut all_near_unit = true;
    for i in 0..LANES {
        all_near_unit &= is_near_unit(q.get(i));
    }
    if !all_near_unit {
        for (i, r) in group.iter().enumerate() {
            let r = near_unit(*r);
            (q.x[i], q.y[i], q.z[i], q.w[i]) = (r.x, r.y, r.z, r.w);
        }
    }
    q
}

/// `a · q` in every lane ([`product`]).
#[inline(always)]
fn multiply_left(a: Quat, q: &Quats) -> Quats {
    let mut out = Quats::default();
    for i in 0..LANES {
        let r = product(a, q.get(i));
        (out.x[i], out.y[i], out.z[i], out.w[i]) = (r.x, r.y, r.z, r.w);
    }
    out
}

/// The cover with `w ≥ 0` in every lane.
#[inline(always)]
fn short_way(q: &Quats) -> Quats {
    let mut out = *q;
    for i in 0..LANES {
        let sign = if q.w[i] < 0.0 { -1.0 } else { 1.0 };
        out.x[i] *= sign;
        out.y[i] *= sign;
        out.z[i] *= sign;
        out.w[i] *= sign;
    }
    out
}

/// The scaled angle-axis `θ·n` of unit quaternions with `w ≥ 0` in every lane: the operations of
/// [`short_scaled_angle_axis`], both of its cases formed and one kept, so the loop has no branch.
/// A group turned no more than 90° in every lane (joints mostly are) forms the first case only,
/// sparing a square root, a division and a polynomial per lane.
#[inline(always)]
fn logarithm(q: &Quats) -> Points {
    let mut sin_half_squared = [0.0f32; LANES];
    let mut all_within = true;
    for i in 0..LANES {
        let (x, y, z, w) = (q.x[i], q.y[i], q.z[i], q.w[i]);
        sin_half_squared[i] = x * x + y * y + z * z;
        all_within &= sin_half_squared[i] <= w * w;
    }
    let mut out = Points::default();
    if all_within {
        for i in 0..LANES {
            let scale = short_log_scale_within_quarter(sin_half_squared[i], q.w[i]);
            (out.x[i], out.y[i], out.z[i]) = (q.x[i] * scale, q.y[i] * scale, q.z[i] * scale);
        }
        return out;
    }
    for i in 0..LANES {
        let (x, y, z, w) = (q.x[i], q.y[i], q.z[i], q.w[i]);
        let within = short_log_scale_within_quarter(sin_half_squared[i], w);
        let beyond = short_log_scale_beyond_quarter(sin_half_squared[i], w);
        let scale = if sin_half_squared[i] <= w * w {
            within
        } else {
            beyond
        };
        (out.x[i], out.y[i], out.z[i]) = (x * scale, y * scale, z * scale);
    }
    out
}

/// `exp(p/2)` in every lane: the inverse of [`logarithm`]. Angles beyond 2π (outside the series'
/// range) take the scalar path.
#[inline(always)]
fn exponential(p: &Points) -> Quats {
    let mut out = Quats::default();
    let mut beyond_series = false;
    for i in 0..LANES {
        let (x, y, z) = (p.x[i], p.y[i], p.z[i]);
        let angle_squared = x * x + y * y + z * z;
        beyond_series |= angle_squared > TAU * TAU;
        let (scale, cos_half) = fast_trig::half_angle_sinc_cos(angle_squared);
        out.x[i] = x * scale;
        out.y[i] = y * scale;
        out.z[i] = z * scale;
        out.w[i] = cos_half;
    }
    if beyond_series {
        for i in 0..LANES {
            let q = from_scaled_angle_axis(p.get(i));
            (out.x[i], out.y[i], out.z[i], out.w[i]) = (q.x, q.y, q.z, q.w);
        }
    }
    out
}

/// What the full-space kernel finds for a group, lane by lane, as the one-at-a-time path
/// ([`crate::region::FullLimit`]) finds it: the limited relative rotations, the short cover's
/// points (its [`Limited::measured`]) and their distances to the region (its
/// [`Limited::violation`]).
struct FullLanes {
    result: LaneResult,
    point: Points,
    distance: Lanes,
}

/// Projects full-space points from the short cover. A lane goes back to the one-at-a-time path
/// (`fallback`) where that path would look at the long cover ([`Ball::short_is_nearer`], see
/// [`crate::region::covers`]) or settle a long point; every other lane makes that path's
/// operations in its order, so for boxes and ellipsoids the results are its own bit for bit.
#[inline(always)]
fn limit_full(shape: &Shape, ball: &Ball, relative: &Quats) -> FullLanes {
    let point = logarithm(relative);
    let (projected, mut inside) = project(shape, &point);
    let mut fallback = [false; LANES];
    let mut distance = [0.0f32; LANES];
    if inside.iter().all(|&i| i) {
        return FullLanes {
            result: LaneResult {
                limited: *relative,
                inside,
                fallback,
            },
            point,
            distance,
        };
    }
    // `settle_projection` and `FullLimit::result` of the one-at-a-time path, lane by lane.
    let mut needs_bound = [false; LANES];
    let may_pass_full_turn = ball.passes_full_turn();
    for i in 0..LANES {
        let (p, onto) = (point.get(i), projected.get(i));
        let d = p.distance(onto);
        let close = !inside[i] & (d <= BOUNDARY_TOLERANCE);
        let outside = !inside[i] & !close;
        distance[i] = if outside { d } else { 0.0 };
        inside[i] |= close;
        needs_bound[i] = outside & !ball.short_by_reach(p, d);
        // A long point (|p| > π only by rounding) is settled on that path, and so is a
        // projection past a full turn (`covers::within_full_turn`).
        fallback[i] = outside
            & ((p.length_squared() > PI * PI)
                | may_pass_full_turn & (onto.length_squared() > COVER_REACH * COVER_REACH));
    }
    if needs_bound.iter().any(|&n| n) {
        let short = surely_short(shape, ball, &point, &distance);
        for i in 0..LANES {
            fallback[i] |= needs_bound[i] & !short[i];
        }
    }
    FullLanes {
        result: LaneResult {
            limited: exponential(&projected),
            inside,
            fallback,
        },
        point,
        distance,
    }
}

/// [`Ball::short_is_nearer`] in every lane: whether the short cover's projection, `distance`
/// away, is surely no farther than the long cover's.
#[inline(always)]
fn surely_short(shape: &Shape, ball: &Ball, point: &Points, distance: &Lanes) -> [bool; LANES] {
    #[inline(always)]
    fn each_lane(
        ball: &Ball,
        point: &Points,
        distance: &Lanes,
        lower_bound: impl Fn(Vec3) -> f32 + Copy,
    ) -> [bool; LANES] {
        let mut short = [true; LANES];
        for i in 0..LANES {
            short[i] =
                ball.short_is_nearer_without_branches(lower_bound, point.get(i), distance[i]);
        }
        short
    }
    match shape {
        Shape::Box(b) => each_lane(ball, point, distance, |x| {
            distance_to_box(&b.frame, b.min, b.max, x)
        }),
        Shape::Ellipsoid(e) => each_lane(ball, point, distance, |x| {
            distance_to_box(&e.frame, -e.semi_axes, e.semi_axes, x)
        }),
        Shape::Kdop(_) | Shape::Hull(_) => {
            each_lane(ball, point, distance, |x| ball.distance_beyond(x))
        }
    }
}

/// Projects limit-space points onto `shape`, with the inside flag per lane.
#[inline(always)]
fn project(shape: &Shape, point: &Points) -> (Points, [bool; LANES]) {
    match shape {
        Shape::Box(b) => project_box(b, point),
        Shape::Ellipsoid(e) => project_ellipsoid(e, point),
        Shape::Kdop(k) => project_polytope(k.polytope(), &k.frame, point),
        Shape::Hull(h) => project_polytope(h.polytope(), &h.frame, point),
    }
}

/// Polytopes with at most this many faces take the inside test in all lanes at once: a scan of
/// every plane costs less than the lookups then (a 13-DOP has 26 faces).
const LANE_SCAN_FACES: usize = 32;

/// The inside test, then the exact polytope projection for the lanes that are outside. Small
/// polytopes test every plane in all lanes at once; larger ones go lane by lane through the
/// projection's own lookups (the cell grid, the support faces), which decide most points from a
/// few planes.
#[inline(always)]
fn project_polytope(polytope: &Polytope, frame: &Frame, point: &Points) -> (Points, [bool; LANES]) {
    let local = point.in_frame(frame);
    let mut inside = [true; LANES];
    if polytope.face_count() <= LANE_SCAN_FACES {
        let mut highest = [f32::NEG_INFINITY; LANES];
        for (n, offset) in polytope.planes() {
            for i in 0..LANES {
                let height = n.x * local.x[i] + n.y * local.y[i] + n.z * local.z[i] - offset;
                highest[i] = highest[i].max(height);
            }
        }
        for i in 0..LANES {
            inside[i] = highest[i] <= Polytope::INSIDE_TOLERANCE;
        }
    } else {
        inside = [false; LANES];
    }
    let mut projected = local;
    for i in 0..LANES {
        if inside[i] {
            continue;
        }
        match polytope.project(local.get(i)) {
            Some(p) => projected.set(i, p),
            None => inside[i] = true,
        }
    }
    (projected.out_of_frame(frame), inside)
}

/// [`crate::shape::LimitShape::project`] of a box in every lane: the clamp in its frame.
#[inline(always)]
fn project_box(shape: &BoxShape, point: &Points) -> (Points, [bool; LANES]) {
    let frame = &shape.frame;
    let local = point.in_frame(frame);
    let mut clamped = local;
    let mut inside = [true; LANES];
    for i in 0..LANES {
        let (x, onto) = (local.get(i), local.get(i).clamp(shape.min, shape.max));
        clamped.set(i, onto);
        inside[i] = onto == x;
    }
    (clamped.out_of_frame(frame), inside)
}

/// [`EllipsoidShape::holds_local`] in every lane, one coordinate array at a time so that it
/// vectorises: the same divisions and the same sum, `(x² + y²) + z²`, so the same bits.
#[inline(always)]
fn holds_local_lanes(shape: &EllipsoidShape, local: &Points) -> [bool; LANES] {
    let axes = shape.semi_axes;
    let mut inside = [true; LANES];
    for i in 0..LANES {
        let (x, y, z) = (
            local.x[i] / axes.x,
            local.y[i] / axes.y,
            local.z[i] / axes.z,
        );
        inside[i] = (x * x + y * y) + z * z <= 1.0 + EllipsoidShape::INSIDE_SLACK;
    }
    inside
}

/// [`crate::shape::LimitShape::project`] of an ellipsoid in every lane: the inside test, then
/// the one-at-a-time path's Newton climb in all outside lanes at once.
#[inline(always)]
fn project_ellipsoid(shape: &EllipsoidShape, point: &Points) -> (Points, [bool; LANES]) {
    let frame = &shape.frame;
    let local = point.in_frame(frame);
    let inside = holds_local_lanes(shape, &local);
    if inside.iter().all(|&i| i) {
        return (*point, inside);
    }
    // The outside lanes, packed to the front so that the climb runs on as few vectors as it can.
    let mut outside = [0usize; LANES];
    let mut count = 0;
    for i in 0..LANES {
        outside[count] = i;
        count += usize::from(!inside[i]);
    }
    let packed = count.next_multiple_of(8).min(LANES);
    let axes = shape.semi_axes;
    let a2 = axes * axes;
    let smallest_a2 = a2.min_element();
    let mut t = [0.0f32; LANES];
    let mut active = [false; LANES];
    let mut squares = Points::default();
    for k in 0..count {
        let x = local.get(outside[k]);
        squares.set(k, squared_scaled(axes, x));
        t[k] = newton_start(axes, x);
        active[k] = true;
    }
    // The one-at-a-time climb (`EllipsoidShape::project_local_outside`) in every packed lane: a
    // lane takes each step while it climbs, and its last step if that still rises, then stops.
    // (Padding lanes have no terms: their steps are not finite, and they are not active.)
    for _ in 0..EllipsoidShape::MAX_NEWTON_STEPS {
        let mut any_active = false;
        for k in 0..packed {
            let next = newton_step(a2, squares.x[k], squares.y[k], squares.z[k], t[k]);
            let finite = next.is_finite();
            let climbing = finite && still_climbing(t[k], next, smallest_a2);
            if active[k] && finite && next > t[k] {
                t[k] = next;
            }
            active[k] &= climbing;
            any_active |= active[k];
        }
        if !any_active {
            break;
        }
    }
    let mut surface = local;
    for k in 0..count {
        let i = outside[k];
        surface.set(i, surface_point(a2, local.get(i), t[k]));
    }
    (surface.out_of_frame(frame), inside)
}

/// Swing-twist limiting of every lane.
#[inline(always)]
fn limit_swing_twist(relative: &Quats, limit: &SwingTwistLimit) -> LaneResult {
    let (axis, basis) = (limit.twist_axis, &limit.swing_basis);
    let (swing, twist_angle, well_conditioned) = split_swing_twist(relative, axis);
    let swing_point = logarithm(&swing);
    let mut in_plane = swing_point.transform(&basis.transpose(), Vec3::ZERO);
    in_plane.z = [0.0; LANES];
    let (allowed, swing_inside) = project(limit.swing(), &in_plane);
    let mut inside = swing_inside;
    let mut fallback = [false; LANES];
    let mut allowed_twist = twist_angle;
    let ball = limit.ball();
    let (min, max) = (limit.twist.min, limit.twist.max);
    let mut swing_distance = [0.0f32; LANES];
    let mut needs_bound = [false; LANES];
    let may_pass_full_turn = ball.passes_full_turn();
    for i in 0..LANES {
        // The twist measure of `TwistRange::measure`, branch-free so the loop vectorises.
        let twist = twist_angle[i];
        let offset = twist - min;
        let turned = min + (offset - TAU * (offset * (1.0 / TAU)).floor());
        let within = (twist >= min) & (twist <= max) | (turned <= max);
        let (above, below) = (turned - max, min + TAU - turned);
        let to_max = above <= below;
        let twist_distance = if within { 0.0 } else { above.min(below) };
        allowed_twist[i] = if (twist >= min) & (twist <= max) {
            twist
        } else if within {
            turned
        } else if to_max {
            max
        } else {
            min
        };
        let (dx, dy) = (in_plane.x[i] - allowed.x[i], in_plane.y[i] - allowed.y[i]);
        let distance = if swing_inside[i] {
            0.0
        } else {
            (dx * dx + dy * dy).sqrt()
        };
        swing_distance[i] = distance;
        let squared = distance * distance + twist_distance * twist_distance;
        inside[i] = squared <= BOUNDARY_TOLERANCE * BOUNDARY_TOLERANCE;
        // Within a factor of two of the tolerance the lanes' rounding (the swing measured in
        // the plane) could decide otherwise than the scalar path, which `contains` runs.
        let at_tolerance = (squared > 0.25 * BOUNDARY_TOLERANCE * BOUNDARY_TOLERANCE)
            & (squared <= 4.0 * BOUNDARY_TOLERANCE * BOUNDARY_TOLERANCE);
        // Swings nearer than `2π − |swing| − reach` never need the long cover's bound.
        needs_bound[i] = !inside[i] & !ball.short_by_reach(in_plane.get(i), distance);
        let past_full_turn = may_pass_full_turn
            & (allowed.x[i] * allowed.x[i] + allowed.y[i] * allowed.y[i]
                > COVER_REACH * COVER_REACH);
        fallback[i] = !inside[i] & (!well_conditioned[i] | past_full_turn) | at_tolerance;
    }
    for i in 0..LANES {
        if needs_bound[i]
            && !ball.short_is_nearer(limit.swing(), in_plane.get(i), swing_distance[i])
        {
            fallback[i] = true;
        }
    }
    if inside.iter().all(|&i| i) {
        return LaneResult {
            limited: *relative,
            inside,
            fallback,
        };
    }
    let mut allowed_plane = allowed;
    allowed_plane.z = [0.0; LANES];
    let swing = exponential(&allowed_plane.transform(basis, Vec3::ZERO));
    let mut out = Quats::default();
    for i in 0..LANES {
        // rotation_about(axis, allowed), with the half angle reduced branch-free.
        let half = 0.5 * allowed_twist[i];
        let half = half - TAU * (half * (1.0 / TAU)).round();
        let (sin_abs, cos_half) = fast_trig::sin_cos(half.abs());
        let sin_half = sin_abs.copysign(half);
        let (bx, by, bz, bw) = (
            axis.x * sin_half,
            axis.y * sin_half,
            axis.z * sin_half,
            cos_half,
        );
        let (ax, ay, az, aw) = (swing.x[i], swing.y[i], swing.z[i], swing.w[i]);
        out.x[i] = aw * bx + ax * bw + ay * bz - az * by;
        out.y[i] = aw * by - ax * bz + ay * bw + az * bx;
        out.z[i] = aw * bz + ax * by - ay * bx + az * bw;
        out.w[i] = aw * bw - ax * bx - ay * by - az * bz;
    }
    LaneResult {
        limited: out,
        inside,
        fallback,
    }
}

/// The swing (short way), twist angle and whether the twist is well conditioned (the swing is
/// more than about 11° short of 180°, see [`NEAR_HALF_SWING`]) of every lane, about the unit
/// `axis`.
///
/// `q = swing · twist` with `twist = normalise(axis·(v·axis), w)`; `swing = q · twist⁻¹`, whose
/// `w` is the norm of that projection (≥ 0), so the swing is the short way.
#[inline(always)]
fn split_swing_twist(relative: &Quats, axis: Vec3) -> (Quats, Lanes, [bool; LANES]) {
    let mut swing = Quats::default();
    let mut twist_angle = [0.0; LANES];
    let mut well_conditioned = [false; LANES];
    for i in 0..LANES {
        let (x, y, z, w) = (relative.x[i], relative.y[i], relative.z[i], relative.w[i]);
        let along = x * axis.x + y * axis.y + z * axis.z;
        let norm = (along * along + w * w).sqrt();
        well_conditioned[i] = norm >= NEAR_HALF_SWING;
        let degenerate = norm < 1e-6;
        let inverse = if degenerate { 0.0 } else { norm.recip() };
        let (ts, tw) = if degenerate {
            (0.0, 1.0)
        } else {
            (along * inverse, w * inverse)
        };
        // q · conj(t) with t = (axis·ts, tw).
        let (tx, ty, tz) = (axis.x * ts, axis.y * ts, axis.z * ts);
        swing.x[i] = -w * tx + x * tw - y * tz + z * ty;
        swing.y[i] = -w * ty + y * tw - z * tx + x * tz;
        swing.z[i] = -w * tz + z * tw - x * ty + y * tx;
        swing.w[i] = w * tw + x * tx + y * ty + z * tz;
        twist_angle[i] = 2.0 * atan2(ts, tw);
    }
    (swing, twist_angle, well_conditioned)
}

/// The twist angle about the unit `axis`, the axis direction `q·axis` and whether the swing is
/// well short of 180° ([`NEAR_HALF_SWING`]) of every lane (short way, near unit), for the lanes
/// of kinds that measure a bone direction (reach cones, tables). The direction is formed as the one-at-a-time
/// path forms it (glam's `q·v`, `v(w² − |b|²) + 2b(v·b) + 2w(b × v)`), so the two agree to a few
/// roundings even on quaternions a little off unit length.
#[inline(always)]
fn twist_and_direction(relative: &Quats, axis: Vec3) -> (Lanes, Points, [bool; LANES]) {
    let a = axis;
    let mut twist = [0.0; LANES];
    let mut direction = Points::default();
    let mut well_conditioned = [false; LANES];
    for i in 0..LANES {
        let (x, y, z, w) = (relative.x[i], relative.y[i], relative.z[i], relative.w[i]);
        let along = x * a.x + y * a.y + z * a.z;
        well_conditioned[i] = along * along + w * w >= NEAR_HALF_SWING * NEAR_HALF_SWING;
        twist[i] = 2.0 * atan2(along, w);
        let keep = w * w - (x * x + y * y + z * z);
        let (cx, cy, cz) = (y * a.z - z * a.y, z * a.x - x * a.z, x * a.y - y * a.x);
        direction.x[i] = a.x * keep + 2.0 * along * x + 2.0 * w * cx;
        direction.y[i] = a.y * keep + 2.0 * along * y + 2.0 * w * cy;
        direction.z[i] = a.z * keep + 2.0 * along * z + 2.0 * w * cz;
    }
    (twist, direction, well_conditioned)
}

/// Each lane's [`pseudo_azimuth`] around the cone's visible point, which finds its slice.
#[inline(always)]
fn azimuths(direction: &Points, limit: &ReachConeLimit) -> Lanes {
    let (e1, e2) = limit.cone.tangent();
    let mut azimuth = [0.0; LANES];
    for i in 0..LANES {
        let (dx, dy, dz) = (direction.x[i], direction.y[i], direction.z[i]);
        azimuth[i] = pseudo_azimuth(
            dx * e1.x + dy * e1.y + dz * e1.z,
            dx * e2.x + dy * e2.y + dz * e2.z,
        );
    }
    azimuth
}

/// Reach-cone limiting of every lane: the twist angles, the axis directions `q·axis` and their
/// azimuths around `V` lane by lane; then each lane's slice, inside test and twist range, and
/// the nearest allowed rotation for the lanes outside, one at a time.
#[inline(always)]
fn limit_reach_cone(relative: &Quats, limit: &ReachConeLimit) -> LaneResult {
    let (twist, direction, _) = twist_and_direction(relative, limit.twist_axis);
    let azimuth = azimuths(&direction, limit);
    let mut out = *relative;
    let mut inside = [true; LANES];
    for i in 0..LANES {
        let d = direction.get(i);
        let q = Quat::from_xyzw(relative.x[i], relative.y[i], relative.z[i], relative.w[i]);
        let limited = limit.nearest_measured(q, twist[i], d, limit.cone.slice_at(d, azimuth[i]));
        inside[i] = limited.inside;
        let r = limited.relative;
        (out.x[i], out.y[i], out.z[i], out.w[i]) = (r.x, r.y, r.z, r.w);
    }
    LaneResult {
        limited: out,
        inside,
        fallback: [false; LANES],
    }
}

/// `atan2(y, x)` for `x ≥ 0` (a twist's cosine half), without branches.
#[inline(always)]
fn atan2(y: f32, x: f32) -> f32 {
    let ay = y.abs();
    let near = ay <= x;
    let (num, den) = if near { (ay, x) } else { (x, ay) };
    let ratio = if den > 0.0 { num / den } else { 0.0 };
    let base = ratio * fast_trig::atan_over_t(ratio * ratio);
    let angle = if near { base } else { FRAC_PI_2 - base };
    angle.copysign(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::KdopDirections;
    use crate::{FitOptions, ShapeKind, SpaceKind};

    /// The portable build of the groups (what a CPU without AVX2 runs) gives what the dispatched
    /// one gives.
    #[test]
    fn portable_and_dispatched_paths_agree() {
        let samples: Vec<Quat> = (0..500)
            .map(|i| {
                let t = i as f32 * 0.02;
                from_scaled_angle_axis(Vec3::new(t.sin(), 0.6 * (1.7 * t).cos(), 0.3 * t.sin()))
            })
            .collect();
        let inputs: Vec<Quat> = (0..100)
            .map(|i| {
                let t = i as f32 * 0.37;
                from_scaled_angle_axis(Vec3::new(2.0 * t.sin(), 1.5 * t.cos(), (0.5 * t).sin()))
            })
            .collect();
        for space in [SpaceKind::Full, SpaceKind::SwingTwist] {
            for shape in [
                ShapeKind::Box,
                ShapeKind::Ellipsoid,
                ShapeKind::Kdop(KdopDirections::Seven),
            ] {
                let options = FitOptions {
                    space,
                    shape,
                    ..FitOptions::default()
                };
                let limit = crate::fit::fit_joint_limit(
                    "joint",
                    Quat::IDENTITY,
                    std::slice::from_ref(&samples),
                    Vec3::Z,
                    &options,
                )
                .unwrap();
                let mut portable = inputs.clone();
                limit.limit_groups(&mut portable);
                let mut dispatched = inputs.clone();
                limit.limit_many(&mut dispatched);
                for (a, b) in portable.iter().zip(&dispatched) {
                    assert!(crate::rotation::angle_between(*a, *b) < 1e-5);
                }
                assert!(portable.iter().zip(&inputs).any(|(a, b)| a != b));
            }
        }
    }
}
