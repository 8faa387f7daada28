//! Fitting a child joint's limit coupled to its parent ([`crate::coupled`]) from the frames of
//! both.

use glam::{DVec3, Quat, Vec3};

use super::FitError;
use crate::coupled::{CoupledLimit, CoupledRecord};
use crate::region::swing_basis;
use crate::rotation::quat_abs;
use crate::shape::{BoxShape, Frame};
use crate::space::full_point;
use crate::table::{OctahedralMap, VertexGrid};

/// The default grid: 4 cells per side over the whole sphere of parent directions (cells about
/// 50° across). Measured on the fixtures' elbows and knees, leaving each clip out in turn, finer
/// grids condition on parent directions too finely to carry over to unseen motion: at 8 cells the
/// boxes lose 0.6 points of unseen frames, at 4 cells 0.2.
pub const DEFAULT_COUPLING_RESOLUTION: usize = 4;

/// The default coupling margin, degrees ([`fit_coupled`]): the room each parent direction's box
/// gets beyond the padding, towards the independent box. Measured as above, at 2° padding it
/// keeps all but 0.02 points of the unseen frames the independent box accepts while accepting
/// about a tenth fewer random (parent, child) pairs.
pub const DEFAULT_COUPLING_MARGIN_DEGREES: f64 = 10.0;

/// A vertex's box comes from at least this many frames; where fewer lie near it the
/// neighbourhood widens, so that a parent direction far from every recorded one takes the box of
/// the nearest recorded ones rather than the independent box (measured on the fixtures: a
/// quarter fewer random pairs accepted, no unseen frame lost).
const FEWEST_FRAMES: usize = 100;

/// The widest neighbourhood a vertex gathers frames from, radians: the whole sphere, so only a
/// joint with fewer than [`FEWEST_FRAMES`] frames in all takes the independent box.
const WIDEST_NEIGHBOURHOOD: f32 = std::f32::consts::PI;

/// Fits the child's limit coupled to its parent: `child` are the child's reference-relative
/// rotations and `parent_local` the parent's local rotations in the same frames;
/// `parent_reference` and `parent_axis` are the parent's reference and bone axis.
///
/// The independent box holds every sample, grown by `padding`. Each vertex of a `resolution`²
/// grid over the parent's directions gets the box (in the principal frame of all the child's
/// samples) of the child's samples whose parent direction lies within the farthest corner of any
/// cell touching the vertex (widened until at least 100 frames lie there), grown by `padding`
/// plus the coupling `margin` and cut to the independent box. So every sample lies in the box
/// interpolated at its own parent direction, every parent's box lies within the independent one,
/// and the margin trades the two: 0 conditions most tightly on the recorded parent directions,
/// a large one (π) leaves the independent box.
pub fn fit_coupled(
    child: &[Quat],
    parent_local: &[Quat],
    parent_reference: Quat,
    parent_axis: Vec3,
    padding: f64,
    margin: f64,
    resolution: usize,
) -> Result<CoupledLimit, FitError> {
    if child.is_empty() || child.len() != parent_local.len() {
        return Err(FitError::NoSamples);
    }
    if let Some(index) = child
        .iter()
        .zip(parent_local)
        .position(|(c, p)| !c.is_finite() || !p.is_finite())
    {
        return Err(FitError::NonFinite { index });
    }
    let points: Vec<DVec3> = child
        .iter()
        .map(|&q| full_point(quat_abs(q)).as_dvec3())
        .collect();
    let frame = Frame::principal(&points);
    let local: Vec<Vec3> = frame
        .local_samples(&points)
        .into_iter()
        .map(|p| p.as_vec3())
        .collect();
    let axis = parent_axis.normalize();
    let map = OctahedralMap {
        basis: swing_basis(axis),
    };
    let directions: Vec<Vec3> = parent_local
        .iter()
        .map(|&p| ((parent_reference.conjugate() * p) * axis).normalize_or(axis))
        .collect();
    let pad = padding.max(0.0) as f32;
    let room = pad + margin.max(0.0) as f32;
    let bounds_of = |chosen: &mut dyn Iterator<Item = Vec3>| {
        chosen.fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(min, max), x| (min.min(x), max.max(x)),
        )
    };
    let (all_min, all_max) = bounds_of(&mut local.iter().copied());
    let (all_min, all_max) = (all_min - pad, all_max + pad);
    let side = resolution + 1;
    let vertex = |column: usize, row: usize| {
        map.to_sphere(VertexGrid::vertex_position(resolution, column, row))
    };
    // Each vertex's reach: the farthest point of any cell it is a corner of, over a 3 × 3
    // lattice of the cell (its corners alone are one direction in a grid of one cell, the
    // sphere's far pole, where the cell covers the whole sphere).
    let mut reach = vec![0.0f32; side * side];
    for row in 0..resolution {
        for column in 0..resolution {
            let corner = VertexGrid::vertex_position(resolution, column, row);
            let step = 1.0 / resolution as f32;
            let lattice: [Vec3; 9] = std::array::from_fn(|k| {
                let offset = glam::Vec2::new((k % 3) as f32, (k / 3) as f32) * step;
                map.to_sphere(corner + offset)
            });
            for (c, r) in [
                (column, row),
                (column + 1, row),
                (column, row + 1),
                (column + 1, row + 1),
            ] {
                let at = vertex(c, r);
                for &point in &lattice {
                    reach[r * side + c] = reach[r * side + c].max(at.angle_between(point));
                }
            }
        }
    }
    let (mut min, mut max) = (
        Vec::with_capacity(side * side),
        Vec::with_capacity(side * side),
    );
    for row in 0..side {
        for column in 0..side {
            let at = vertex(column, row);
            let mut radius = reach[row * side + column] * 1.01 + 1e-4;
            let bounds = loop {
                let near = directions
                    .iter()
                    .zip(&local)
                    .filter(|(d, _)| d.angle_between(at) <= radius)
                    .map(|(_, &x)| x);
                let count = near.clone().count();
                if count >= FEWEST_FRAMES {
                    let (lo, hi) = bounds_of(&mut near.into_iter());
                    break ((lo - room).max(all_min), (hi + room).min(all_max));
                }
                if radius >= WIDEST_NEIGHBOURHOOD {
                    break (all_min, all_max);
                }
                radius = (radius * 1.5).min(WIDEST_NEIGHBOURHOOD);
            };
            min.push(bounds.0);
            max.push(bounds.1);
        }
    }
    merge_fold_partners(&mut min, &mut max, resolution);
    let record = CoupledRecord {
        parent_reference: parent_reference.normalize(),
        parent_axis: axis,
        frame,
        resolution,
        min,
        max,
        independent: BoxShape {
            frame,
            min: all_min,
            max: all_max,
        },
    };
    CoupledLimit::new(record).map_err(|e| FitError::Coupled(e.to_string()))
}

/// Gives the vertices that are one parent direction (fold partners on the square's outer edges,
/// and its four corners) the union of their boxes: their neighbourhoods are gathered around
/// positions that differ by rounding, from reaches that differ with the cells each touches, and
/// boxes that differ there would make the child's range jump as the parent crosses a fold. A
/// union still holds every sample its parts held, within the independent box.
fn merge_fold_partners(min: &mut [Vec3], max: &mut [Vec3], resolution: usize) {
    // Twice: the corners are paired with the first one, so the second pass spreads their union.
    for _ in 0..2 {
        for (a, b) in crate::table::swing_set::fold_pairs(resolution) {
            let (low, high) = (min[a].min(min[b]), max[a].max(max[b]));
            (min[a], min[b], max[a], max[b]) = (low, low, high, high);
        }
    }
}
