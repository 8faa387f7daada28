//! A child joint's limit conditioned on its parent's state (the elbow's range given where the
//! upper arm points): a box in the child's limit space whose bounds vary with the parent bone's
//! direction.
//!
//! The parent's bone direction `d = (parent_reference⁻¹ · parent_local) · parent_axis` indexes a
//! grid over the equal-area octahedral map centred on `parent_axis` (the tables' map, no seam
//! where the data are). Each grid vertex holds a box `min ≤ x ≤ max` over the child's scaled
//! angle-axis point in a fixed frame `x = frameᵀ(p − c)`; between vertices the bounds are
//! interpolated bilinearly, so they move continuously with the parent. For a given parent the
//! child's region is that box: convex, with the full-space box's exact projection over both
//! covers. Without the parent's state (a stateless caller, or a parent rotation with a component
//! that is not finite) the region is `independent`, the box holding every vertex's: the limit the
//! child would have alone. A parent rotation whose direction vanishes (a zero quaternion) points
//! along `parent_axis`.
//!
//! The fit ([`crate::fit::coupled`]) gives each vertex the bounds of the child's samples whose
//! parent direction is within the vertex's cell neighbourhood, so every fitted sample lies inside
//! the box its own parent direction selects.

use glam::{Mat3, Quat, Vec2, Vec3, Vec3A, Vec4};
use serde::{Deserialize, Serialize};

use crate::contract::{LimitContext, Limited, RotationLimit};
use crate::region::FullLimit;
use crate::rotation::quat_abs;
use crate::shape::{BoxShape, Frame, LimitShape, Shape};
use crate::space::{SpaceKind, full_point};
use crate::table::{OctahedralMap, VertexGrid};
use crate::validation::{self, InvalidField};

/// How far (radians) the boxes of two vertices that are one parent direction may differ: the
/// rounding of a stored file, far below any hand edit that matters.
const FOLD_AGREEMENT: f32 = 1e-4;

/// The grid resolutions a coupled limit may have, cells per side.
pub const RESOLUTIONS: std::ops::RangeInclusive<usize> = 1..=64;

/// A box over the child's limit space per parent direction (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CoupledRecord", into = "CoupledRecord")]
pub struct CoupledLimit {
    record: CoupledRecord,
    map: OctahedralMap,
    /// The record's parent axis with its `z` copied into a fourth lane. Turned from a
    /// three-component field, the axis is loaded with whatever follows it in the fourth lane,
    /// whose bits may read as a subnormal float, and each operation on one costs a microcode
    /// assist (it made the coupled inside test 1.7 times slower).
    parent_axis: Vec3A,
}

/// The stored form of a [`CoupledLimit`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoupledRecord {
    /// The parent's reference rotation: its relative rotation is `parent_reference⁻¹ · local`.
    pub parent_reference: Quat,
    /// The parent's bone axis at its reference (unit): the grid is centred on it.
    pub parent_axis: Vec3,
    /// The frame of the child's boxes in its limit space (scaled angle-axis).
    pub frame: Frame,
    /// Cells per side of the grid.
    pub resolution: usize,
    /// Per grid vertex, row-major (`(resolution + 1)²`): the box's `min` in frame coordinates.
    pub min: Vec<Vec3>,
    /// Per grid vertex: the box's `max`.
    pub max: Vec<Vec3>,
    /// The box used without the parent's state, holding every vertex's.
    pub independent: BoxShape,
}

impl TryFrom<CoupledRecord> for CoupledLimit {
    type Error = InvalidField;

    fn try_from(record: CoupledRecord) -> Result<CoupledLimit, InvalidField> {
        CoupledLimit::new(record)
    }
}

impl From<CoupledLimit> for CoupledRecord {
    fn from(limit: CoupledLimit) -> CoupledRecord {
        limit.record
    }
}

impl CoupledLimit {
    /// A coupled limit from its record, checked ([`RotationLimit::validate`]).
    pub fn new(record: CoupledRecord) -> Result<CoupledLimit, InvalidField> {
        let map = OctahedralMap {
            basis: crate::region::swing_basis(record.parent_axis.normalize_or(Vec3::X)),
        };
        let parent_axis = Vec3A::from(record.parent_axis);
        let limit = CoupledLimit {
            record,
            map,
            parent_axis,
        };
        limit.validate()?;
        Ok(limit)
    }

    /// The stored form.
    pub fn record(&self) -> &CoupledRecord {
        &self.record
    }

    /// The parent's bone direction for its local rotation `parent_local`.
    #[inline]
    pub fn parent_direction(&self, parent_local: Quat) -> Vec3 {
        let relative = self.record.parent_reference.conjugate() * parent_local;
        Vec3::from(relative.mul_vec3a(self.parent_axis)).normalize_or(self.record.parent_axis)
    }

    /// The child's box when the parent bone points along `direction` (bilinear in the grid,
    /// within the independent box).
    pub fn box_for_direction(&self, direction: Vec3) -> BoxShape {
        let n = self.record.resolution;
        let (column, row, t) = VertexGrid::locate_in(n, self.map.to_square(direction));
        // Blends of boxes within the independent one lie within it; the clamp keeps them so
        // through rounding.
        let outer = &self.record.independent;
        let (min, max) = (
            self.blend(&self.record.min, column, row, t).max(outer.min),
            self.blend(&self.record.max, column, row, t).min(outer.max),
        );
        BoxShape {
            frame: self.record.frame,
            min,
            max: max.max(min),
        }
    }

    /// The bilinear blend at cell coordinates `t` of cell `(column, row)` of per-vertex
    /// `values` (`min` or `max`).
    #[inline]
    fn blend(&self, values: &[Vec3], column: usize, row: usize, t: Vec2) -> Vec3 {
        let side = self.record.resolution + 1;
        let at = |c: usize, r: usize| values[r * side + c];
        at(column, row) * ((1.0 - t.x) * (1.0 - t.y))
            + at(column + 1, row) * (t.x * (1.0 - t.y))
            + at(column, row + 1) * ((1.0 - t.x) * t.y)
            + at(column + 1, row + 1) * (t.x * t.y)
    }

    /// The box every parent's box holds: each bound of a parent's box is a blend (weights at
    /// least 0, summing to 1) of the vertices' bounds, cut to the independent box, so its
    /// `min` is at most the largest vertex `min` and its `max` at least the smallest vertex
    /// `max`. `None` when that box is empty.
    pub fn common_box(&self) -> Option<BoxShape> {
        let r = &self.record;
        let min = r.min.iter().fold(r.independent.min, |a, &b| a.max(b));
        let max = r.max.iter().fold(r.independent.max, |a, &b| a.min(b));
        min.cmplt(max).all().then_some(BoxShape {
            frame: r.frame,
            min,
            max,
        })
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// whatever the parent's state ([`crate::rotation_cells`]; `to_relative` unit): those the
    /// full-space [`CoupledLimit::common_box`] allows, held by every parent's box and the
    /// independent one. No cell when that box is empty.
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        match self.common_box() {
            Some(common) => FullLimit::new(Shape::Box(common)).prove_cells(to_relative),
            None => crate::rotation_cells::InsideCells::none(),
        }
    }

    /// The child's region for `context`: the box its parent selects, or the independent box.
    #[inline]
    fn region(&self, context: &LimitContext) -> FullLimit {
        FullLimit::new(Shape::Box(self.box_for(context)))
    }

    /// The child's box given `context`: the one the parent's direction selects, or the
    /// independent box without a (finite) parent.
    #[inline]
    fn box_for(&self, context: &LimitContext) -> BoxShape {
        match context.parent {
            Some(parent) if parent.is_finite() => {
                self.box_for_direction(self.parent_direction(parent))
            }
            _ => self.record.independent,
        }
    }
}

/// How far (radians) a cube cell's box is drawn in from the bounds of the blends it reads:
/// more than the rounding of the bilinear blend (a few f32 steps of the largest bound).
const BOX_MARGIN: f32 = 1e-5;

/// Cells per side of each face of the cube over the parent's directions.
const FACE_CELLS: usize = 64;

/// How far (square units) the rectangle of a cube cell is widened beyond its cap's bound: the
/// rounding of the exact path's square point (a polynomial `atan2`, f32 square roots), far
/// below this.
const SQUARE_MARGIN: f32 = 1e-4;

/// A coupled limit's inside test with its boxes worked out per cell of a cube over the parent's
/// directions, for [`crate::prepared::PreparedLimit`].
///
/// A cube cell's directions lie in a cap about its centre whose radius is the angle to its
/// farthest corner (the cell is a convex spherical quadrilateral, and angles from the centre
/// are largest at a corner), and the octahedral map moves a square point by at most
/// `STRETCH / π` units per radian ([`crate::table::bounds::STRETCH`]), so their square points
/// lie in a rectangle about the centre's. Within each cell of the parent's grid each bound of
/// the parent's box is bilinear in the cell coordinates `t`, and over a rectangle of `t` it
/// takes its extremes at the rectangle's corners: so every direction of the cube cell selects
/// a box holding `[max of those corners' mins, min of their maxes]` over the grid cells the
/// rectangle meets (cut to the independent box, as the blend is), drawn in by `BOX_MARGIN`
/// for the blend's rounding. Cube cells whose rectangle leaves the square (where the map folds,
/// opposite the parent's axis) get no box.
///
/// The test reads the parent's direction as the exact test does, its cube cell with one
/// division, and compares the child's frame coordinates, computed as the exact test computes
/// them, with that cell's box: no map, no blend, no projection.
#[derive(Clone, Debug)]
pub struct CoupledInside {
    limit: CoupledLimit,
    /// The rotation from the parent's local frame to its reference's, as a matrix.
    to_parent_relative: Mat3,
    /// Per cube cell ([`cube_cell`]): the box every parent direction in it allows, `[min, max]`
    /// in frame coordinates (empty where `min > max` on some axis).
    boxes: Vec<[Vec3; 2]>,
}

/// The cube cell of the direction `d` (of length near 1): the face of its largest component (`+x, −x, +y,
/// −y, +z, −z`), then the cell of the other two components over it, in order.
#[inline(always)]
fn cube_cell(d: Vec3) -> usize {
    let a = d.abs();
    let (face, u, v, largest) = if a.x >= a.y && a.x >= a.z {
        (usize::from(d.x < 0.0), d.y, d.z, a.x)
    } else if a.y >= a.z {
        (2 + usize::from(d.y < 0.0), d.z, d.x, a.y)
    } else {
        (4 + usize::from(d.z < 0.0), d.x, d.y, a.z)
    };
    let half = 0.5 * FACE_CELLS as f32;
    let scale = half / largest;
    let last = FACE_CELLS - 1;
    let i = ((u * scale + half) as usize).min(last);
    let j = ((v * scale + half) as usize).min(last);
    (face * FACE_CELLS + j) * FACE_CELLS + i
}

/// The corners of cube cell `cell` ([`cube_cell`]) and its centre, unit directions.
fn cube_cell_directions(cell: usize) -> ([Vec3; 4], Vec3) {
    let (face, j, i) = (
        cell / (FACE_CELLS * FACE_CELLS),
        cell / FACE_CELLS % FACE_CELLS,
        cell % FACE_CELLS,
    );
    let on_face = |u: f32, v: f32| {
        let sign = if face % 2 == 0 { 1.0 } else { -1.0 };
        match face / 2 {
            0 => Vec3::new(sign, u, v),
            1 => Vec3::new(v, sign, u),
            _ => Vec3::new(u, v, sign),
        }
        .normalize()
    };
    let at = |k: f32| 2.0 * k / FACE_CELLS as f32 - 1.0;
    let (u0, u1, v0, v1) = (
        at(i as f32),
        at(i as f32 + 1.0),
        at(j as f32),
        at(j as f32 + 1.0),
    );
    (
        [
            on_face(u0, v0),
            on_face(u1, v0),
            on_face(u0, v1),
            on_face(u1, v1),
        ],
        on_face(0.5 * (u0 + u1), 0.5 * (v0 + v1)),
    )
}

impl CoupledInside {
    /// The test for `limit`.
    pub fn new(limit: &CoupledLimit) -> CoupledInside {
        use rayon::prelude::*;
        let boxes = (0..6 * FACE_CELLS * FACE_CELLS)
            .into_par_iter()
            .map(|cell| limit.box_over_cube_cell(cell))
            .collect();
        CoupledInside {
            limit: limit.clone(),
            to_parent_relative: Mat3::from_quat(limit.record.parent_reference.conjugate()),
            boxes,
        }
    }

    /// Whether the child's relative rotation `relative` (as [`crate::JointLimit::relative`]
    /// makes it) is surely allowed given `context`; `false` says nothing. Without the parent's
    /// state the independent box is the region, and the test is its own.
    #[inline]
    pub fn surely_allowed(&self, relative: Quat, context: &LimitContext) -> bool {
        let r = &self.limit.record;
        let point = crate::space::full_point(crate::rotation::quat_abs(relative));
        let Some(parent) = context.parent.filter(|parent| parent.is_finite()) else {
            return r.independent.contains(point);
        };
        // The parent's direction `(parent_reference⁻¹ · parent) · axis` as the reference's
        // rotation of `parent · axis`: within rounding of the exact path's, and the cube cells'
        // boxes hold a margin round each cell. (A parent far from unit length scales the vector
        // by its squared length, which changes no direction; one so far that the square
        // overflows or vanishes takes the exact path's direction.)
        let turned = self.to_parent_relative * Vec3::from(parent.mul_vec3a(self.limit.parent_axis));
        let direction = if (turned.length_squared() - 1.0).abs() < 0.5 {
            turned
        } else {
            self.limit.parent_direction(parent)
        };
        let [min, max] = self.boxes[cube_cell(direction)];
        let local = r.frame.to_local(point);
        local.cmpge(min).all() && local.cmple(max).all()
    }

    /// Memory held by the cube cells' boxes, in bytes.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.boxes.as_slice())
    }
}

impl CoupledLimit {
    /// The box every parent direction in cube cell `cell` allows (an empty one where the
    /// cell's rectangle leaves the square): [`CoupledInside`].
    fn box_over_cube_cell(&self, cell: usize) -> [Vec3; 2] {
        const NOTHING: [Vec3; 2] = [Vec3::INFINITY, Vec3::NEG_INFINITY];
        let r = &self.record;
        let (corners, centre) = cube_cell_directions(cell);
        let radius = corners
            .iter()
            .map(|&corner| crate::direction_twist::angle(centre, corner))
            .fold(0.0f32, f32::max);
        let reach = radius * (1.0 + 1e-3) * crate::table::bounds::STRETCH / std::f32::consts::PI
            + SQUARE_MARGIN;
        let middle = self.map.to_square(centre);
        let (low, high) = (middle - reach, middle + reach);
        if low.min_element() <= -1.0 || high.max_element() >= 1.0 {
            return NOTHING;
        }
        let n = r.resolution;
        let outer = &r.independent;
        // Grid cells as the exact path finds them (`VertexGrid::locate_in`), and the part of
        // each the rectangle covers, in cell coordinates.
        let scaled = |p: Vec2| (p + 1.0) * (0.5 * n as f32);
        let (from, to) = (scaled(low), scaled(high));
        let cells = |a: f32, b: f32| (a as usize).min(n - 1)..=(b as usize).min(n - 1);
        let (mut min, mut max) = (outer.min, outer.max);
        for row in cells(from.y, to.y) {
            for column in cells(from.x, to.x) {
                let origin = Vec2::new(column as f32, row as f32);
                let t_low = (from - origin).clamp(Vec2::ZERO, Vec2::ONE);
                let t_high = (to - origin).clamp(Vec2::ZERO, Vec2::ONE);
                for t in crate::table::grid::rectangle_corners(t_low, t_high) {
                    min = min.max(self.blend(&r.min, column, row, t));
                    max = max.min(self.blend(&r.max, column, row, t));
                }
            }
        }
        [min + BOX_MARGIN, max - BOX_MARGIN]
    }
}

impl RotationLimit for CoupledLimit {
    #[inline]
    fn nearest(&self, relative: Quat, context: &LimitContext) -> Limited {
        let shape = self.box_for(context);
        // An allowed child is answered from the box alone, as `FullLimit::nearest` answers it
        // first, without the bounding ball a projection needs.
        let point = full_point(quat_abs(relative));
        if shape.contains(point) {
            return Limited::unchanged(relative, point.extend(0.0));
        }
        FullLimit::new(Shape::Box(shape)).nearest(relative, &LimitContext::NONE)
    }

    #[inline]
    fn nearest_continuing(
        &self,
        relative: Quat,
        previous: Vec4,
        context: &LimitContext,
    ) -> Limited {
        self.region(context)
            .nearest_continuing(relative, previous, &LimitContext::NONE)
    }

    fn validate(&self) -> Result<(), InvalidField> {
        let r = &self.record;
        validation::unit_quaternion("parent_reference", r.parent_reference)?;
        validation::unit_vector("parent_axis", r.parent_axis)?;
        r.frame.validate()?;
        let resolution = r.resolution;
        validation::require(RESOLUTIONS.contains(&resolution), "resolution", || {
            format!(
                "{resolution} cells per side; a coupled limit has {} to {}",
                RESOLUTIONS.start(),
                RESOLUTIONS.end()
            )
        })?;
        let vertices = (resolution + 1) * (resolution + 1);
        for (field, values) in [("min", &r.min), ("max", &r.max)] {
            validation::require(values.len() == vertices, field, || {
                format!(
                    "{} vertices; {resolution} cells per side have {vertices}",
                    values.len()
                )
            })?;
        }
        for (i, (&min, &max)) in r.min.iter().zip(&r.max).enumerate() {
            validation::bounded_vector(&format!("min[{i}]"), min)?;
            validation::bounded_vector(&format!("max[{i}]"), max)?;
            validation::require(min.cmple(max).all(), &format!("max[{i}]"), || {
                format!("{max} is below min {min}")
            })?;
        }
        let independent = Shape::Box(r.independent);
        independent
            .validate()
            .map_err(|e| e.inside("independent"))?;
        // Every parent's box within the independent one, in its frame: so what some parent
        // allows, a caller without the parent's state allows too.
        validation::require(r.independent.frame == r.frame, "independent.frame", || {
            "differs from the vertex boxes' frame".to_string()
        })?;
        let (outer_min, outer_max) = (r.independent.min, r.independent.max);
        for (i, (&min, &max)) in r.min.iter().zip(&r.max).enumerate() {
            validation::require(min.cmpge(outer_min).all(), &format!("min[{i}]"), || {
                format!("{min} reaches below the independent box's min {outer_min}")
            })?;
            validation::require(max.cmple(outer_max).all(), &format!("max[{i}]"), || {
                format!("{max} reaches above the independent box's max {outer_max}")
            })?;
        }
        // The vertices on the map's folded edges, and its four corners, are one parent direction
        // each: boxes that differ there would make a child's range jump as the parent crosses.
        for (a, b) in crate::table::swing_set::fold_pairs(resolution) {
            for (field, values) in [("min", &r.min), ("max", &r.max)] {
                let gap = values[a].distance(values[b]);
                validation::require(gap <= FOLD_AGREEMENT, &format!("{field}[{b}]"), || {
                    format!(
                        "{} differs from {field}[{a}] by {gap:.3e} rad, but both vertices are one \
                         parent direction (a fold of the octahedral map): they must agree",
                        values[b]
                    )
                })?;
            }
        }
        validation::reaches_rotations("independent", &independent)
    }

    fn label(&self) -> String {
        format!(
            "box coupled to the parent ({0}×{0})",
            self.record.resolution
        )
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::Full
    }

    fn examples() -> Vec<CoupledLimit> {
        // The child may bend further the more the parent bone swings away from its axis.
        let parent_axis = Vec3::new(0.0, -1.0, 0.0);
        let frame = Frame {
            center: Vec3::new(0.3, 0.0, 0.0),
            rotation: glam::Mat3::from_rotation_z(0.4),
        };
        let resolution = 4;
        let map = OctahedralMap {
            basis: crate::region::swing_basis(parent_axis),
        };
        let side = resolution + 1;
        let (mut min, mut max) = (Vec::new(), Vec::new());
        for row in 0..side {
            for column in 0..side {
                let p = VertexGrid::vertex_position(resolution, column, row);
                let swing = map.to_sphere(p).angle_between(parent_axis);
                min.push(Vec3::new(-0.4, -0.2, -0.3));
                max.push(Vec3::new(0.2 + 0.5 * swing, 0.3, 0.3 + 0.1 * swing));
            }
        }
        let independent = BoxShape {
            frame,
            min: Vec3::new(-0.4, -0.2, -0.3),
            max: Vec3::new(
                0.2 + 0.5 * std::f32::consts::PI,
                0.3,
                0.3 + 0.1 * std::f32::consts::PI,
            ),
        };
        let record = CoupledRecord {
            parent_reference: Quat::from_rotation_x(0.2),
            parent_axis,
            frame,
            resolution,
            min,
            max,
            independent,
        };
        vec![CoupledLimit::new(record).expect("a valid example")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rotation(v: [f32; 4]) -> Quat {
        Quat::from_array(v).normalize()
    }

    /// The shortcut for allowed children gives the box's own projection's answer, bit for bit,
    /// and the inside test agrees with it: Haar-random parents and children, children near the
    /// selected box's faces, no parent and a NaN one.
    #[test]
    fn allowed_children_are_answered_as_the_selected_box_answers_them() {
        let limit = &CoupledLimit::examples()[0];
        let mut random = crate::measure::SeededRandom::new(0xC0DE);
        let (mut allowed, mut refused) = (0, 0);
        for i in 0..20_000 {
            let parent = match i % 10 {
                0 => None,
                1 => Some(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)),
                _ => Some(random.rotation()),
            };
            let context = LimitContext { parent };
            let shape = limit.box_for(&context);
            let child = if i % 2 == 0 {
                random.rotation()
            } else {
                // A point of the box's frame a little inside or outside one of its faces.
                let t = Vec3::new(
                    random.next_unit() as f32,
                    random.next_unit() as f32,
                    random.next_unit() as f32,
                );
                let mut local = shape.min + (shape.max - shape.min) * t;
                let axis = i / 2 % 3;
                local[axis] = if i % 4 == 1 {
                    shape.min[axis]
                } else {
                    shape.max[axis]
                } + 1e-4 * (random.next_unit() as f32 - 0.5);
                crate::rotation::from_scaled_angle_axis(shape.frame.to_world(local))
            };
            let answer = limit.nearest(child, &context);
            let by_box = FullLimit::new(Shape::Box(shape)).nearest(child, &LimitContext::NONE);
            assert_eq!(answer, by_box, "{child:?} with parent {parent:?}");
            assert_eq!(limit.contains(child, &context), answer.inside);
            if answer.inside {
                allowed += 1;
            } else {
                refused += 1;
            }
        }
        assert!(
            allowed > 2000 && refused > 2000,
            "{allowed} allowed, {refused} refused"
        );
    }

    #[test]
    fn boxes_that_differ_across_a_fold_of_the_map_are_refused() {
        // Vertices 0 and 4 of a 4-cell grid are one parent direction (the square's outer edge
        // folds onto itself): a child's range must not jump as the parent crosses there.
        let record = CoupledLimit::examples()[0].record().clone();
        assert!(CoupledLimit::new(record.clone()).is_ok());
        let mut edited = record.clone();
        edited.max[4].x = edited.min[4].x + 0.01;
        let error = CoupledLimit::new(edited).unwrap_err().to_string();
        assert!(
            error.contains("max[4]") && error.contains("fold"),
            "{error}"
        );
    }

    #[test]
    fn a_parent_box_beyond_the_independent_box_is_refused() {
        let record = CoupledLimit::examples()[0].record().clone();
        let mut above = record.clone();
        above.max[3].y = record.independent.max.y + 0.3;
        let error = CoupledLimit::new(above).unwrap_err().to_string();
        assert!(
            error.contains("max[3]") && error.contains("above"),
            "{error}"
        );
        let mut below = record.clone();
        below.min[5].x = record.independent.min.x - 1e-6;
        let error = CoupledLimit::new(below).unwrap_err().to_string();
        assert!(
            error.contains("min[5]") && error.contains("below"),
            "{error}"
        );
        let mut moved = record;
        moved.independent.frame.center.x += 0.1;
        let error = CoupledLimit::new(moved).unwrap_err().to_string();
        assert!(error.contains("independent.frame"), "{error}");
    }

    proptest! {
        #[test]
        fn answers_given_a_parent_are_allowed_given_that_parent(
            parent in prop::array::uniform4(-1.0f32..1.0),
            child in prop::array::uniform4(-1.0f32..1.0),
        ) {
            prop_assume!(Vec4::from(parent).length() > 0.1 && Vec4::from(child).length() > 0.1);
            let limit = &CoupledLimit::examples()[0];
            let context = LimitContext { parent: Some(rotation(parent)) };
            let child = rotation(child);
            let answer = limit.nearest(child, &context);
            let again = limit.nearest(answer.relative, &context);
            prop_assert!(again.inside || again.violation <= 2e-5, "{}", again.violation);
            if answer.inside {
                prop_assert_eq!(answer.relative, child);
            }
            // The parent's box lies within the independent one: what it allows, so does that.
            if answer.inside {
                prop_assert!(limit.nearest(child, &LimitContext::NONE).inside);
            }
        }
    }
}
