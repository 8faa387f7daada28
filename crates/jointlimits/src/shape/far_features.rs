//! A grid around a polytope naming, per cell, the features (faces, edges, vertices) its points
//! project onto, so that a point outside is projected by testing one or two features instead of
//! looking a face up and walking from it.
//!
//! The points projecting onto one feature of a convex polytope form a convex region: a prism
//! over a face, a wedge along an edge, a cone at a vertex. The grid's vertices are projected once
//! (by the walk, which says where it ends), and each cell lists the features its corners project
//! onto, the most common first. Where the corners share one feature, the whole cell projects onto
//! it (the region is convex); elsewhere the listed features hold most of the cell.
//!
//! A listed feature is only a candidate. The projection tests the walk's own optimality
//! conditions for it at the point ([`Polytope::certify`]), which give the walk's answer bit for
//! bit, and a point none of its cell's features passes goes on to the walk. A cell is listed only
//! when one face plane rejects every corner by more than the inside tolerance, with a margin far
//! above the rounding of the cell lookup: a plane's height over a box is least at a corner, so
//! every point of the cell is outside by the full scan's verdict too, and the inside test never
//! changes.

use std::collections::HashMap;

use glam::{UVec3, Vec3};

use super::polytope::{Feature, Polytope};

/// Cells per side of the grid.
const CELLS: usize = 32;

/// Half the grid's side, in half sides of the polytope's bounding box (about its middle): far
/// beyond it, a point's cell is a few degrees wide as seen from the polytope, and the support
/// faces start a walk that ends at once.
const GRID_REACH: f32 = 3.0;

/// Most features a cell lists: a cell its corners split among more lies across a vertex's
/// neighbourhood, where the walk does as well.
const MOST_FEATURES: usize = 6;

/// How far beyond the inside tolerance (radians) a plane must reject every corner of a cell
/// before the cell is listed: far above the f32 rounding of a point's height and of its cell.
const OUTSIDE_MARGIN: f32 = 1e-4;

/// Per cell of a grid around a polytope, the features its points project onto.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FarFeatures {
    /// The grid's lower corner.
    origin: Vec3,
    /// Cells per unit length.
    scale: f32,
    /// Per cell (`x` fastest), its list of features in `lists` (neighbouring cells mostly share
    /// one, so each distinct list is kept once).
    cells: Vec<u16>,
    /// Each distinct list: its start in `features` (upper 24 bits) and length (lower 8); the
    /// first is the empty list, of the cells not listed.
    lists: Vec<u32>,
    features: Vec<Feature>,
}

impl FarFeatures {
    /// The grid around `polytope`.
    ///
    /// Built on one thread: it is built on first use, possibly inside a parallel job, where
    /// parallel work could run another job needing the same grid on this thread while it waits.
    pub(crate) fn new(polytope: &Polytope) -> FarFeatures {
        let (low, high) = polytope
            .vertices()
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let half_side = (0.5 * (high - low).max_element()).max(1e-6) * GRID_REACH;
        let origin = 0.5 * (low + high) - Vec3::splat(half_side);
        let scale = CELLS as f32 / (2.0 * half_side);
        let side = CELLS + 1;
        let corner_at = |i: usize, j: usize, k: usize| {
            origin + UVec3::new(i as u32, j as u32, k as u32).as_vec3() / scale
        };
        let corner_features: Vec<Option<Feature>> = (0..side * side * side)
            .map(|index| {
                let (i, j, k) = (index % side, index / side % side, index / (side * side));
                polytope.nearest_feature(corner_at(i, j, k))
            })
            .collect();
        let mut grid = FarFeatures {
            origin,
            scale,
            cells: Vec::with_capacity(CELLS * CELLS * CELLS),
            lists: vec![0],
            features: Vec::new(),
        };
        let mut known: HashMap<Vec<Feature>, u16> = HashMap::from([(Vec::new(), 0)]);
        for k in 0..CELLS {
            for j in 0..CELLS {
                for i in 0..CELLS {
                    let corners = (0..8).map(|c| {
                        let (a, b, c) = (i + (c & 1), j + (c >> 1 & 1), k + (c >> 2));
                        (
                            corner_at(a, b, c),
                            corner_features[(c * side + b) * side + a],
                        )
                    });
                    let mut listed = cell_features(polytope, corners);
                    if known.len() > usize::from(u16::MAX) && !known.contains_key(&listed) {
                        listed.clear();
                    }
                    let list = *known.entry(listed).or_insert_with_key(|listed| {
                        grid.lists
                            .push(((grid.features.len() as u32) << 8) | listed.len() as u32);
                        grid.features.extend(listed);
                        (grid.lists.len() - 1) as u16
                    });
                    grid.cells.push(list);
                }
            }
        }
        grid
    }

    /// The features listed for the cell holding `x` (none off the grid, or for a `x` that is not
    /// finite).
    #[inline]
    pub(crate) fn candidates(&self, x: Vec3) -> &[Feature] {
        let at = (x - self.origin) * self.scale;
        // Comparisons a NaN fails.
        if !(at.cmpge(Vec3::ZERO).all() && at.cmplt(Vec3::splat(CELLS as f32)).all()) {
            return &[];
        }
        let last = CELLS - 1;
        let (i, j, k) = (
            (at.x as usize).min(last),
            (at.y as usize).min(last),
            (at.z as usize).min(last),
        );
        let list = self.lists[usize::from(self.cells[(k * CELLS + j) * CELLS + i])];
        let start = (list >> 8) as usize;
        &self.features[start..start + (list & 0xff) as usize]
    }

    /// Memory held, in bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.cells.as_slice())
            + std::mem::size_of_val(self.lists.as_slice())
            + std::mem::size_of_val(self.features.as_slice())
    }
}

/// The features a cell lists, the most common among its corners first: none when a corner has
/// no feature (inside, or undecided by the walk), when the corners name more than
/// [`MOST_FEATURES`], or when no face plane of theirs rejects every corner by the margin.
fn cell_features(
    polytope: &Polytope,
    corners: impl Iterator<Item = (Vec3, Option<Feature>)>,
) -> Vec<Feature> {
    let mut points = Vec::with_capacity(8);
    let mut counted: Vec<(Feature, usize)> = Vec::new();
    for (point, feature) in corners {
        let Some(feature) = feature else {
            return Vec::new();
        };
        points.push(point);
        match counted.iter_mut().find(|(f, _)| *f == feature) {
            Some((_, count)) => *count += 1,
            None => counted.push((feature, 1)),
        }
    }
    if counted.len() > MOST_FEATURES {
        return Vec::new();
    }
    let rejected = counted
        .iter()
        .flat_map(|&(feature, _)| polytope.faces_of(feature))
        .any(|face| {
            points.iter().all(|&point| {
                polytope.height(face, point) > Polytope::INSIDE_TOLERANCE + OUTSIDE_MARGIN
            })
        });
    if !rejected {
        return Vec::new();
    }
    counted.sort_by_key(|&(_, count)| std::cmp::Reverse(count));
    counted.into_iter().map(|(feature, _)| feature).collect()
}
