//! A reach cone as a joint limit: the swing moves the bone's twist axis to a direction that
//! the cone must hold, and the twist about the bone must lie within the limits interpolated at
//! that direction.

use glam::{Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::combined::{Candidate, Turn};
use super::{ReachCone, TwistRange};
use crate::contract::{BOUNDARY_TOLERANCE, LimitContext, Limited, RotationLimit, near_half_swing};
use crate::direction_twist;
use crate::space::SpaceKind;
use crate::twist::TwistMeasure;
use crate::validation::{self, InvalidField};

/// A joint limit made of a reach cone for the direction of the twist axis and swing-dependent
/// twist limits.
///
/// A relative rotation `q = swing · twist(θ)` (split about `twist_axis`, the swing the shortest
/// arc) points the axis at `d = q·axis`. It is allowed when `d` lies in the cone and some turn
/// `θ + 2πk` lies within the twist limits interpolated at `d`.
///
/// Metric: `√(α² + δ²)`, with `α` the angle between the directions and `δ` the twist
/// difference (best turn). The projection takes the nearest direction `d′` of the cone and the
/// allowed twist nearest to the input's (over every turn) at `d′`: the exact nearest when the
/// twist limits are the same across the cone or the twist fits at `d′`. Otherwise a direction
/// with wider limits can be nearer in the sum, and a search in the combined metric over the
/// cone's slices finds it (module `combined`, `docs/limits.md`).
///
/// `measured` is `(direction, twist)`: the output's direction (which a stream's boundary search
/// continues from) and the turn of the input twist used. As in every swing-twist split, the twist
/// is degenerate where the swing reaches 180° (the bone pointing against its reference
/// direction): there the split takes the identity twist, so the rotation is measured
/// consistently, and a stream crossing it switches once; at exactly 180° every twist splits the
/// rotation, and the stateless nearest takes the one allowed nearest the split's own at the
/// nearest allowed direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachConeLimit {
    /// The bone's axis in the joint's frame at the reference rotation (unit length).
    pub twist_axis: Vec3,
    /// The directions the axis may point in, and the twist allowed at each.
    pub cone: ReachCone,
}

impl ReachConeLimit {
    /// The twist angle of `relative` about the axis (in its cover) and the axis direction
    /// `q·axis`.
    #[inline(always)]
    pub(crate) fn measure(&self, relative: Quat) -> (f32, Vec3) {
        direction_twist::measure(self.twist_axis, relative)
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// ([`crate::rotation_cells`]; `to_relative` unit).
    ///
    /// A cell's rotations lie within its radius `θ` of its centre's, so they point the axis
    /// within `θ` of the centre's direction `d` (turning by `θ` moves any vector by at most
    /// `θ`). The cell is allowed when every direction that near lies inside one slice of the
    /// cone (`ReachCone::limits_around`) and the cell's twists lie, on one turn, within the
    /// limits there narrowed by how far they can change over that distance; it is refused when
    /// every such direction lies beyond the slice's edge. Cells across a slice plane are left
    /// to the exact test (finer cells settle most of them).
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        use crate::rotation_cells::{
            InsideCells, MARGIN, Standing, TwistBounds, holds_on_one_turn,
        };
        let twists = TwistBounds::new(to_relative, self.twist_axis);
        InsideCells::prove(|cell| {
            let (_, direction) = self.measure(to_relative * cell.centre);
            let slice = self.cone.slice_of(direction);
            let stray = cell.radius + MARGIN;
            if let Some((range, change)) = self.cone.limits_around(direction, slice, stray) {
                let held = [range.min + change, range.max - change];
                if holds_on_one_turn(held, twists.of(cell)) {
                    return Standing::Allowed;
                }
            } else if self.cone.surely_outside_slice(direction, slice, stray) {
                // Only an efficiency: no finer cell of it could be proven either.
                return Standing::Refused;
            }
            Standing::Open
        })
    }

    /// The stateless nearest once the twist angle, the axis direction `q·axis` and its slice
    /// are known.
    #[inline(always)]
    pub(crate) fn nearest_measured(
        &self,
        relative: Quat,
        twist: f32,
        direction: Vec3,
        slice: usize,
    ) -> Limited {
        self.answer(relative, (twist, direction), slice, true)
    }

    /// [`ReachConeLimit::nearest_measured`]; without `exact`, the nearest direction with its
    /// twist clamped there, which decides `inside` alike at a fraction of the cost (the search
    /// in the combined metric only moves rotations that it leaves outside).
    #[inline(always)]
    fn answer(
        &self,
        relative: Quat,
        (twist, direction): (f32, Vec3),
        slice: usize,
        exact: bool,
    ) -> Limited {
        let search = |known: Candidate| {
            if !exact {
                return None;
            }
            let turn = Turn::Nearest(twist.into());
            let found = self.cone.nearest_combined(direction, turn, known);
            (found.cost < known.cost).then_some((found, turn))
        };
        if self.cone.inside_slice(direction, slice) {
            let range = self.cone.twist_limits_in_slice(direction, slice);
            let measure = range.measure(twist);
            if measure.distance <= BOUNDARY_TOLERANCE {
                return Limited::unchanged(relative, direction.extend(measure.turned));
            }
            if self.allowed_along_half_swing(relative, twist, direction) {
                return Limited::unchanged(relative, direction.extend(measure.turned));
            }
            let known = self.known(direction, direction, slice, measure);
            if let Some(nearer) = self.nearer_in_sum(relative, (twist, direction), known, search) {
                return nearer;
            }
            return self.moved(
                relative,
                twist,
                direction,
                direction,
                measure.turned,
                measure.allowed,
            );
        }
        if self.allowed_along_half_swing(relative, twist, direction) {
            return Limited::unchanged(relative, direction.extend(twist));
        }
        let (nearest, edge) = self.cone.nearest_on_boundary(direction);
        // A point of edge `i` lies in slice `i` (at a corner, in both slices that share it,
        // where the limits agree).
        self.onto_edge(
            relative,
            (twist, direction),
            (nearest, edge),
            |range| range.measure(twist),
            search,
            false,
        )
    }

    /// At a swing of exactly 180°, where every twist splits the rotation (the bone points along
    /// `direction` whatever the split), the twist nearest `twist` that the cone allows at the
    /// allowed direction nearest `direction`: the nearest rotation in the sum `α² + δ²` is that
    /// direction with `δ = 0`. Out of line: a degenerate input.
    #[cold]
    #[inline(never)]
    fn twist_for_half_swing(&self, direction: Vec3, twist: f32) -> f32 {
        let slice = self.cone.slice_of(direction);
        let (at, slice) = if self.cone.inside_slice(direction, slice) {
            (direction, slice)
        } else {
            self.cone.nearest_on_boundary(direction)
        };
        self.cone
            .twist_limits_in_slice(at, slice)
            .measure(twist)
            .allowed
    }

    /// Whether `relative`, swinging near 180°, lies within the tolerance (as a rotation) of an
    /// allowed rotation along the family that splits it with another twist
    /// ([`crate::region::half_swing`]): the bone's direction turned by `t/2` about the twist axis
    /// and `t` added to the twist. At a swing of exactly 180° every twist splits the rotation, so
    /// it is allowed where the cone holds the bone's direction with any twist. A member outside
    /// the cone is scored at its nearest boundary point (a bound from above: enough to accept).
    fn allowed_along_half_swing(&self, relative: Quat, twist: f32, direction: Vec3) -> bool {
        if !near_half_swing(relative, self.twist_axis) {
            return false;
        }
        let member = |t: f32| {
            let turned = Quat::from_axis_angle(self.twist_axis, 0.5 * t) * direction;
            let slice = self.cone.slice_of(turned);
            let (at, slice, swing) = if self.cone.inside_slice(turned, slice) {
                (turned, slice, 0.0)
            } else {
                let (at, edge) = self.cone.nearest_on_boundary(turned);
                (at, edge, direction_twist::angle(turned, at))
            };
            let range = self.cone.twist_limits_in_slice(at, slice);
            f32::hypot(swing, range.measure(twist + t).distance)
        };
        crate::region::half_swing::family_within_tolerance(relative, self.twist_axis, member)
    }

    /// The answer already at hand, as a candidate of the search in the combined metric: the
    /// input direction `direction` moved to `to` (slice `slice`), its twist measured there.
    fn known(&self, direction: Vec3, to: Vec3, slice: usize, measure: TwistMeasure) -> Candidate {
        let swing = direction.as_dvec3().angle_between(to.as_dvec3());
        let twist = f64::from(measure.turned) - f64::from(measure.allowed);
        Candidate {
            slice,
            direction: to.as_dvec3(),
            t: measure.allowed.into(),
            cost: swing * swing + twist * twist,
        }
    }

    /// Where the twist misses the limits at the answer at hand (`known`) and the limits vary
    /// across the cone, the answer `search` finds from it in the combined metric (a direction
    /// with wider limits), with its twist aimed inside the limits there by their rounding
    /// margin; `None` (from `search` too) keeps the answer at hand.
    #[inline(never)]
    fn nearer_in_sum(
        &self,
        relative: Quat,
        (twist, direction): (f32, Vec3),
        known: Candidate,
        search: impl FnOnce(Candidate) -> Option<(Candidate, Turn)>,
    ) -> Option<Limited> {
        if self.cone.twist_is_uniform() {
            return None;
        }
        let (found, turn) = search(known)?;
        let to = found.direction.as_vec3().normalize();
        let turned = turn.turned(found.t) as f32;
        let (range, margin) = self.cone.twist_limits_on_edge(to, found.slice);
        let margin = margin();
        let (low, high) = (range.min + margin, range.max - margin);
        let t = found.t as f32;
        let aimed = if low <= high {
            t.clamp(low, high)
        } else {
            0.5 * (range.min + range.max)
        };
        // An answer within the tolerance would call the input allowed where the inside test
        // (the answer at hand) does not: the answer at hand stands, a hair farther.
        Some(self.moved(relative, twist, direction, to, turned, aimed)).filter(|l| !l.inside)
    }

    /// The answer moving the input (`twist`, `direction`) to the boundary point `to` of edge
    /// `edge`, with the twist measured against the limits there by `turn`. Within the tolerance
    /// the input stays; otherwise the twist aims inside the limits by their rounding margin
    /// ([`super::ReachCone::twist_limits_on_edge`]), so the answer stays allowed when measured
    /// again. A clamped twist, or any twist when `follow_basin`, first asks `search` for an
    /// answer nearer in the combined metric.
    #[inline(always)]
    fn onto_edge(
        &self,
        relative: Quat,
        (twist, direction): (f32, Vec3),
        (to, edge): (Vec3, usize),
        measure_at: impl Fn(&TwistRange) -> TwistMeasure,
        search: impl FnOnce(Candidate) -> Option<(Candidate, Turn)>,
        follow_basin: bool,
    ) -> Limited {
        let (range, margin) = self.cone.twist_limits_on_edge(to, edge);
        let measure = measure_at(&range);
        // The chord stands for the angle: they agree to 1e-16 at the tolerance's size.
        let swing_squared = (direction - to).length_squared();
        if swing_squared + measure.distance * measure.distance
            <= BOUNDARY_TOLERANCE * BOUNDARY_TOLERANCE
        {
            return Limited::unchanged(relative, direction.extend(measure.turned));
        }
        let aimed = if measure.distance == 0.0 && !follow_basin {
            // The twist is kept: only a clamped twist sits on the limits' rounding edge.
            measure.allowed
        } else {
            let known = self.known(direction, to, edge, measure);
            if let Some(nearer) = self.nearer_in_sum(relative, (twist, direction), known, search) {
                return nearer;
            }
            if measure.distance == 0.0 {
                measure.allowed
            } else {
                let margin = margin();
                let (low, high) = (range.min + margin, range.max - margin);
                if low <= high {
                    measure.allowed.clamp(low, high)
                } else {
                    0.5 * (range.min + range.max)
                }
            }
        };
        self.moved(relative, twist, direction, to, measure.turned, aimed)
    }

    /// The result moving the input to the allowed `(to, allowed_twist)`.
    #[inline(always)]
    fn moved(
        &self,
        relative: Quat,
        twist: f32,
        direction: Vec3,
        to: Vec3,
        turned: f32,
        allowed_twist: f32,
    ) -> Limited {
        direction_twist::moved(
            self.twist_axis,
            relative,
            (twist, direction),
            to,
            turned,
            allowed_twist,
        )
    }

    /// Every stored number is finite and the twist axis is unit length (the cone was validated
    /// when it was built).
    pub fn is_finite(&self) -> bool {
        self.twist_axis.is_finite() && (self.twist_axis.length() - 1.0).abs() < 1e-4
    }
}

impl RotationLimit for ReachConeLimit {
    fn bone_axis(&self) -> Option<Vec3> {
        Some(self.twist_axis)
    }

    /// Every direction inside the cone has a twist range, so about the cone's own axis its
    /// directions answer.
    fn reaches_direction(&self, axis: Vec3, direction: Vec3) -> Option<bool> {
        crate::direction_twist::same_axis(axis, self.twist_axis)
            .then(|| self.cone.contains(direction))
    }

    /// About the cone's own axis, no twist where the direction lies clearly outside the cone
    /// (farther from it than twice the tolerance: the inside test allows a rotation within the
    /// tolerance of the cone and its twist limits) and the swing is well short of 180° (nearer,
    /// a rotation also splits with its direction turned about the axis, which the inside test
    /// tries). Elsewhere `None`: the inside test decides twist by twist. So measurements and
    /// pictures spend no search on the directions no twist reaches, most of the sphere.
    fn twists_along(&self, axis: Vec3, direction: Vec3) -> Option<Vec<TwistRange>> {
        /// `cos 160°`: swings beyond are left to the inside test (it settles from 168°).
        const WELL_SHORT_OF_HALF_TURN: f32 = -0.94;
        if !crate::direction_twist::same_axis(axis, self.twist_axis)
            || direction.dot(self.twist_axis) < WELL_SHORT_OF_HALF_TURN
        {
            return None;
        }
        let apart = direction_twist::angle(direction, self.cone.project(direction));
        (apart > 2.0 * BOUNDARY_TOLERANCE).then(Vec::new)
    }

    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        let (mut twist, direction) = self.measure(relative);
        if crate::contract::half_swing(relative, self.twist_axis) {
            twist = self.twist_for_half_swing(direction, twist);
        }
        self.nearest_measured(relative, twist, direction, self.cone.slice_of(direction))
    }

    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        let (mut twist, direction) = self.measure(relative);
        if crate::contract::half_swing(relative, self.twist_axis) {
            // A swing of exactly 180°: every twist is a valid split; keep the stream's.
            twist = previous.w;
        }
        let slice = self.cone.slice_of(direction);
        let inside_direction = self.cone.inside_slice(direction, slice);
        if !(inside_direction
            && self
                .cone
                .twist_limits_in_slice(direction, slice)
                .measure_from(twist, previous.w)
                .distance
                <= BOUNDARY_TOLERANCE)
            && self.allowed_along_half_swing(relative, twist, direction)
        {
            let turned = twist
                + std::f32::consts::TAU * ((previous.w - twist) / std::f32::consts::TAU).round();
            return Limited::unchanged(relative, direction.extend(turned));
        }
        let (to, slice) = if inside_direction {
            (direction, slice)
        } else {
            let start = self.cone.slice_of(previous.truncate());
            self.cone.nearest_on_boundary_from(direction, start)
        };
        // Where the twist misses the limits, the search in the combined metric follows the
        // minimum of the previous answer's basin, on the stream's turn.
        let from_previous = |_: Candidate| {
            let turned = twist
                + std::f32::consts::TAU * ((previous.w - twist) / std::f32::consts::TAU).round();
            let turn = Turn::Fixed(turned.into());
            let at = self.cone.project(previous.truncate().try_normalize()?);
            let at_slice = self.cone.slice_of(at);
            let t = self
                .cone
                .twist_limits_in_slice(at, at_slice)
                .clamp(previous.w);
            let found = self
                .cone
                .nearest_combined_from(direction, turn, at_slice, t.into())?;
            Some((found, turn))
        };
        if to != direction {
            // A stream whose previous answer had its twist clamped sits in a basin of the
            // combined metric: it stays there (the limiter's margin decides when to leave), even
            // where the twist would fit at the nearest boundary point.
            let clamped_before = previous.truncate().try_normalize().is_some_and(|at| {
                self.cone
                    .twist_limits(at)
                    .measure_from(previous.w, previous.w)
                    .distance
                    > BOUNDARY_TOLERANCE
            });
            return self.onto_edge(
                relative,
                (twist, direction),
                (to, slice),
                |range| range.measure_from(twist, previous.w),
                from_previous,
                clamped_before,
            );
        }
        let range = self.cone.twist_limits_in_slice(to, slice);
        let measure = range.measure_from(twist, previous.w);
        if measure.distance <= BOUNDARY_TOLERANCE {
            return Limited::unchanged(relative, direction.extend(measure.turned));
        }
        let known = self.known(direction, to, slice, measure);
        if let Some(nearer) = self.nearer_in_sum(relative, (twist, direction), known, from_previous)
        {
            return nearer;
        }
        self.moved(
            relative,
            twist,
            direction,
            to,
            measure.turned,
            measure.allowed,
        )
    }

    /// Allowed exactly when [`RotationLimit::nearest`] says so, without its search in the
    /// combined metric (which only moves rotations the inside test leaves outside).
    #[inline]
    fn contains(&self, relative: Quat, _: &LimitContext) -> bool {
        let (twist, direction) = self.measure(relative);
        let slice = self.cone.slice_of(direction);
        self.answer(relative, (twist, direction), slice, false)
            .inside
    }

    fn is_degenerate(&self, relative: Quat) -> bool {
        crate::contract::half_swing(relative, self.twist_axis)
    }

    /// Outside when the direction lies in the cone but the twist misses the limits there by more
    /// than twice the tolerance (the nearest allows it within the tolerance), away from a 180°
    /// swing, or when every
    /// direction within a few tolerances of it lies in its slice, below the slice's edge: no
    /// boundary point is that near, so the nearest moves it.
    #[inline]
    fn surely_outside(&self, relative: Quat, _: &LimitContext) -> bool {
        let (twist, direction) = self.measure(relative);
        let slice = self.cone.slice_of(direction);
        if self.cone.inside_slice(direction, slice) {
            // Near a 180° swing the twist coordinate is ill-conditioned and answers settle onto
            // the input by their distance as rotations: left to the search, to be safe.
            if crate::contract::near_half_swing(relative, self.twist_axis) {
                return false;
            }
            let range = self.cone.twist_limits_in_slice(direction, slice);
            // Twice the tolerance: the answer measures the distance again in its own rounding.
            return range.measure(twist).distance > 2.0 * BOUNDARY_TOLERANCE;
        }
        self.cone
            .surely_outside_slice(direction, slice, 4.0 * BOUNDARY_TOLERANCE)
    }

    fn validate(&self) -> Result<(), InvalidField> {
        // The cone itself was checked when it was built.
        validation::unit_vector("twist_axis", self.twist_axis)
    }

    fn label(&self) -> String {
        format!("reach cone ({} points) + twist", self.cone.boundary().len())
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::SwingTwist
    }

    fn examples() -> Vec<ReachConeLimit> {
        let axis = Vec3::Y;
        // An elongated, concave cone leaning off the axis, twist limits varying around it.
        let boundary: Vec<Vec3> = (0..12)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 12.0;
                let radius = if i % 3 == 0 {
                    0.45
                } else {
                    0.9 + 0.3 * a.cos()
                };
                Vec3::new(radius * a.cos(), 1.0, -0.7 * radius * a.sin()).normalize()
            })
            .collect();
        let twists: Vec<TwistRange> = (0..12)
            .map(|i| {
                let t = i as f32 * 0.5;
                TwistRange {
                    min: -0.6 + 0.3 * t.sin(),
                    max: 0.5 + 0.4 * t.cos(),
                }
            })
            .collect();
        let visible = Vec3::new(0.1, 1.0, 0.05);
        let centre = TwistRange {
            min: -0.9,
            max: 0.8,
        };
        let leaning = ReachCone::with_twist(visible, &boundary, centre, &twists)
            .expect("a valid example cone");
        // A wide cone reaching past the equator, twist limits past +π.
        let wide: Vec<Vec3> = (0..8)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 8.0;
                Vec3::new(a.cos(), -0.3, -a.sin())
            })
            .collect();
        let wide = ReachCone::new(Vec3::Y, &wide, TwistRange { min: 2.4, max: 3.7 })
            .expect("a valid example cone");
        vec![
            ReachConeLimit {
                twist_axis: axis,
                cone: leaning,
            },
            ReachConeLimit {
                twist_axis: axis,
                cone: wide,
            },
        ]
    }
}
