//! A lookup table as a joint limit: which directions the bone may point in, and per direction
//! the twist range, stress and break margin, all read from a grid over the sphere.

use std::sync::Arc;

use glam::{Quat, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::bounds::{BoundPyramid, Found, TableGrids};
use super::channels::Channel;
use super::grid::VertexGrid;
use super::packed::{Lookup, PackedGrid};
use super::record::TableRecord;
use super::seeds::{SEEDS_PER_SIDE, Seeds};
use super::swing_set::{
    SwingSet, angle, fold_consistent, fold_consistent_twist, map_around, twist_within_span,
};
use crate::contract::{BOUNDARY_TOLERANCE, LimitContext, Limited, RotationLimit, near_half_swing};
use crate::derived::Derived;
use crate::direction_twist;
use crate::rotation_cells::InsideCells;
use crate::space::SpaceKind;
use crate::twist::{TwistMeasure, TwistRange};
use crate::validation::{self, InvalidField};

/// The values a table holds at one direction (see [`Channel`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableValues {
    /// Signed angular distance to the boundary of allowed directions (negative inside), radians.
    pub allowed: f32,
    /// The twist range allowed at the direction, radians.
    pub twist: TwistRange,
    /// Stress in [0, 1].
    pub stress: f32,
    /// How far past the boundary the joint breaks, radians.
    pub break_margin: f32,
}

/// Smallest and largest resolution (cells per side).
pub const RESOLUTIONS: std::ops::RangeInclusive<usize> = 4..=2048;

/// Gauss–Newton rounds of the combined swing-and-twist correction.
/// Beyond this stored distance (ten times the [`BOUNDARY_TOLERANCE`]) a direction is surely not
/// allowed: the angle to the boundary curve is more than the tolerance wherever the stored
/// distances change at most ten times as fast as the angle (they are angles, bilinearly
/// interpolated on a map that stretches less than that).
const CLEARLY_OUTSIDE: f32 = 10.0 * BOUNDARY_TOLERANCE;

const REFINE_ROUNDS: usize = 8;

/// A Gauss–Newton step expected to bring the answer less than this nearer (radians, in the
/// metric) ends the correction: far below the accuracy promised (1e-3 rad).
const GAIN_TOLERANCE: f32 = 1e-7;

/// How near (radians, in the metric) the bounded search brings a stateless answer to the least
/// distance: well within the accuracy promised (1e-3 rad), leaving room for the refinement.
const GLOBAL_TOLERANCE: f32 = 1e-3;

/// The cost `α² + δ²` of the allowed direction `at` with the twist measure `measure` there, for
/// the input direction `direction`.
#[inline]
fn cost_at(direction: Vec3, at: Vec3, measure: TwistMeasure) -> f32 {
    angle(direction, at).powi(2) + measure.distance.powi(2)
}

/// How far (radians) a stream's continuation must move in one frame to count as a jump that
/// [`RotationLimit::leads_to`] may replace by the nearest: 2°, beyond a slow input's step.
const CONTINUATION_JUMP: f32 = 2.0 * std::f32::consts::PI / 180.0;

/// The proof's tolerance as a share of the distance found, where that is less than
/// [`GLOBAL_TOLERANCE`]: a rotation just outside reads its violation to a few percent, so what
/// `check` reads of a softened output does not jump past the softening's radius when the
/// rotation moves by a rounding error.
const RELATIVE_TOLERANCE: f32 = 0.02;

/// The finest tolerance of the proof, radians.
const FINEST_TOLERANCE: f32 = 1e-6;

/// How much farther (radians) than the signed distance says the boundary is a boundary search
/// may land before the global search checks it: the distance is read to about a thousandth of a
/// radian on fitted and baked tables, and where it is not a distance at all (a painted table)
/// the check only costs time.
const LANDING_SLACK: f32 = 2e-3;

/// Near the boundary the signed distance is nearly exact, and a landing farther than it by
/// more than this share of it (plus [`FINEST_LANDING_SLACK`]) is checked as well: a rotation a
/// hair outside then reads its violation the same whichever stretch of boundary its cell's
/// hints lead to (one 2.9e-5 rad outside read 6.4e-4 after a wobble of 1e-6).
const LANDING_SHARE: f32 = 0.02;

/// The least slack of a landing near the boundary, radians.
const FINEST_LANDING_SLACK: f32 = 1e-5;

/// How many times a step that does not lower the sum is halved before the correction stops.
const STEP_HALVINGS: usize = 4;

/// A joint limit stored as tables over the sphere of bone directions.
///
/// A relative rotation `q = swing · twist(τ)` (split about `twist_axis`, the swing the shortest
/// arc) points the axis at `d = q·axis`. It is allowed when the interpolated signed distance at
/// `d` is at most zero and some turn `τ + 2πk` lies within the twist range interpolated at `d`.
/// Every value is interpolated bilinearly between the vertices of a grid over the equal-area
/// octahedral map centred on the axis ([`super::OctahedralMap`]), so the boundary is a smooth
/// curve and the twist limits vary continuously.
///
/// Metric: `√(α² + δ²)`, `α` the angle between directions and `δ` the twist difference (best
/// turn), the reach cone's. The projection takes the input's own direction when it is allowed,
/// or else the nearest boundary direction, and clamps the twist there; when the twist does not
/// fit, it scores precomputed seeds spread over the region ([`super::seeds`]: any island, either
/// turn) in the sum and moves the direction from the best start by Gauss–Newton steps on
/// `α² + δ²` (each step's direction kept allowed, sliding along the boundary where it is
/// reached), so a direction where the twist range is wider wins when that is nearer in the sum.
///
/// `measured` is `(direction, twist)`: the output's direction (which a stream's boundary search
/// continues from) and the turn of the input twist used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "TableRecord", into = "TableRecord")]
pub struct TableLimit {
    /// The bone's axis in the joint's frame at the reference rotation (unit length); the grid is
    /// centred on it.
    pub twist_axis: Vec3,
    swing: SwingSet,
    twist_min: VertexGrid,
    twist_max: VertexGrid,
    stress: VertexGrid,
    break_margin: VertexGrid,
    /// Where the global search in the combined metric starts from; spread on the first search
    /// (they follow the boundary chains, which are traced then too).
    seeds: Derived<Seeds>,
    /// Bounds over blocks of cells, which prove the global search's answer or find a nearer one;
    /// built on the first search that needs them (a quarter of a table's memory, and a third
    /// of the time to build one).
    bounds: Derived<Arc<BoundPyramid>>,
    /// The signed distance and twist limits side by side, for lookups reading all three; shared
    /// with lane tests ([`crate::batch::SurelyInside`]) without copying.
    packed: Arc<PackedGrid>,
    /// Cells of the rotation group proven allowed, once [`TableLimit::prepare`] has run.
    inside_cells: PreparedCells,
}

/// A table's proven inside cells, when prepared, and the twist axis they were proven about (a
/// public field, which a user may change). Derived from the table alone, so two tables are
/// equal whether or not either is prepared.
#[derive(Clone, Default)]
struct PreparedCells(Option<(Arc<InsideCells>, Vec3)>);

impl PartialEq for PreparedCells {
    fn eq(&self, _: &PreparedCells) -> bool {
        true
    }
}

impl std::fmt::Debug for PreparedCells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "prepared"
        } else {
            "not prepared"
        })
    }
}

/// Whether a rotation whose direction is `outside_by` beyond the allowed directions (signed
/// angular distance, negative inside) and whose twist is `twist_distance` from its range lies
/// within [`BOUNDARY_TOLERANCE`] of the table, in the combined metric `√(α² + δ²)`.
#[inline(always)]
fn within_tolerance(outside_by: f32, twist_distance: f32) -> bool {
    let swing = outside_by.max(0.0);
    swing * swing + twist_distance * twist_distance <= BOUNDARY_TOLERANCE * BOUNDARY_TOLERANCE
}

impl TableLimit {
    /// The table of `resolution` cells per side about the unit `twist_axis` whose vertex at
    /// direction `d` holds `values(d)`; every value is moved onto its channel's 16-bit lattice.
    pub fn from_fn(
        twist_axis: Vec3,
        resolution: usize,
        values: impl Fn(Vec3) -> TableValues + Sync,
    ) -> TableLimit {
        let map = map_around(twist_axis);
        let side = resolution + 1;
        let all: Vec<TableValues> = {
            use rayon::prelude::*;
            (0..side * side)
                .into_par_iter()
                .map(|index| {
                    let p = VertexGrid::vertex_position(resolution, index % side, index / side);
                    values(map.to_sphere(p))
                })
                .collect()
        };
        TableLimit::from_values(twist_axis, resolution, &all)
    }

    /// The table of `resolution` cells per side about the unit `twist_axis` with the vertex
    /// values `values` (row-major, `(resolution + 1)²` of them); every value is moved onto its
    /// channel's 16-bit lattice.
    pub fn from_values(twist_axis: Vec3, resolution: usize, values: &[TableValues]) -> TableLimit {
        let grid = |f: &dyn Fn(&TableValues) -> f32| VertexGrid {
            resolution,
            values: values.iter().map(f).collect(),
        };
        TableLimit::from_grids(
            twist_axis,
            [
                grid(&|v| v.allowed),
                grid(&|v| v.twist.min),
                grid(&|v| v.twist.max),
                grid(&|v| v.stress),
                grid(&|v| v.break_margin),
            ],
        )
    }

    /// The table with the vertex grids of the five channels, in [`Channel::ALL`]'s order (same
    /// resolution). Twist ranges reaching past the channels' span are moved into it by whole turns
    /// (`twist_within_span`), values are made to agree across the square's folds (twist ranges
    /// modulo whole turns, see `fold_consistent_twist`) and moved onto the channels' lattices; a
    /// twist minimum above its maximum is left for [`RotationLimit::validate`] to report.
    pub fn from_grids(twist_axis: Vec3, mut grids: [VertexGrid; 5]) -> TableLimit {
        let [_, twist_min, twist_max, ..] = &mut grids;
        twist_within_span(twist_min, twist_max);
        for (grid, channel) in grids.iter_mut().zip(Channel::ALL) {
            if !matches!(channel, Channel::TwistMin | Channel::TwistMax) {
                fold_consistent(grid);
            }
            for value in &mut grid.values {
                *value = channel.quantize(*value);
            }
        }
        let [allowed, mut twist_min, mut twist_max, stress, break_margin] = grids;
        fold_consistent_twist(&mut twist_min, &mut twist_max);
        let mut table = TableLimit {
            twist_axis,
            swing: SwingSet::new(map_around(twist_axis), allowed),
            twist_min,
            twist_max,
            stress,
            break_margin,
            seeds: Derived::new(),
            bounds: Derived::new(),
            packed: Arc::default(),
            inside_cells: PreparedCells::default(),
        };
        table.packed = Arc::new(PackedGrid::new(
            &table.swing.distance,
            &table.twist_min,
            &table.twist_max,
        ));
        table
    }

    /// Proves which cells of the rotation group the table allows
    /// ([`crate::rotation_cells`], [`super::inside_cells`]), so that [`RotationLimit::contains`] answers most allowed
    /// rotations from one or two loads instead of measuring and interpolating. Answers do not
    /// change.
    /// Worth it for a table asked about many times (a running character, a crowd, `check` on
    /// long clips); it takes a fraction of a second at 128² and about a hundred kilobytes. It
    /// also builds the bound pyramid of the stateless correction, which the first correction
    /// would otherwise build, so no later call pays for it.
    pub fn prepare(&mut self) {
        self.seeds();
        self.bounds();
        if self.inside_cells.0.is_none() {
            let cells = self.prove_cells(Quat::IDENTITY);
            self.inside_cells = PreparedCells(Some((Arc::new(cells), self.twist_axis)));
        }
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the table allows
    /// ([`super::inside_cells`]; `to_relative` unit).
    pub fn prove_cells(&self, to_relative: Quat) -> InsideCells {
        super::inside_cells::prove(self.twist_axis, &self.swing.map, &self.packed, to_relative)
    }

    /// The proven inside cells, once [`TableLimit::prepare`] has run.
    #[inline]
    pub fn inside_cells(&self) -> Option<&InsideCells> {
        let (cells, axis) = self.inside_cells.0.as_ref()?;
        // Compared bit for bit, in one integer comparison per component and no branch on
        // NaN: an axis changed in any way (even to −0) leaves the cells unused.
        let bits = |v: Vec3| v.to_array().map(f32::to_bits);
        (bits(*axis) == bits(self.twist_axis)).then_some(cells.as_ref())
    }

    /// Allowed directions spread over the region with the twist ranges there: every
    /// `resolution / SEEDS_PER_SIDE`th vertex that is allowed, and boundary points at about the
    /// same spacing, stepped just inside.
    fn spread_seeds(&self) -> Seeds {
        let n = self.resolution();
        let stride = (n / SEEDS_PER_SIDE).max(1);
        let side = n + 1;
        let map = &self.swing.map;
        let vertices = (0..side).step_by(stride).flat_map(move |row| {
            (0..side)
                .step_by(stride)
                .map(move |column| VertexGrid::vertex_position(n, column, row))
        });
        let vertices = vertices.map(|p| (p, None));
        // Boundary points with the arc starting there.
        let chains = self.swing.chains();
        let boundary = (0..chains.arc_count())
            .step_by(stride * super::boundary::SUBDIVISIONS)
            .map(|arc| {
                let p = map.to_square(self.swing.inside_near(map.to_square(chains.arc_start(arc))));
                (p, Some(arc as u32))
            });
        let seeds = vertices
            .chain(boundary)
            .map(|(p, arc)| (map.to_sphere(p), p, arc))
            .filter(|&(d, _, _)| self.swing.contains(d))
            .map(|(d, p, arc)| (d, self.twist_range_at(p), arc));
        Seeds::new(seeds)
    }

    /// The table resampled to `resolution` cells per side: every vertex takes the values this
    /// table interpolates at its direction. At half the resolution (a coarser level of detail,
    /// like a mip level) every new vertex is one of this table's, so values are kept, not
    /// blurred: the signed distance stays a distance, and features narrower than the new cells
    /// vanish.
    pub fn resampled(&self, resolution: usize) -> TableLimit {
        // Read at each new vertex's own square point, not through its direction: a vertex on
        // a fold then reads its own side, whose twist ranges are on its neighbours' turn.
        let side = resolution + 1;
        let values: Vec<TableValues> = (0..side * side)
            .map(|v| {
                self.values_at_square(VertexGrid::vertex_position(resolution, v % side, v / side))
            })
            .collect();
        TableLimit::from_values(self.twist_axis, resolution, &values)
    }

    /// The coarser levels of detail of this table: half the resolution each, down to
    /// `coarsest` cells per side (at least [`RESOLUTIONS`]' smallest).
    pub fn levels_of_detail(&self, coarsest: usize) -> Vec<TableLimit> {
        let coarsest = coarsest.max(*RESOLUTIONS.start());
        std::iter::successors(Some(self.resolution() / 2), |r| Some(r / 2))
            .take_while(|&r| r >= coarsest)
            .map(|r| self.resampled(r))
            .collect()
    }

    /// The bytes the table holds in memory: five grids of `(N + 1)²` values, the boundary
    /// chains, the per-cell hints and the bound pyramid of the stateless search (built here if
    /// no search has built it yet).
    pub fn memory_bytes(&self) -> usize {
        self.grids()
            .iter()
            .map(|g| std::mem::size_of_val(g.values.as_slice()))
            .sum::<usize>()
            + self.swing.chains().memory_bytes()
            + self.seeds().memory_bytes()
            + self.bounds().memory_bytes()
            + self.packed.memory_bytes()
    }

    /// Builds what the stateless correction searches with (the boundary chains, the seeds and
    /// the bound pyramid), which the first correction would otherwise build. They are built
    /// with parallel work, so a caller about to correct from parallel jobs builds them first: a
    /// job waiting for that work could otherwise run another job needing them, on its own
    /// thread, and wait for itself.
    pub fn build_searches(&self) {
        self.swing.chains();
        self.seeds();
        self.bounds();
    }

    /// The seeds of the global search, spread on first use.
    fn seeds(&self) -> &Seeds {
        self.seeds.get_or_build(|| self.spread_seeds())
    }

    /// The bound pyramid of the table's cells, built on first use.
    fn bounds(&self) -> &BoundPyramid {
        self.bounds
            .get_or_build(|| Arc::new(BoundPyramid::new(self.table_grids())))
    }

    /// The grids the bounded search reads.
    fn table_grids(&self) -> TableGrids<'_> {
        TableGrids {
            map: &self.swing.map,
            distance: &self.swing.distance,
            packed: &self.packed,
        }
    }

    /// The grids of the five channels, in [`Channel::ALL`]'s order.
    pub fn grids(&self) -> [&VertexGrid; 5] {
        [
            &self.swing.distance,
            &self.twist_min,
            &self.twist_max,
            &self.stress,
            &self.break_margin,
        ]
    }

    /// Cells per side.
    pub fn resolution(&self) -> usize {
        self.swing.distance.resolution
    }

    /// The allowed directions.
    pub fn swing(&self) -> &SwingSet {
        &self.swing
    }

    /// The twist angle of `relative` about the axis (in its cover) and the axis direction
    /// `q·axis`.
    #[inline(always)]
    fn measure(&self, relative: Quat) -> (f32, Vec3) {
        direction_twist::measure(self.twist_axis, relative)
    }

    /// [`RotationLimit::contains`] by measuring and interpolating, for rotations outside every
    /// proven cell (out of line, so the cell lookup before it stays small enough to inline).
    #[inline(never)]
    fn contains_measured(&self, relative: Quat, context: &LimitContext) -> bool {
        let (twist, direction) = self.measure(relative);
        let Lookup {
            distance: outside_by,
            twist: range,
        } = self.lookup(self.swing.map.to_square(direction));
        if outside_by <= BOUNDARY_TOLERANCE
            && within_tolerance(outside_by, range.measure(twist).distance)
        {
            return true;
        }
        // Near a 180° swing or on the boundary: what the projection says.
        near_half_swing(relative, self.twist_axis) && self.nearest(relative, context).inside
    }

    /// The twist range interpolated at square point `p`.
    #[inline(always)]
    fn twist_range_at(&self, p: Vec2) -> TwistRange {
        self.packed.sample(p).twist
    }

    /// The signed distance and twist limits side by side, as the lookups read them.
    pub(crate) fn packed(&self) -> &Arc<PackedGrid> {
        &self.packed
    }

    /// The signed distance and twist range interpolated at square point `p`.
    #[inline(always)]
    fn lookup(&self, p: Vec2) -> Lookup {
        self.packed.sample(p)
    }

    /// The values interpolated at the unit `direction`.
    pub fn values_at(&self, direction: Vec3) -> TableValues {
        self.values_at_square(self.swing.map.to_square(direction))
    }

    /// The values interpolated at square point `p`.
    fn values_at_square(&self, p: Vec2) -> TableValues {
        TableValues {
            allowed: self.swing.distance.sample(p),
            twist: self.twist_range_at(p),
            stress: self.stress.sample(p),
            break_margin: self.break_margin.sample(p),
        }
    }

    /// Path-aware correction (the seed's proposal): the bone moves from the allowed answer
    /// `previous` (a [`Limited::measured`] of this table: direction and twist) straight towards
    /// the direction of `relative`, and stops where it first leaves the allowed directions; the
    /// twist is then clamped to the range there, on the turn nearest the previous twist. The arc
    /// is tested every quarter of a cell (so a concave gap of the boundary is never jumped, the
    /// seed's midpoint tests done at the grid's own scale), the first crossing found by
    /// bisection. Unlike [`RotationLimit::nearest_continuing`] it is not the nearest allowed
    /// rotation: it is where a motion from the last valid pose meets the limit, which an
    /// animator may prefer for a bone sweeping into a wall. An allowed `relative` comes back
    /// unchanged. A previous direction kept within the boundary tolerance, a hair outside,
    /// starts the walk from the allowed direction next to it; with no previous direction at
    /// all, the nearest is returned.
    pub fn first_crossing(&self, relative: Quat, previous: Vec4) -> Limited {
        if !relative.is_finite() || !previous.is_finite() {
            return self.nearest(relative, &LimitContext::NONE);
        }
        let (twist, direction) = self.measure(relative);
        // An answer kept within the boundary tolerance may lie a hair outside: the walk starts
        // from the allowed direction next to it, not from the stateless nearest, which may lie
        // anywhere.
        let Some(from) = previous
            .truncate()
            .try_normalize()
            .map(|d| {
                if self.swing.contains(d) {
                    d
                } else {
                    self.swing.inside_near(self.swing.map.to_square(d))
                }
            })
            .filter(|&d| self.swing.contains(d))
        else {
            return self.nearest(relative, &LimitContext::NONE);
        };
        let p = self.swing.map.to_square(direction);
        let Lookup {
            distance: outside_by,
            twist: range,
        } = self.lookup(p);
        if outside_by <= BOUNDARY_TOLERANCE {
            let measure = range.measure_from(twist, previous.w);
            if within_tolerance(outside_by, measure.distance) {
                return Limited::unchanged(relative, direction.extend(measure.turned));
            }
            if outside_by <= 0.0 {
                // The direction is allowed: only the twist is outside.
                return self.moved(relative, twist, direction, direction, measure);
            }
        }
        let arc = angle(from, direction);
        let steps = ((arc / (0.25 * self.cell_angle())).ceil() as usize).max(1);
        // The great arc from `from` to `direction` (any one when they are opposite), in unit
        // directions.
        let turn_axis = from
            .cross(direction)
            .try_normalize()
            .unwrap_or_else(|| from.any_orthonormal_vector());
        let along = |t: f32| (Quat::from_axis_angle(turn_axis, t * arc) * from).normalize();
        let mut inside = 0.0f32;
        let mut outside = 1.0f32;
        for k in 1..=steps {
            let t = k as f32 / steps as f32;
            if !self.swing.contains(along(t)) {
                outside = t;
                break;
            }
            inside = t;
        }
        for _ in 0..24 {
            let middle = 0.5 * (inside + outside);
            if self.swing.contains(along(middle)) {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        let to = along(inside);
        let measure = self
            .twist_range_at(self.swing.map.to_square(to))
            .measure_from(twist, previous.w);
        self.moved(relative, twist, direction, to, measure)
    }

    /// The answer for the input `(direction, twist)`, starting the boundary search (when the
    /// direction is outside) from the hints at square point `seed`. `turn` measures the twist
    /// against a range (stateless: the nearest turn; in a stream: the turn nearest the previous
    /// frame's). `global` searches the whole table (the stateless answer: the best of the seeds
    /// in the combined metric, on any island and either turn); otherwise the search stays near
    /// `seed` (a stream's previous answer).
    #[inline]
    fn solve(
        &self,
        relative: Quat,
        twist: f32,
        direction: Vec3,
        seed: Option<Vec3>,
        turn: impl Fn(&TwistRange) -> TwistMeasure,
        global: bool,
    ) -> Limited {
        let p = self.swing.map.to_square(direction);
        let Lookup {
            distance: outside_by,
            twist: range,
        } = self.lookup(p);
        if outside_by <= BOUNDARY_TOLERANCE {
            let measure = turn(&range);
            if within_tolerance(outside_by, measure.distance) {
                return Limited::unchanged(relative, direction.extend(measure.turned));
            }
        }
        if near_half_swing(relative, self.twist_axis)
            && self.allowed_along_half_swing(relative, twist, direction)
        {
            return Limited::unchanged(relative, direction.extend(turn(&range).turned));
        }
        let (start, arc) = if outside_by <= 0.0 {
            (direction, None)
        } else {
            let seed = seed.map_or(p, |s| self.swing.map.to_square(s));
            let (landed, arc) = self.swing.nearest_from_with_arc(direction, seed);
            if global {
                (self.swing.polished_landing(direction, landed), arc)
            } else {
                (landed, arc)
            }
        };
        let measure = turn(&self.twist_range_at(self.swing.map.to_square(start)));
        // The boundary search follows hints from the input's cell and can stop at a stretch of
        // boundary that is not the nearest (regions of degenerate data: thin, or in pieces);
        // a landing farther than the signed distance says the boundary is leaves the
        // stateless answer to the global search, which proves it.
        let slack = LANDING_SLACK.min(LANDING_SHARE * outside_by + FINEST_LANDING_SLACK);
        let landed_far = global && outside_by > 0.0 && angle(direction, start) > outside_by + slack;
        if measure.distance == 0.0 && !landed_far {
            // The twist fits at the nearest allowed direction: nothing nearer exists.
            return self.moved(relative, twist, direction, start, measure);
        }
        // The nearest direction with its twist clamped: a candidate of the stateless answer.
        let (start_measure, at_start) = (measure, cost_at(direction, start, measure));
        let (from, arc, turned) = if global {
            // The nearest direction with its twist clamped, unless a seed (another island, a
            // wider twist range, the other turn) is nearer in the sum already.
            match self.seeds().best(direction, twist) {
                Some(best) if best.cost < at_start => {
                    let there = self.twist_range_at(self.swing.map.to_square(best.direction));
                    (best.direction, best.arc, there.measure(twist).turned)
                }
                _ => (start, arc, measure.turned),
            }
        } else {
            // A stream starts where its previous answer was, so that consecutive frames settle
            // on the same minimum.
            match seed.filter(|&s| self.swing.contains(s)) {
                Some(previous) => (previous, None, measure.turned),
                None => (start, arc, measure.turned),
            }
        };
        let (mut to, mut measure, mut cost) = self.refine(direction, from, arc, turned);
        if global {
            // It stays a candidate: a refinement from a seed can end farther than it.
            if at_start < cost {
                (to, measure, cost) = (start, start_measure, at_start);
            }
            // Prove the answer within the accuracy promised (finer for answers near the
            // boundary), or find the nearer one (another basin, or past a kink of the twist
            // limits the local search stopped at).
            let tolerance =
                (RELATIVE_TOLERANCE * cost.sqrt()).clamp(FINEST_TOLERANCE, GLOBAL_TOLERANCE);
            let mut best = Found {
                point: self.swing.map.to_square(to),
                cost,
            };
            let grids = self.table_grids();
            if self
                .bounds()
                .improve(grids, direction, twist, &mut best, tolerance)
            {
                // The search settles on the corners of small parts of cells; the answer is
                // polished from there, by the local search and by the nearest boundary point
                // (twist clamped), and the best candidate kept.
                let at = self.swing.inside_near(best.point);
                let there = self.twist_range_at(best.point).measure(twist);
                let refined = self.refine(direction, at, None, there.turned);
                let (landed, _) = self.swing.nearest_from_with_arc(direction, best.point);
                let landed = self.swing.polished_landing(direction, landed);
                let landed_measure = turn(&self.twist_range_at(self.swing.map.to_square(landed)));
                let on_boundary = (
                    landed,
                    landed_measure,
                    cost_at(direction, landed, landed_measure),
                );
                (to, measure, _) = [(to, measure, cost), refined, on_boundary]
                    .into_iter()
                    .min_by(|a, b| a.2.total_cmp(&b.2))
                    .expect("three candidates");
            }
        }
        self.moved(relative, twist, direction, to, measure)
    }

    /// At a swing of exactly 180°, where every twist splits the rotation (the bone points along
    /// `direction` whatever the split), the twist nearest `twist` that the table allows at the
    /// allowed direction nearest `direction` (its boundary search's landing): the nearest
    /// rotation in the sum `α² + δ²` is that direction with `δ = 0`. Out of line: a degenerate
    /// input.
    #[cold]
    #[inline(never)]
    fn twist_for_half_swing(&self, direction: Vec3, twist: f32) -> f32 {
        let at = if self.swing.contains(direction) {
            direction
        } else {
            let square = self.swing.map.to_square(direction);
            let (landed, _) = self.swing.nearest_from_with_arc(direction, square);
            self.swing.polished_landing(direction, landed)
        };
        self.twist_range_at(self.swing.map.to_square(at))
            .measure(twist)
            .allowed
    }

    /// Whether `relative`, swinging near 180°, lies within the tolerance (as a rotation) of an
    /// allowed rotation along the family that splits it with another twist
    /// ([`crate::region::half_swing`]): the bone's direction turned by `t/2` about the twist axis
    /// and `t` added to the twist. At a swing of exactly 180° every twist splits the rotation, so
    /// it is allowed where the bone's direction allows any twist.
    fn allowed_along_half_swing(&self, relative: Quat, twist: f32, direction: Vec3) -> bool {
        let member = |t: f32| {
            let turned = Quat::from_axis_angle(self.twist_axis, 0.5 * t) * direction;
            let Lookup {
                distance,
                twist: range,
            } = self.lookup(self.swing.map.to_square(turned));
            distance.max(0.0).hypot(range.measure(twist + t).distance)
        };
        crate::region::half_swing::family_within_tolerance(relative, self.twist_axis, member)
    }

    /// The twist measure of the turned twist `turned` against the range at the allowed
    /// direction `at`.
    #[inline]
    fn measure_at(&self, at: Vec3, turned: f32) -> TwistMeasure {
        let range = self.twist_range_at(self.swing.map.to_square(at));
        let allowed = range.clamp(turned);
        TwistMeasure {
            turned,
            allowed,
            distance: (turned - allowed).abs(),
        }
    }

    /// From the allowed direction `start` (next to boundary arc `arc` when known), the allowed
    /// direction `e` minimising `α(d, e)² + δ(e)²`, with `δ` the distance of the twist `turned`
    /// outside the range at `e`, by Gauss–Newton steps: in the tangent plane at `d` the swing
    /// is `x` with `|x| = α`, and the signed excess of the twist over the range is linearised,
    /// `ε ≈ c + G·x`, whose `x² + max(ε, 0)²` is least at `x = −G·c / (1 + |G|²)` when `c > 0`
    /// and at `x = 0` otherwise. A step leaving the allowed directions is corrected back onto
    /// their boundary, and a step that does not lower the sum is halved. Returns the direction,
    /// its twist measure and the sum.
    #[inline]
    fn refine(
        &self,
        d: Vec3,
        start: Vec3,
        mut arc: Option<u32>,
        turned: f32,
    ) -> (Vec3, TwistMeasure, f32) {
        let (e1, e2) = d.any_orthonormal_pair();
        let log = |e: Vec3| -> Vec2 {
            let off = e - d * d.dot(e);
            let length = off.length();
            if length < 1e-12 {
                return Vec2::ZERO;
            }
            Vec2::new(off.dot(e1), off.dot(e2)) * (angle(d, e) / length)
        };
        let exp = |x: Vec2| -> Vec3 {
            let a = x.length();
            if a < 1e-12 {
                return d;
            }
            let (sin, cos) = crate::fast_trig::sin_cos(a);
            (d * cos + (e1 * x.x + e2 * x.y) * (sin / a)).normalize()
        };
        // The signed excess of the twist over the range (positive outside, negative inside).
        let excess_at = |p: Vec2| {
            let range = self.twist_range_at(p);
            (turned - range.max).max(range.min - turned)
        };
        let excess = |e: Vec3| excess_at(self.swing.map.to_square(e));
        let cost = |x: Vec2, excess: f32| x.length_squared() + excess.max(0.0).powi(2);
        let mut at = start;
        let mut x = log(at);
        let mut current = excess(at);
        let mut best = cost(x, current);
        let h = 0.25 * self.cell_angle();
        for _ in 0..REFINE_ROUNDS {
            if best == 0.0 {
                break;
            }
            // The excess's gradient in x (it falls as the limit rises), and the signed
            // distance's (pointing out of the allowed directions), by central differences.
            let probe = |offset: Vec2| {
                let Lookup { distance, twist } =
                    self.lookup(self.swing.map.to_square(exp(x + offset)));
                Vec2::new((turned - twist.max).max(twist.min - turned), distance)
            };
            let across = (probe(Vec2::X * h) - probe(-Vec2::X * h)) / (2.0 * h);
            let up = (probe(Vec2::Y * h) - probe(-Vec2::Y * h)) / (2.0 * h);
            let gradient = Vec2::new(across.x, up.x);
            let outward = Vec2::new(across.y, up.y);
            // excess(x') ≈ current + gradient·(x' − x) = c + gradient·x'.
            let c = current - gradient.dot(x);
            let target = if c > 0.0 {
                -gradient * (c / (1.0 + gradient.length_squared()))
            } else {
                Vec2::ZERO
            };
            let mut step = target - x;
            let near_boundary = self.swing.signed_distance(at) > -h * outward.length();
            if near_boundary && step.dot(outward) > 0.0 {
                // The step would leave the allowed directions: slide along the boundary
                // instead, to the model's least point on its tangent line.
                let tangent = outward.perp().normalize_or_zero();
                let along = gradient.dot(tangent);
                let t = -(x.dot(tangent) + current.max(0.0) * along) / (1.0 + along * along);
                step = tangent * t;
            }
            // The model's gain, in the metric: `Δ(α² + δ²) ≈ 2·√(sum)·Δ√(sum)`.
            let predicted =
                (x + step).length_squared() + (current + gradient.dot(step)).max(0.0).powi(2);
            if best - predicted < 2.0 * best.sqrt() * GAIN_TOLERANCE {
                break;
            }
            let mut improved = false;
            for _ in 0..STEP_HALVINGS {
                let wanted = exp(x + step);
                // Steps are short: the boundary search walks on from the last landing.
                let (candidate, landed_arc) = match arc {
                    _ if self.swing.contains(wanted) => (wanted, arc),
                    Some(from) => {
                        let (landed, next) = self.swing.nearest_along(wanted, from);
                        (landed, Some(next))
                    }
                    None => self
                        .swing
                        .nearest_from_with_arc(wanted, self.swing.map.to_square(wanted)),
                };
                let candidate_x = log(candidate);
                let candidate_excess = excess(candidate);
                let candidate_cost = cost(candidate_x, candidate_excess);
                if candidate_cost < best {
                    improved = best - candidate_cost > 1e-12;
                    (at, x, current, best) =
                        (candidate, candidate_x, candidate_excess, candidate_cost);
                    arc = landed_arc;
                    break;
                }
                step *= 0.5;
            }
            if !improved {
                break;
            }
        }
        (at, self.measure_at(at, turned), best)
    }

    /// The answer to a rotation with a component that is not finite, which has no nearest
    /// allowed rotation (the searches would never settle on it): the one nearest the identity,
    /// reported outside with an unknown violation, and measured there, so that a stream goes
    /// on from it.
    #[cold]
    fn answer_to_non_finite(&self) -> Limited {
        let allowed = self.nearest(Quat::IDENTITY, &LimitContext::NONE);
        Limited {
            relative: allowed.relative,
            inside: false,
            violation: f32::NAN,
            measured: allowed.measured,
        }
    }

    /// The angle of one cell's side, on average: `√(4π / cells)`.
    fn cell_angle(&self) -> f32 {
        (4.0 * std::f32::consts::PI).sqrt() / self.resolution() as f32
    }

    /// The result moving the input to the allowed direction `to` and the twist `measure.allowed`.
    #[inline]
    fn moved(
        &self,
        relative: Quat,
        twist: f32,
        direction: Vec3,
        to: Vec3,
        measure: TwistMeasure,
    ) -> Limited {
        direction_twist::moved(
            self.twist_axis,
            relative,
            (twist, direction),
            to,
            measure.turned,
            measure.allowed,
        )
    }
}

impl RotationLimit for TableLimit {
    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        if !relative.is_finite() {
            return self.answer_to_non_finite();
        }
        let (mut twist, direction) = self.measure(relative);
        if crate::contract::half_swing(relative, self.twist_axis) {
            twist = self.twist_for_half_swing(direction, twist);
        }
        self.solve(
            relative,
            twist,
            direction,
            None,
            |range| range.measure(twist),
            true,
        )
    }

    fn nearest_continuing(
        &self,
        relative: Quat,
        previous: Vec4,
        context: &LimitContext,
    ) -> Limited {
        if !relative.is_finite() || !previous.is_finite() {
            // Nothing to continue from, or nothing to measure.
            return self.nearest(relative, context);
        }
        let (mut twist, direction) = self.measure(relative);
        if crate::contract::half_swing(relative, self.twist_axis) {
            // A swing of exactly 180°: every twist is a valid split; keep the stream's.
            twist = previous.w;
        }
        // The boundary search and the refinement start from the previous answer: the same
        // stretch of boundary and the same minimum while they stay near.
        let seed = previous.truncate().try_normalize();
        self.solve(
            relative,
            twist,
            direction,
            seed,
            |range| range.measure_from(twist, previous.w),
            false,
        )
    }

    /// Outside by more than twice the tolerance in the combined metric, told from the cell of
    /// the bone's direction: the directions within `2·tol` of it map into the square rectangle
    /// `STRETCH / π` units per radian round its point (`super::bounds::STRETCH`), and where that
    /// rectangle lies in one cell the bilinear values over it take their extremes at its
    /// corners. So when every corner's signed distance exceeds the tolerance (no direction that
    /// near is allowed), or the twist lies more than `2·tol` beyond the envelope of the
    /// corners' twist ranges on every turn, each allowed rotation lies more than `2·tol` away,
    /// and the nearest moves the input. Near a 180° swing, and where the rectangle leaves its
    /// cell or the square, nothing is said.
    #[inline]
    fn surely_outside(&self, relative: Quat, _: &LimitContext) -> bool {
        if near_half_swing(relative, self.twist_axis) {
            return false;
        }
        let (twist, direction) = self.measure(relative);
        let p = self.swing.map.to_square(direction);
        // Twice the tolerance as square units, and room for the rounding of `p`.
        let reach = 2.0 * BOUNDARY_TOLERANCE * super::bounds::STRETCH / std::f32::consts::PI + 1e-5;
        let (low, high) = (p - reach, p + reach);
        let n = self.resolution();
        let (low_cell, high_cell) = (
            VertexGrid::locate_in(n, low),
            VertexGrid::locate_in(n, high),
        );
        let in_one_cell = (low_cell.0, low_cell.1) == (high_cell.0, high_cell.1);
        if !in_one_cell || low.min_element() <= -1.0 || high.max_element() >= 1.0 {
            return false;
        }
        let corners = super::grid::rectangle_corners(low, high).map(|corner| self.lookup(corner));
        if corners.iter().all(|c| c.distance > BOUNDARY_TOLERANCE) {
            return true;
        }
        let envelope = TwistRange {
            min: corners
                .iter()
                .map(|c| c.twist.min)
                .fold(f32::INFINITY, f32::min),
            max: corners
                .iter()
                .map(|c| c.twist.max)
                .fold(f32::NEG_INFINITY, f32::max),
        };
        envelope.measure(twist).distance > 2.0 * BOUNDARY_TOLERANCE
    }

    /// Looks the direction and twist up without searching for the nearest.
    #[inline]
    fn contains(&self, relative: Quat, context: &LimitContext) -> bool {
        if let Some(cells) = self.inside_cells()
            && cells.surely_allowed(relative)
        {
            return true;
        }
        self.contains_measured(relative, context)
    }

    /// The continuation's direction moved more than [`CONTINUATION_JUMP`] from the previous
    /// frame's, the nearest is nearer by more than the accuracy promised (1e-3 rad), and along
    /// the great arc from the continuation's direction to the nearest's, tested every quarter of
    /// a cell (as [`TableLimit::first_crossing`] walks), every direction is allowed and the cost
    /// `α² + δ²` of the input (on the continuation's twist turn, which must be the nearest's)
    /// never rises: the nearest lies downhill of the continuation.
    fn leads_to(
        &self,
        relative: Quat,
        previous: Vec4,
        continued: &Limited,
        nearest: &Limited,
    ) -> bool {
        /// Samples of the arc at most: farther apart, the two are not one basin's.
        const MOST_STEPS: usize = 64;
        let turned = continued.measured.w;
        if continued.inside || nearest.inside || (nearest.measured.w - turned).abs() > 1e-3 {
            return false;
        }
        // A continuation that moved on smoothly stays: only a jump is replaced.
        let moved = previous
            .truncate()
            .angle_between(continued.measured.truncate());
        if moved.is_nan() || moved <= CONTINUATION_JUMP {
            return false;
        }
        // Within the accuracy promised of the nearest, the continuation is as near: it stays,
        // so that a stream on a plateau of equal costs does not follow the nearest about it.
        if continued.violation - nearest.violation <= GLOBAL_TOLERANCE {
            return false;
        }
        let (Some(from), Some(to)) = (
            continued.measured.truncate().try_normalize(),
            nearest.measured.truncate().try_normalize(),
        ) else {
            return false;
        };
        let (_, direction) = self.measure(relative);
        let cost = |e: Vec3| cost_at(direction, e, self.measure_at(e, turned));
        let arc = angle(from, to);
        let steps = (arc / (0.25 * self.cell_angle())).ceil() as usize;
        if steps > MOST_STEPS {
            return false;
        }
        let Some(turn_axis) = from.cross(to).try_normalize() else {
            // The same direction (or opposite ones, which no short arc joins).
            return arc < 1e-6;
        };
        let mut last = cost(from);
        for k in 1..=steps {
            let t = k as f32 / steps as f32;
            let e = (Quat::from_axis_angle(turn_axis, t * arc) * from).normalize();
            let here = cost(e);
            // Room for the rounding of the costs (squared radians, f32).
            if !self.swing.contains(e) || here > last + 4e-7 * (1.0 + last) {
                return false;
            }
            last = here;
        }
        true
    }

    /// The previous direction with the nearest answer's twist turn.
    fn previous_on_nearest_turn(&self, previous: Vec4, nearest: &Limited) -> Option<Vec4> {
        Some(previous.truncate().extend(nearest.measured.w))
    }

    fn is_degenerate(&self, relative: Quat) -> bool {
        crate::contract::half_swing(relative, self.twist_axis)
    }

    /// The stress channel at the answer's direction.
    fn stress(&self, limited: &Limited) -> Option<f32> {
        let direction = limited.measured.truncate().try_normalize()?;
        Some(self.stress.sample(self.swing.map.to_square(direction)))
    }

    /// The break-margin channel at the answer's direction.
    fn break_margin(&self, limited: &Limited) -> Option<f32> {
        let direction = limited.measured.truncate().try_normalize()?;
        Some(
            self.break_margin
                .sample(self.swing.map.to_square(direction)),
        )
    }

    fn bone_axis(&self) -> Option<Vec3> {
        Some(self.twist_axis)
    }

    /// An allowed direction holds a twist range (never empty), so about the table's own axis
    /// the allowed directions answer.
    fn reaches_direction(&self, axis: Vec3, direction: Vec3) -> Option<bool> {
        if !direction_twist::same_axis(axis, self.twist_axis) {
            return None;
        }
        let distance = self.swing.signed_distance(direction);
        // A hair outside is left to the inside test (see `twists_along`).
        match distance {
            d if d <= BOUNDARY_TOLERANCE => Some(true),
            d if d > CLEARLY_OUTSIDE => Some(false),
            _ => None,
        }
    }

    /// About the table's own axis, the twist range its lookup reads at the direction (what
    /// [`RotationLimit::contains`] measures the twist against away from a half swing): trying
    /// twists one by one would run a proven projection for each near a half swing.
    fn twists_along(&self, axis: Vec3, direction: Vec3) -> Option<Vec<TwistRange>> {
        if !direction_twist::same_axis(axis, self.twist_axis) {
            return None;
        }
        let Lookup { distance, twist } = self.lookup(self.swing.map.to_square(direction));
        Some(if distance > CLEARLY_OUTSIDE {
            Vec::new()
        } else if distance > BOUNDARY_TOLERANCE {
            // The inside test measures the angle to the boundary curve, which the stored
            // distances can overstate where they change faster than the angle (between cells,
            // across the map's stretch): left to the inside test.
            return None;
        } else if twist.max - twist.min >= std::f32::consts::TAU {
            vec![TwistRange {
                min: -std::f32::consts::PI,
                max: std::f32::consts::PI,
            }]
        } else {
            vec![twist]
        })
    }

    fn validate(&self) -> Result<(), InvalidField> {
        validation::unit_vector("twist_axis", self.twist_axis)?;
        let resolution = self.resolution();
        validation::require(RESOLUTIONS.contains(&resolution), "resolution", || {
            format!(
                "{resolution} cells per side; a table has {} to {}",
                RESOLUTIONS.start(),
                RESOLUTIONS.end()
            )
        })?;
        let count = (resolution + 1) * (resolution + 1);
        for (grid, channel) in self.grids().into_iter().zip(Channel::ALL) {
            validation::require(
                grid.resolution == resolution && grid.values.len() == count,
                channel.name(),
                || format!("has {} values; the grid has {count}", grid.values.len()),
            )?;
            if let Some(index) = grid.values.iter().position(|v| !v.is_finite()) {
                return Err(InvalidField::new(
                    format!("{}[{index}]", channel.name()),
                    "is not finite",
                ));
            }
        }
        validation::require(
            self.swing.distance.values.iter().any(|&v| v <= 0.0),
            "allowed",
            || "allows no direction: every vertex is outside".into(),
        )?;
        let side = resolution + 1;
        if let Some(index) =
            (0..count).find(|&i| self.twist_min.values[i] > self.twist_max.values[i])
        {
            return Err(InvalidField::new(
                format!("twist_min[{index}]"),
                format!(
                    "at pixel ({}, {}) the twist minimum {} exceeds the maximum {}",
                    index % side,
                    index / side,
                    self.twist_min.values[index],
                    self.twist_max.values[index]
                ),
            ));
        }
        Ok(())
    }

    fn label(&self) -> String {
        let n = self.resolution();
        format!("table ({n}×{n}) + twist")
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::SwingTwist
    }

    fn examples() -> Vec<TableLimit> {
        use std::f32::consts::PI;
        let axis = Vec3::Y;
        // A region past the hemisphere with a notch cut into it, twist limits varying across it.
        let notch = Vec3::new(0.0, -0.3, 1.0).normalize();
        let big = TableLimit::from_fn(axis, 48, |d| {
            let cap = angle(d, axis) - 2.0;
            let cut = 0.45 - angle(d, notch);
            TableValues {
                allowed: cap.max(cut),
                twist: TwistRange {
                    min: -0.8 + 0.4 * d.x,
                    max: 0.6 + 0.5 * d.z,
                },
                stress: (1.0 + cap.max(cut) / 0.5).clamp(0.0, 1.0),
                break_margin: 0.3,
            }
        });
        // Two separate caps leaning off the axis; twist limits past +π.
        let (a, b) = (
            Vec3::new(0.6, 1.0, 0.2).normalize(),
            Vec3::new(-0.7, 0.4, -0.5).normalize(),
        );
        let islands = TableLimit::from_fn(axis, 32, |d| {
            let distance = (angle(d, a) - 0.5).min(angle(d, b) - 0.35);
            TableValues {
                allowed: distance,
                twist: TwistRange {
                    min: 2.4 + 0.3 * d.y,
                    max: 3.6 + 0.2 * d.x,
                },
                stress: 0.5,
                break_margin: PI / 8.0,
            }
        });
        vec![big, islands]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A ring round the axis whose twist limits wind once round it, `[φ − 0.6, φ + 0.5]` at
    /// azimuth `φ`: the stored ranges jump by a whole turn across one half-plane.
    pub(crate) fn winding_table(resolution: usize) -> TableLimit {
        use super::super::swing_set::angle;
        let axis = Vec3::Y;
        TableLimit::from_fn(axis, resolution, |d| {
            let swing = angle(d, axis);
            let middle = d.z.atan2(d.x);
            TableValues {
                allowed: (swing - 2.3).max(0.4 - swing),
                twist: TwistRange {
                    min: middle - 0.6,
                    max: middle + 0.5,
                },
                stress: 0.2,
                break_margin: 0.2,
            }
        })
    }

    /// Across the half-plane where the stored twist ranges jump by a turn, a cell reads its
    /// corners on common turns: every lookup's range is the ring's own within the
    /// interpolation's error (read between the turns, it was about half a turn off), the
    /// lanes never pass a rotation the one-at-a-time test refuses, and the nearest answer to
    /// any rotation lands inside.
    #[test]
    fn twist_limits_winding_round_the_axis_read_on_common_turns() {
        use crate::batch::{LANES, SurelyInside};
        use crate::measure::SeededRandom;
        let table = winding_table(32);
        assert!(table.packed.has_turns());
        let mut random = SeededRandom::new(12);
        let mut largest = 0.0f32;
        for _ in 0..20_000 {
            let d = random.direction();
            let swing = angle(d, Vec3::Y);
            if !(0.5..2.2).contains(&swing) {
                continue;
            }
            let range = table.values_at(d).twist;
            let middle = d.z.atan2(d.x) - 0.05;
            let apart = 0.5 * (range.min + range.max) - middle;
            let off =
                (apart - std::f32::consts::TAU * (apart / std::f32::consts::TAU).round()).abs();
            largest = largest.max(off);
            assert!((range.max - range.min - 1.1).abs() < 1e-3, "{d}: {range:?}");
        }
        assert!(largest < 0.05, "{largest}");
        let joint = crate::JointLimit {
            joint: "ring".into(),
            reference: Quat::IDENTITY,
            region: crate::LimitRegion::Table(table.clone()),
            softening: None,
        };
        let lanes = SurelyInside::of(&joint).expect("tables have a lane test");
        let none = LimitContext::NONE;
        for _ in 0..200 {
            let group: [Quat; LANES] = std::array::from_fn(|_| {
                // Half of them allowed rotations, to give the lanes something to pass.
                let q = random.rotation();
                if random.next_unit() < 0.5 {
                    table.nearest(q, &none).relative
                } else {
                    q
                }
            });
            for (q, inside) in group.iter().zip(lanes.test(&group)) {
                assert!(!inside || table.contains(*q, &none), "{q}");
                let nearest = table.nearest(*q, &none);
                assert!(
                    table.contains(nearest.relative, &none),
                    "{q} -> {nearest:?}"
                );
            }
        }
    }

    #[test]
    fn stateless_answers_at_an_exact_half_swing_do_not_hang_on_rounding() {
        // A rotation swinging the bone exactly round leaves `(v·axis, w)` at rounding level,
        // where `atan2` would read any twist; read or written with a sign flipped in its last
        // bit, it must be corrected the same way.
        let mut random = crate::measure::SeededRandom::new(12);
        for table in TableLimit::examples()
            .into_iter()
            .chain([winding_table(32)])
        {
            let axis = table.twist_axis;
            for _ in 0..20 {
                let n = random.perpendicular(axis);
                // How far each is from its answer (several answers may tie: the far pole sees a
                // round region's whole rim at one distance).
                let distances =
                    [(0.0, 0.0), (4e-9, 0.0), (-4e-9, 0.0), (3e-9, -2e-9)].map(|(along, w)| {
                        let v = n + axis * along;
                        let q = Quat::from_xyzw(v.x, v.y, v.z, w).normalize();
                        table.nearest(q, &LimitContext::NONE).violation
                    });
                for distance in &distances[1..] {
                    let apart = (distance - distances[0]).abs();
                    assert!(apart < 1e-3, "{}: {distances:?} at {n}", table.label());
                }
            }
        }
    }

    #[test]
    fn rotations_through_a_half_swing_are_allowed_where_any_split_is() {
        // Bone directions at least 150° from the axis allowed, twist [0.5, 0.6] there. At a
        // swing of exactly 180° every twist splits the rotation, so every such rotation is
        // allowed; near it, those within the tolerance of an allowed split are. A sweep of the
        // swing from 179° to 181° with the twist 0.55 is allowed at every step, exactly 180°
        // included (its twist coordinate is the rounding's), and comes back unchanged.
        let axis = Vec3::new(0.3, -0.9, 0.2).normalize();
        let n = 32;
        let map = super::super::swing_set::map_around(axis);
        let values: Vec<TableValues> = (0..(n + 1) * (n + 1))
            .map(|i| {
                let p = VertexGrid::vertex_position(n, i % (n + 1), i / (n + 1));
                let swing = map.to_sphere(p).angle_between(axis);
                TableValues {
                    allowed: 150f32.to_radians() - swing,
                    twist: TwistRange { min: 0.5, max: 0.6 },
                    stress: 0.0,
                    break_margin: 0.1,
                }
            })
            .collect();
        let table = TableLimit::from_values(axis, n, &values);
        let across = axis.any_orthonormal_vector();
        let twist = Quat::from_axis_angle(axis, 0.55);
        for step in -1000..=1000 {
            let swing = std::f32::consts::PI + step as f32 * 1e-5f32.to_radians() * 100.0;
            for turn in 0..8 {
                let about = Quat::from_axis_angle(axis, turn as f32 * 0.8) * across;
                let q = Quat::from_axis_angle(about, swing) * twist;
                let answer = table.nearest(q, &LimitContext::NONE);
                assert!(answer.inside, "swing {swing}, turn {turn}: {answer:?}");
                assert!(table.contains(q, &LimitContext::NONE));
            }
        }
        // Exactly 180°: any twist.
        for k in 0..16 {
            let q = Quat::from_axis_angle(across, std::f32::consts::PI)
                * Quat::from_axis_angle(axis, k as f32 * 0.4);
            assert!(
                table.contains(q, &LimitContext::NONE),
                "twist {}",
                k as f32 * 0.4
            );
        }
        // 170° with a twist far out of range stays outside.
        let q =
            Quat::from_axis_angle(across, 170f32.to_radians()) * Quat::from_axis_angle(axis, 2.0);
        assert!(!table.contains(q, &LimitContext::NONE));
    }

    #[test]
    fn stateless_answers_on_tables_of_degenerate_data_beat_a_brute_force() {
        // Joints whose data are degenerate: rotations of 3 rad about axes sweeping a plane (a
        // ring around the far side, its bone directions a thin closed curve) and near-half-turn
        // rotations about nearly opposite axes. A boundary search from hints can stop on a
        // stretch of boundary that is not the nearest; every stateless answer must be as near as
        // the best of a dense set of allowed directions, each with the twist clamped into its
        // range.
        let axis = Vec3::new(0.0, -0.9998, 0.0199).normalize();
        let mut random = crate::measure::SeededRandom::new(41);
        let count = 60_000;
        let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
        let sphere: Vec<Vec3> = (0..count)
            .map(|i| {
                let z = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
                let r = (1.0 - z * z).sqrt();
                let a = golden * i as f32;
                Vec3::new(r * a.cos(), z, r * a.sin())
            })
            .collect();
        // The sampling's own resolution: neighbours lie about √(4π / count) apart.
        let spacing = (4.0 * std::f32::consts::PI / count as f32).sqrt();
        let mut worst = f32::NEG_INFINITY;
        for trial in 0..4 {
            let a = random.direction();
            let b = a.cross(random.direction()).normalize();
            let samples: Vec<Quat> = (0..600)
                .map(|i| {
                    let t = i as f32 / 599.0;
                    if trial % 2 == 0 {
                        let (sin, cos) = (std::f32::consts::TAU * t).sin_cos();
                        crate::rotation::from_scaled_angle_axis((a * cos + b * sin) * 3.0)
                    } else {
                        let side = if i % 2 == 0 { 1.0 } else { -1.0 };
                        let tilt = Vec3::new((i as f32 * 1.3).sin(), (i as f32 * 2.1).cos(), 0.0);
                        let angle = 2.9 + 0.24 * (i as f32 * 0.7).sin().abs();
                        let v = (a + tilt * 0.3).normalize() * (side * angle);
                        crate::rotation::from_scaled_angle_axis(v)
                    }
                })
                .collect();
            let table = crate::fit::table::fit_table(&samples, axis, 0.035, 128).expect("a table");
            let allowed: Vec<(Vec3, TwistRange)> = sphere
                .iter()
                .copied()
                .filter(|&e| table.swing().contains(e))
                .map(|e| (e, table.values_at(e).twist))
                .collect();
            for _ in 0..300 {
                let q = random.rotation();
                let answer = table.nearest(q, &LimitContext::NONE);
                assert!(table.contains(answer.relative, &LimitContext::NONE));
                let (twist, d) = table.measure(q);
                if crate::contract::near_half_swing(q, axis) {
                    continue;
                }
                let brute = allowed
                    .iter()
                    .map(|(e, range)| {
                        let gap = range.measure(twist).distance;
                        (angle(d, *e).powi(2) + gap * gap).sqrt()
                    })
                    .fold(f32::INFINITY, f32::min);
                worst = worst.max(answer.violation - brute);
            }
        }
        eprintln!("worst excess over the brute force: {worst} rad");
        assert!(
            worst <= 1e-3 + spacing,
            "a stateless answer {worst} rad farther than a brute force over allowed directions"
        );
    }

    #[test]
    fn the_first_crossing_stops_where_the_path_leaves_and_never_jumps_a_gap() {
        let islands = TableLimit::examples().remove(1);
        let axis = islands.twist_axis;
        let (a, b) = (
            Vec3::new(0.6, 1.0, 0.2).normalize(),
            Vec3::new(-0.7, 0.4, -0.5).normalize(),
        );
        // From the middle of island `a`, aim past island `b` on the great circle through both.
        let beyond = (b * 1.6 - a).normalize();
        let twist_inside = 3.0;
        let previous = a.extend(twist_inside);
        let input = crate::measure::tightness::pointing(axis, beyond, twist_inside);
        let crossing = islands.first_crossing(input, previous);
        assert!(!crossing.inside);
        let out = crossing.relative * axis;
        assert!(islands.contains(crossing.relative, &LimitContext::NONE));
        assert!(
            angle(out, a) < 0.55 && angle(out, a) > 0.4,
            "stopped {} rad from a's centre, {} from b's",
            angle(out, a),
            angle(out, b)
        );
        // Every quarter cell from the start to the crossing is allowed.
        let cell = islands.cell_angle();
        let steps = (angle(a, out) / (0.25 * cell)).ceil() as usize;
        for k in 0..=steps {
            let d = a.slerp(out, k as f32 / steps as f32);
            assert!(islands.swing().contains(d), "gap at step {k}");
        }
        // The stateless nearest goes to island b instead.
        let nearest = islands.nearest(input, &LimitContext::NONE);
        assert!(angle(nearest.relative * axis, b) < angle(nearest.relative * axis, a));
        // A path-aware limiter does the same frame after frame.
        let joint = crate::JointLimit {
            joint: "joint".into(),
            reference: Quat::IDENTITY,
            region: crate::LimitRegion::Table(islands.clone()),
            softening: None,
        };
        let mut limiter = crate::Limiter::new(vec![Some(joint)]).with_path_aware(true);
        let start = crate::measure::tightness::pointing(axis, a, twist_inside);
        assert_eq!(limiter.limit_joint(0, start).0, start);
        let (output, _) = limiter.limit_joint(0, input);
        assert!(angle(output * axis, out) < 1e-4);
        // An allowed input comes back unchanged.
        let allowed = crate::measure::tightness::pointing(axis, b, 3.0);
        let same = islands.first_crossing(allowed, previous);
        assert!(same.inside);
        assert_eq!(same.relative, allowed);
    }
}
