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

use std::f32::consts::TAU;

use glam::{Mat3, Quat, Vec3};

use super::table_inside::TableLanes;
use super::{LANES, Points, load, logarithm, multiply_left, short_way};
use crate::joint_limit::{JointLimit, LimitRegion};
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
    /// A swing region in swing-plane coordinates and a twist interval shrunk at both ends.
    SwingTwist {
        axis: Vec3,
        to_plane: Mat3,
        swing: ShrunkShape,
        min: f32,
        max: f32,
    },
    /// A lookup table's decision channels ([`TableLanes`]).
    Table(TableLanes),
}

/// The conservative lane test of one joint's limit (module docs).
#[derive(Clone, Debug)]
pub struct SurelyInside {
    reference_inverse: Quat,
    test: Test,
}

impl SurelyInside {
    /// The test for `limit`, for full-space and swing-twist limits and lookup tables; `None` for
    /// others, whose rotations all take the scalar path.
    pub fn of(limit: &JointLimit) -> Option<SurelyInside> {
        let test = match &limit.region {
            LimitRegion::Full(full) => Test::Full(ShrunkShape::of(full.shape())),
            LimitRegion::SwingTwist(st) => Test::SwingTwist {
                axis: st.twist_axis,
                to_plane: st.swing_basis.transpose(),
                swing: ShrunkShape::of(st.swing()),
                min: st.twist.min + ROUNDING_MARGIN,
                max: st.twist.max - ROUNDING_MARGIN,
            },
            LimitRegion::Table(table) => Test::Table(TableLanes::of(table)),
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
                min,
                max,
            } => {
                let (swing_rotation, twist, well_conditioned) =
                    super::split_swing_twist(&relative, *axis);
                let mut plane = logarithm(&swing_rotation).transform(to_plane, Vec3::ZERO);
                plane.z = [0.0; LANES];
                let mut inside = swing.holds(&plane);
                for i in 0..LANES {
                    // The twist itself or its turn above `min` (as `TwistRange::measure`); both
                    // ends shrunk, so a turn that rounding would wrap is never taken.
                    let offset = twist[i] - min;
                    let turned = min + (offset - TAU * (offset * (1.0 / TAU)).floor());
                    let twist_inside = (twist[i] >= *min) & (twist[i] <= *max)
                        | (turned >= *min) & (turned <= *max);
                    inside[i] &= twist_inside & well_conditioned[i];
                }
                inside
            }
            Test::Table(table) => table.holds(&relative),
        };
        std::array::from_fn(|i| inside[i] & well_scaled[i])
    }
}
