//! A reach cone as a joint limit: the swing moves the bone's twist axis to a direction that
//! the cone must hold, and the twist about the bone must lie within the limits interpolated at
//! that direction.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::ReachCone;
use crate::joint_limit::Limited;
use crate::rotation::{rotation_about, rotation_between_units};

/// A joint limit made of a reach cone for the direction of the twist axis and swing-dependent
/// twist limits.
///
/// A relative rotation `q = swing · twist` (split about `twist_axis`) points the axis at
/// `d = q·axis`; its twist angle `θ` keeps the cover of `q`, so it runs continuously past ±π. The
/// limit moves `d` to its geodesically nearest direction `d′` in the cone, then clamps `θ` to the
/// twist limits at `d′`, and rebuilds `rotation_between(axis, d′) · twist(axis, θ′)`.
///
/// As in every swing-twist split, the twist is undefined where the swing reaches 180° (the
/// bone pointing against its reference direction); cones reaching within a few degrees of
/// `−twist_axis` lose precision there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachConeLimit {
    /// The bone's axis in the joint's frame at the reference rotation (unit length).
    pub twist_axis: Vec3,
    /// The directions the axis may point in, and the twist allowed at each.
    pub cone: ReachCone,
}

impl ReachConeLimit {
    /// Limits a relative rotation (in the cover to measure its twist in).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        let axis = self.twist_axis;
        // The twist of `q = (v, w)` about the axis is the normalised `(axis(v·axis), w)`, so its
        // angle needs no normalisation; and `swing · axis = q · axis`.
        let along = Vec3::new(relative.x, relative.y, relative.z).dot(axis);
        let twist = 2.0 * crate::fast_trig::atan2(along, relative.w);
        let direction = relative * axis;
        self.limit_measured(relative, twist, direction, self.cone.slice_of(direction))
    }

    /// [`ReachConeLimit::limit_relative`] once the twist angle, the axis direction `q·axis`
    /// and its slice are known.
    #[inline(always)]
    pub(crate) fn limit_measured(
        &self,
        relative: Quat,
        twist: f32,
        direction: Vec3,
        slice: usize,
    ) -> Limited {
        let axis = self.twist_axis;
        if self.cone.inside_slice(direction, slice) {
            let range = self.cone.twist_limits_in_slice(direction, slice);
            if range.contains(twist) {
                return Limited::unchanged(relative);
            }
            let allowed = range.clamp(twist);
            // swing · twist(allowed) = q · twist(allowed − twist).
            return Limited {
                relative: relative * rotation_about(axis, allowed - twist),
                inside: false,
                violation: (twist - allowed).abs(),
            };
        }
        let (nearest, edge) = self.cone.nearest_on_boundary(direction);
        // A point of edge `i` lies in slice `i` (at a corner, in both slices that share it,
        // where the limits agree).
        let range = self.cone.twist_limits_in_slice(nearest, edge);
        let allowed = range.clamp(twist);
        // atan2 of sine and cosine stays accurate for the tiny angles where acos loses digits.
        let swing_distance =
            crate::fast_trig::atan2(direction.cross(nearest).length(), direction.dot(nearest));
        Limited {
            relative: rotation_between_units(axis, nearest) * rotation_about(axis, allowed),
            inside: false,
            violation: (swing_distance.powi(2) + (twist - allowed).powi(2)).sqrt(),
        }
    }

    /// Every stored number is finite and the twist axis is unit length (the cone was validated
    /// when it was built).
    pub fn is_finite(&self) -> bool {
        self.twist_axis.is_finite() && (self.twist_axis.length() - 1.0).abs() < 1e-4
    }
}
