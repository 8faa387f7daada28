//! A conservative inside test across lanes: which rotations of a group are allowed by a margin
//! wide enough that the scalar path, whatever its rounding, also finds them allowed.
//!
//! Callers that must reproduce the scalar path bit for bit (the crowd, whose output equals
//! [`crate::Limiter`]'s, for kinds without exact lanes) take the lanes' word only for these
//! rotations, which come back unchanged on both paths, and send every other rotation through the
//! scalar path. The lanes' swing-twist splits, twist angles and shrunk shapes differ from the
//! scalar path's by a few f32 roundings (under 1e-6 rad for points within 2π); the margin
//! [`ROUNDING_MARGIN`] is a hundred times that.

// Lane loops index several arrays in lockstep by lane number: the form that vectorises.
#![allow(clippy::needless_range_loop)]

use glam::{DVec3, Mat3, Quat, Vec3};

use super::table_inside::TableLanes;
use super::{LANES, Points, Quats, load, logarithm, multiply_left, short_way};
use crate::joint_limit::{JointLimit, LimitRegion};
use crate::reach_cone::{ReachConeLimit, TwistRange};
use crate::shape::{Frame, Shape};

/// How far (radians, in limit space or of twist) the lanes' points may stray from the scalar
/// path's before the lanes could misjudge a rotation: a generous bound on f32 rounding.
pub const ROUNDING_MARGIN: f32 = 1e-4;

/// Below this `|w|` a rotation turns by nearly π, where rounding may pick the other cover.
const NEAR_HALF_TURN: f32 = 1e-3;

/// A region shrunk by [`ROUNDING_MARGIN`], tested lane by lane.
#[derive(Clone, Debug)]
enum ShrunkShape {
    /// `min + m ≤ x ≤ max − m` in the box's frame.
    Box { frame: Frame, min: Vec3, max: Vec3 },
    /// `Σ xᵢ²/aᵢ² ≤ threshold`, where a point moved by `m` changes the sum by at most
    /// `2m/a_min` near the surface.
    Ellipsoid {
        frame: Frame,
        inverse_squares: Vec3,
        threshold: f32,
    },
    /// `n·x ≤ offset − m` for every (unit) face normal.
    Polytope {
        frame: Frame,
        planes: Vec<(Vec3, f32)>,
    },
}

impl ShrunkShape {
    fn of(shape: &Shape) -> ShrunkShape {
        let m = ROUNDING_MARGIN;
        match shape {
            Shape::Box(b) => ShrunkShape::Box {
                frame: b.frame,
                min: b.min + m,
                max: b.max - m,
            },
            Shape::Ellipsoid(e) => ShrunkShape::Ellipsoid {
                frame: e.frame,
                inverse_squares: (e.semi_axes * e.semi_axes).recip(),
                threshold: 1.0 - 2.0 * m / e.semi_axes.min_element(),
            },
            Shape::Kdop(k) => ShrunkShape::Polytope {
                frame: k.frame,
                planes: shrunk_planes(k.polytope().planes()),
            },
            Shape::Hull(h) => ShrunkShape::Polytope {
                frame: h.frame,
                planes: shrunk_planes(h.polytope().planes()),
            },
        }
    }

    /// Whether each lane's point lies in the shrunk region.
    #[inline(always)]
    fn holds(&self, point: &Points) -> [bool; LANES] {
        let mut inside = [true; LANES];
        match self {
            ShrunkShape::Box { frame, min, max } => {
                let local = point.in_frame(frame);
                for i in 0..LANES {
                    let (x, y, z) = (local.x[i], local.y[i], local.z[i]);
                    inside[i] = (x >= min.x)
                        & (x <= max.x)
                        & (y >= min.y)
                        & (y <= max.y)
                        & (z >= min.z)
                        & (z <= max.z);
                }
            }
            ShrunkShape::Ellipsoid {
                frame,
                inverse_squares: k,
                threshold,
            } => {
                let local = point.in_frame(frame);
                for i in 0..LANES {
                    let (x, y, z) = (local.x[i], local.y[i], local.z[i]);
                    inside[i] = x * x * k.x + y * y * k.y + z * z * k.z <= *threshold;
                }
            }
            ShrunkShape::Polytope { frame, planes } => {
                let local = point.in_frame(frame);
                for &(n, offset) in planes {
                    for i in 0..LANES {
                        let height = n.x * local.x[i] + n.y * local.y[i] + n.z * local.z[i];
                        inside[i] &= height <= offset;
                    }
                }
            }
        }
        inside
    }
}

fn shrunk_planes(planes: impl Iterator<Item = (Vec3, f32)>) -> Vec<(Vec3, f32)> {
    planes
        .map(|(n, offset)| (n, offset - ROUNDING_MARGIN))
        .collect()
}

/// The region side of a [`SurelyInside`] test.
#[derive(Clone, Debug)]
enum Test {
    /// A full-space region over the short cover's scaled angle-axis.
    Full(ShrunkShape),
    /// A swing region in swing-plane coordinates and a twist interval (shrunk at both ends by
    /// the margin when tested).
    SwingTwist {
        axis: Vec3,
        to_plane: Mat3,
        swing: ShrunkShape,
        twist: TwistRange,
    },
    /// A lookup table's decision channels ([`TableLanes`]).
    Table(TableLanes),
    /// A reach cone's cap around its visible point and its slices ([`ConeLanes`]).
    ReachCone(ConeLanes),
}

/// A reach cone's conservative test: a direction in the largest cap around the visible point
/// `V` that the cone holds, with a twist that every direction of the cone allows; or else a
/// direction well inside its slice and edge, with a twist well inside the limits there
/// ([`crate::reach_cone::ReachCone::surely_allows`]). Near `V`, where every slice plane meets,
/// only the cap can say: there a joint that barely moves spends all its time.
#[derive(Clone, Debug)]
struct ConeLanes {
    limit: ReachConeLimit,
    /// `|d − V|²` up to which a unit direction `d` lies in the cap shrunk by twice the margin;
    /// negative when the cone holds no such cap.
    cap_chord_squared: f32,
    /// The twist limits that hold at every direction of the cone (the corners' common range:
    /// limits interpolated between corners lie between theirs); empty (`min > max`) when the
    /// corners share none.
    common_twist: TwistRange,
}

impl ConeLanes {
    fn of(limit: &ReachConeLimit) -> ConeLanes {
        let cone = &limit.cone;
        let visible = cone.visible().as_dvec3();
        let boundary: Vec<DVec3> = cone.boundary().iter().map(|p| p.as_dvec3()).collect();
        // The angular distance from `V` to the boundary: to each edge's arc, at the foot of `V`
        // on its great circle where that lies on the arc, else at the nearer end.
        let radius = (0..boundary.len())
            .map(|i| {
                let (p, q) = (boundary[i], boundary[(i + 1) % boundary.len()]);
                let normal = p.cross(q).normalize();
                let foot = visible - normal * normal.dot(visible);
                let on_arc = p.cross(foot).dot(normal) >= 0.0 && foot.cross(q).dot(normal) >= 0.0;
                if on_arc && foot.length() > 1e-12 {
                    normal.dot(visible).clamp(-1.0, 1.0).asin()
                } else {
                    visible.angle_between(p).min(visible.angle_between(q))
                }
            })
            .fold(f64::INFINITY, f64::min);
        let shrunk = radius - 2.0 * f64::from(ROUNDING_MARGIN);
        let cap_chord_squared = if shrunk > 0.0 {
            (2.0 * (0.5 * shrunk).sin()).powi(2) as f32
        } else {
            -1.0
        };
        let corners = std::iter::once(cone.twist_at_visible())
            .chain(cone.twist_at_boundary().iter().copied());
        let (low, high) = corners.fold((f32::NEG_INFINITY, f32::INFINITY), |(low, high), r| {
            (low.max(r.min), high.min(r.max))
        });
        ConeLanes {
            limit: limit.clone(),
            cap_chord_squared,
            common_twist: TwistRange {
                min: low,
                max: high,
            },
        }
    }

    #[inline(always)]
    fn holds(&self, relative: &Quats) -> [bool; LANES] {
        let limit = &self.limit;
        let (twist, direction, well_conditioned) =
            super::twist_and_direction(relative, limit.twist_axis);
        let azimuth = super::azimuths(&direction, limit);
        let visible = limit.cone.visible();
        // The cap in every lane at once (the direction normalised, its chord to `V` formed from
        // differences, which keeps its digits for small caps); the slices lane by lane for the
        // rest.
        let mut surely = [false; LANES];
        for i in 0..LANES {
            let (x, y, z) = (direction.x[i], direction.y[i], direction.z[i]);
            let scale = 1.0 / (x * x + y * y + z * z).sqrt();
            let (dx, dy, dz) = (
                x * scale - visible.x,
                y * scale - visible.y,
                z * scale - visible.z,
            );
            surely[i] = (dx * dx + dy * dy + dz * dz <= self.cap_chord_squared)
                & self.common_twist.holds_within(twist[i], ROUNDING_MARGIN)
                & well_conditioned[i];
        }
        for i in 0..LANES {
            if !surely[i] && well_conditioned[i] {
                let d = direction.get(i);
                let slice = limit.cone.slice_at(d, azimuth[i]);
                surely[i] = limit
                    .cone
                    .surely_allows(d, slice, twist[i], ROUNDING_MARGIN);
            }
        }
        surely
    }
}

/// The conservative lane test of one joint's limit (module docs).
#[derive(Clone, Debug)]
pub struct SurelyInside {
    reference_inverse: Quat,
    test: Test,
}

impl SurelyInside {
    /// The test for `limit`, for full-space and swing-twist limits, swing cones and spherical
    /// ellipses (the swing-twist test of the swing-twist ellipsoids they are, whose answers
    /// stray from theirs by far less than the margin), lookup tables and reach cones; `None`
    /// for others, whose rotations all take the scalar path.
    pub fn of(limit: &JointLimit) -> Option<SurelyInside> {
        let swing_twist = |st: &crate::region::SwingTwistLimit| Test::SwingTwist {
            axis: st.twist_axis,
            to_plane: st.swing_basis.transpose(),
            swing: ShrunkShape::of(st.swing()),
            twist: st.twist,
        };
        let test = match &limit.region {
            LimitRegion::Full(full) => Test::Full(ShrunkShape::of(full.shape())),
            LimitRegion::SwingTwist(st) => swing_twist(st),
            LimitRegion::Cone(cone) => swing_twist(&cone.as_swing_twist()?),
            LimitRegion::SphericalEllipse(ellipse) => swing_twist(&ellipse.as_swing_twist()?),
            LimitRegion::Table(table) => Test::Table(TableLanes::of(table)),
            LimitRegion::ReachCone(cone) => Test::ReachCone(ConeLanes::of(cone)),
            _ => return None,
        };
        Some(SurelyInside {
            reference_inverse: limit.reference.conjugate(),
            test,
        })
    }

    /// For each local rotation of `group`, whether it is surely allowed: `true` only where the
    /// scalar path also finds it allowed (and so returns it unchanged).
    pub fn test(&self, group: &[Quat; LANES]) -> [bool; LANES] {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been checked for AVX2.
            return unsafe { self.test_avx2(group) };
        }
        self.test_lanes(group)
    }

    /// [`SurelyInside::test_lanes`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn test_avx2(&self, group: &[Quat; LANES]) -> [bool; LANES] {
        self.test_lanes(group)
    }

    #[inline(always)]
    fn test_lanes(&self, group: &[Quat; LANES]) -> [bool; LANES] {
        let relative = short_way(&multiply_left(self.reference_inverse, &load(group)));
        // Quaternions far from unit length (whose squares overflow or vanish) go the scalar way.
        let mut well_scaled = [false; LANES];
        for i in 0..LANES {
            let (x, y, z, w) = (relative.x[i], relative.y[i], relative.z[i], relative.w[i]);
            let norm_squared = x * x + y * y + z * z + w * w;
            well_scaled[i] = (1e-6..=1e6).contains(&norm_squared);
        }
        let inside = match &self.test {
            Test::Full(shape) => {
                let mut inside = shape.holds(&logarithm(&relative));
                for i in 0..LANES {
                    inside[i] &= relative.w[i] >= NEAR_HALF_TURN;
                }
                inside
            }
            Test::SwingTwist {
                axis,
                to_plane,
                swing,
                twist,
            } => {
                let (swing_rotation, twist_angle, well_conditioned) =
                    super::split_swing_twist(&relative, *axis);
                let mut plane = logarithm(&swing_rotation).transform(to_plane, Vec3::ZERO);
                plane.z = [0.0; LANES];
                let mut inside = swing.holds(&plane);
                for i in 0..LANES {
                    inside[i] &=
                        twist.holds_within(twist_angle[i], ROUNDING_MARGIN) & well_conditioned[i];
                }
                inside
            }
            Test::Table(table) => table.holds(&relative),
            Test::ReachCone(cone) => cone.holds(&relative),
        };
        std::array::from_fn(|i| inside[i] & well_scaled[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{load, multiply_left, short_way};
    use crate::measure::SeededRandom;
    use std::f32::consts::TAU;

    /// The lanes' bone directions and twist angles, which the reach cone's and the table's lane
    /// tests read, stray from the one-at-a-time path's by far less than [`ROUNDING_MARGIN`], on
    /// Haar-random rotations slightly off unit length, about any axis.
    #[test]
    fn the_lanes_directions_and_twists_stray_by_far_less_than_the_margin() {
        let mut random = SeededRandom::new(43);
        let (mut direction_stray, mut twist_stray) = (0.0f32, 0.0f32);
        for axis in [Vec3::Y, Vec3::new(0.3, -0.8, 0.5).normalize(), Vec3::NEG_Z] {
            for _ in 0..2000 {
                let group: [Quat; LANES] = std::array::from_fn(|_| {
                    let scale = 1.0 + 4e-4 * (random.next_unit() as f32 - 0.5);
                    random.rotation() * scale
                });
                let relative = short_way(&multiply_left(Quat::IDENTITY, &load(&group)));
                let (twist, direction, well_conditioned) =
                    super::super::twist_and_direction(&relative, axis);
                for (i, q) in group.iter().enumerate() {
                    let relative = crate::rotation::near_unit(*q);
                    let relative = if relative.w < 0.0 {
                        -relative
                    } else {
                        relative
                    };
                    let (scalar_twist, scalar_direction) =
                        crate::direction_twist::measure(axis, relative);
                    direction_stray =
                        direction_stray.max(scalar_direction.distance(direction.get(i)));
                    if well_conditioned[i] {
                        let apart = (scalar_twist - twist[i]).abs();
                        twist_stray = twist_stray.max(apart.min((apart - TAU).abs()));
                    }
                }
            }
        }
        assert!(
            direction_stray < 0.01 * ROUNDING_MARGIN,
            "{direction_stray}"
        );
        assert!(twist_stray < 0.01 * ROUNDING_MARGIN, "{twist_stray}");
    }

    /// Joints that barely move spend their time at the cone's visible point, where every slice
    /// plane meets and only the cap can pass them: small and wide cones, tilted, with twist
    /// limits the same everywhere or varying, rotations at `V` exactly, near it and out to past
    /// the boundary, with twists across and beyond the limits. Whatever the lanes pass, the
    /// scalar path allows and returns unchanged; rotations well inside are passed.
    #[test]
    fn reach_cones_pass_rotations_at_their_visible_point_only_when_allowed() {
        use crate::reach_cone::{ReachCone, ReachConeLimit};
        let mut random = SeededRandom::new(47);
        let axis = Vec3::new(0.2, 0.9, -0.3).normalize();
        for (radius, varying) in [(0.05f32, false), (0.05, true), (0.6, false), (0.6, true)] {
            let visible = Quat::from_axis_angle(Vec3::X, 0.4) * axis;
            let (e1, e2) = (
                visible.any_orthonormal_vector(),
                visible.cross(visible.any_orthonormal_vector()),
            );
            let boundary: Vec<Vec3> = (0..12)
                .map(|i| {
                    let a = i as f32 * TAU / 12.0;
                    let r = radius * (1.0 + 0.3 * (2.0 * a).cos());
                    (visible * r.cos() + (e1 * a.cos() + e2 * a.sin()) * r.sin()).normalize()
                })
                .collect();
            let twist = |i: usize| {
                let shift = if varying {
                    0.05 * (i as f32).sin()
                } else {
                    0.0
                };
                TwistRange {
                    min: -0.3 + shift,
                    max: 0.3 + shift,
                }
            };
            let cone = ReachCone::with_twist(
                visible,
                &boundary,
                twist(99),
                &(0..12).map(twist).collect::<Vec<_>>(),
            )
            .unwrap();
            let limit = JointLimit {
                joint: "joint".into(),
                reference: random.rotation(),
                region: LimitRegion::ReachCone(ReachConeLimit {
                    twist_axis: axis,
                    cone,
                }),
                softening: None,
            };
            let lanes = SurelyInside::of(&limit).unwrap();
            let (mut passed, mut well_inside) = (0, 0);
            for round in 0..300 {
                let group: [Quat; LANES] = std::array::from_fn(|i| {
                    // The bone at `V` exactly, or off it by up to 1.5 radii; the twist across
                    // and past the limits.
                    let off = if (round + i) % 4 == 0 {
                        0.0
                    } else {
                        1.5 * radius * random.next_unit() as f32
                    };
                    let toward = random.rotation() * Vec3::X;
                    let bone =
                        Quat::from_axis_angle(visible.cross(toward).normalize(), off) * visible;
                    let twist = 0.8 * (random.next_unit() as f32 - 0.5);
                    let relative =
                        Quat::from_rotation_arc(axis, bone) * Quat::from_axis_angle(axis, twist);
                    let local = limit.reference * relative;
                    if (round + i) % 5 == 0 { -local } else { local }
                });
                let surely = lanes.test(&group);
                for (q, &surely) in group.iter().zip(&surely) {
                    assert!(
                        !surely || (limit.contains(*q) && limit.limit(*q) == *q),
                        "{q}"
                    );
                    let roomy = limit.contains(*q)
                        && (0..6).all(|_| {
                            let nudge = Quat::from_axis_angle(random.rotation() * Vec3::X, 2e-3);
                            limit.contains(*q * nudge)
                        });
                    well_inside += usize::from(roomy);
                    passed += usize::from(roomy && surely);
                }
            }
            assert!(well_inside > 500, "{well_inside}");
            // At `V` itself only the cap decides, with the twist limits every corner shares:
            // where they vary, rotations at `V` with twists beyond those take the scalar path.
            let share = if varying { 0.8 } else { 0.9 };
            assert!(
                passed as f64 >= share * well_inside as f64,
                "radius {radius}, varying {varying}: {passed} of {well_inside}"
            );
        }
    }
}
