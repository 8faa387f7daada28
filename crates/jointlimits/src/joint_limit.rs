//! One joint's limit: a reference rotation, a limit region of any registered kind, and optional
//! softening. Limits a local rotation through the kind's [`RotationLimit`] contract.

use glam::{Quat, Vec4};
use serde::{Deserialize, Serialize};

pub use crate::contract::Limited;
use crate::contract::{LimitContext, RotationLimit};
pub use crate::region::{LimitRegion, swing_basis, swing_plane_point};
use crate::soften::Softening;
use crate::space::SpaceKind;
pub use crate::twist::TwistRange;
use crate::validation::{self, InvalidField};

/// How a rotation stands against a joint's limit ([`JointLimit::assess`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assessment {
    /// The distance to the nearest allowed rotation, radians (0 when allowed).
    pub violation: f32,
    /// The stress at the nearest allowed rotation (0 relaxed, 1 at the limit), for kinds that
    /// store one.
    pub stress: Option<f32>,
    /// Whether the violation exceeds the break margin there (never, for kinds without one).
    pub beyond_break: bool,
}

/// How many times a softened rotation beyond the softening's radius (in the kind's metric) is
/// pulled back before the hard answer is kept.
const SOFTENING_SHORTENINGS: usize = 4;

/// How far inside the softening's radius a softened rotation is kept, radians: room for the f32
/// rounding of the rotation and of a file's text, so that what is written still measures within
/// the radius when read back (an outside check measured up to 5e-7 rad beyond it without).
const SOFTENING_ROOM: f32 = 2e-6;

/// A joint's rotation limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLimit {
    /// The joint's name in the skeleton.
    pub joint: String,
    /// The rotation limits are measured from: `q_rel = reference⁻¹ · q`.
    pub reference: Quat,
    /// The allowed relative rotations.
    pub region: LimitRegion,
    /// Softening of projections, or `None` for hard limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softening: Option<Softening>,
}

impl JointLimit {
    /// The limit space this limit lives in.
    pub fn space(&self) -> SpaceKind {
        self.region.space()
    }

    /// `reference⁻¹ · local` (in the cover of the input; limits treat both covers alike). A
    /// `local` far from unit length (as far as overflowing its squares) is normalised first, so
    /// every kind sees a unit rotation; one within 1e-3 of unit length is used as it is.
    #[inline]
    pub fn relative(&self, local: Quat) -> Quat {
        crate::rotation::product(
            self.reference.conjugate(),
            crate::rotation::near_unit(local),
        )
    }

    /// `reference · relative`: back to a local rotation.
    #[inline]
    pub fn local(&self, relative: Quat) -> Quat {
        crate::rotation::product(self.reference, relative)
    }

    /// The nearest allowed relative rotation to `relative` (either cover), softened when the
    /// limit has softening: the stateless contract ([`RotationLimit::nearest`]).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        self.limit_relative_in(relative, &LimitContext::NONE)
    }

    /// [`JointLimit::limit_relative`] knowing the parent's state (`context`), which limits
    /// coupled to their parent use ([`crate::coupled`]); other kinds ignore it.
    #[inline]
    pub fn limit_relative_in(&self, relative: Quat, context: &LimitContext) -> Limited {
        self.softened(relative, self.region.nearest(relative, context), context)
    }

    /// [`JointLimit::limit_relative`] continuing a stream from the `previous` frame's
    /// [`Limited::measured`] ([`RotationLimit::nearest_continuing`]).
    #[inline]
    pub fn limit_relative_continuing(&self, relative: Quat, previous: Vec4) -> Limited {
        self.limit_relative_continuing_in(relative, previous, &LimitContext::NONE)
    }

    /// [`JointLimit::limit_relative_continuing`] knowing the parent's state.
    #[inline]
    pub fn limit_relative_continuing_in(
        &self,
        relative: Quat,
        previous: Vec4,
        context: &LimitContext,
    ) -> Limited {
        let limited = self.region.nearest_continuing(relative, previous, context);
        self.softened(relative, limited, context)
    }

    /// For kinds with a path-aware correction (tables: [`crate::table::TableLimit::first_crossing`]),
    /// where a motion from the `previous` frame's answer towards `relative` first meets the
    /// limit, softened when the limit has softening; `None` for other kinds.
    pub fn limit_relative_path_aware(&self, relative: Quat, previous: Vec4) -> Option<Limited> {
        match &self.region {
            LimitRegion::Table(table) => Some(self.softened(
                relative,
                table.first_crossing(relative, previous),
                &LimitContext::NONE,
            )),
            _ => None,
        }
    }

    /// Whether [`JointLimit::limit_relative_path_aware`] has an answer for this limit's kind.
    pub fn corrects_path_aware(&self) -> bool {
        matches!(self.region, LimitRegion::Table(_))
    }

    /// `limited` with this limit's softening applied along the geodesic back to `relative`,
    /// kept within the softening's radius (less [`SOFTENING_ROOM`]) of the allowed rotations in
    /// the kind's own metric.
    ///
    /// The allowance is an angle along the geodesic, and a kind's metric can stretch it (a
    /// twist near a half swing, Euler angles near gimbal lock, scaled limit-space axes): so the
    /// softened rotation's violation is measured, and the step back is shortened in proportion
    /// while it exceeds the radius (the hard answer, at no distance, always qualifies).
    #[inline]
    fn softened(&self, relative: Quat, mut limited: Limited, context: &LimitContext) -> Limited {
        let Some(softening) = self.softening else {
            return limited;
        };
        if limited.inside {
            return limited;
        }
        let hard = limited.relative;
        let reach = (softening.radius - SOFTENING_ROOM).max(0.0);
        // A softening that keeps the whole excess of an input within its reach keeps the input,
        // bit for bit (a slerp all the way back would round it, and rewrite it in a file). A
        // stream's answer may measure the excess in a farther cover or turn than the nearest's;
        // the loop below would then take the input all the same, so the stateless measure
        // decides.
        if softening.keeps_everything(relative, hard)
            && (limited.violation <= reach || self.region.violation(relative, context) <= reach)
        {
            limited.relative = relative;
            return limited;
        }
        let mut softened = softening.apply_rotation(relative, hard);
        for _ in 0..SOFTENING_SHORTENINGS {
            let outside = self.region.violation(softened, context);
            if outside <= reach {
                limited.relative = softened;
                return limited;
            }
            // Shorten the step back by the share it overshoots, with a little room.
            let share = 0.9 * reach / outside;
            softened = hard.slerp(softened, share).normalize();
        }
        limited
    }

    /// Builds now what this limit's projections would build on first use (a table's searches,
    /// [`crate::table::TableLimit::build_searches`]), and what speeds up the projections of
    /// limits asked many times (a full-space polytope's grid of cubes naming the feature
    /// nearest their points, [`crate::shape::polytope::Polytope::build_searches`], tens of
    /// milliseconds). A crowd and a prepared limit build it before their first frame, so that
    /// no frame pauses for it and no parallel job waits on parallel work that could run another
    /// job needing it on its own thread. What is built is shared by every clone of the limit,
    /// so a [`crate::Limiter`] over clones of a crowd's or prepared limit's limits answers as
    /// they do, bit for bit; over limits never built, within the rounding of the projection
    /// (about 1e-7 rad, where a point lies on the border of two features).
    ///
    /// A swing-twist polytope gets no grid: its points all lie on the swing plane, which its
    /// mirror-image faces meet along edges, so every cube they reach is cut there and only
    /// slows the walk with candidate tests.
    pub fn build_searches(&self) {
        match &self.region {
            LimitRegion::Table(table) => table.build_searches(),
            LimitRegion::Full(full) => full.shape().build_searches(),
            _ => {}
        }
    }

    /// The nearest allowed local rotation to `local` (stateless: no history; see
    /// [`crate::limiter::Limiter`] for streams of frames). An allowed `local` comes back bit for
    /// bit.
    #[inline]
    pub fn limit(&self, local: Quat) -> Quat {
        let relative = self.relative(local);
        let limited = self.limit_relative(relative);
        if limited.kept(relative) {
            local
        } else {
            self.local(limited.relative)
        }
    }

    /// [`JointLimit::limit`] knowing the parent's state (`context`), for limits coupled to it.
    #[inline]
    pub fn limit_in(&self, local: Quat, context: &LimitContext) -> Quat {
        let relative = self.relative(local);
        let limited = self.limit_relative_in(relative, context);
        if limited.kept(relative) {
            local
        } else {
            self.local(limited.relative)
        }
    }

    /// Whether the local rotation `local` is allowed.
    #[inline]
    pub fn contains(&self, local: Quat) -> bool {
        self.contains_in(local, &LimitContext::NONE)
    }

    /// [`JointLimit::contains`] knowing the parent's state (`context`).
    #[inline]
    pub fn contains_in(&self, local: Quat, context: &LimitContext) -> bool {
        self.region.contains(self.relative(local), context)
    }

    /// How `local` stands against the limit: its violation, the stress there (for kinds that
    /// store one) and whether it is past the break margin.
    pub fn assess(&self, local: Quat) -> Assessment {
        self.assess_in(local, &LimitContext::NONE)
    }

    /// [`JointLimit::assess`] knowing the parent's state (`context`).
    pub fn assess_in(&self, local: Quat, context: &LimitContext) -> Assessment {
        let nearest = self.region.nearest(self.relative(local), context);
        // What `contains` accepts (within the boundary tolerance) counts as no violation.
        let violation = if nearest.inside {
            0.0
        } else {
            nearest.violation
        };
        let break_margin = self.region.break_margin(&nearest);
        Assessment {
            violation,
            stress: self.region.stress(&nearest),
            beyond_break: break_margin.is_some_and(|margin| violation > margin),
        }
    }

    /// How far `local` is from the nearest allowed rotation, radians (0 when allowed).
    #[inline]
    pub fn violation(&self, local: Quat) -> f32 {
        self.assess(local).violation
    }

    /// [`JointLimit::violation`] knowing the parent's state (`context`).
    #[inline]
    pub fn violation_in(&self, local: Quat, context: &LimitContext) -> f32 {
        self.assess_in(local, context).violation
    }

    /// Whether this limit reads the parent's state ([`LimitContext`]): only limits coupled to
    /// their parent do; for every other kind the `_in` methods answer as those without.
    pub fn reads_context(&self) -> bool {
        matches!(self.region, LimitRegion::Coupled(_))
    }

    /// Every stored number is finite and consistent: a unit reference, a valid region and
    /// softening; otherwise the first field that is not (`reference`, `softening`,
    /// `region.…`).
    pub fn validate(&self) -> Result<(), InvalidField> {
        validation::unit_quaternion("reference", self.reference)?;
        if let Some(softening) = self.softening {
            validation::require(softening.is_valid(), "softening", || {
                format!(
                    "falloff {} and radius {} must be finite and not negative",
                    softening.falloff, softening.radius
                )
            })?;
        }
        self.region.validate().map_err(|e| e.inside("region"))
    }

    /// Whether [`JointLimit::validate`] passes.
    pub fn is_finite(&self) -> bool {
        self.validate().is_ok()
    }
}
