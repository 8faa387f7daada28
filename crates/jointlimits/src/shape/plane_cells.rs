//! A grid over a polytope's bounding box that says, per cell, which face planes can decide
//! whether a point of the cell is inside: the inside test of a point then looks at those few
//! planes instead of every face.
//!
//! For each cell (grown by [`CELL_SLACK`]) and each face plane `n·x ≤ b`, the height `n·x − b` over
//! the cell lies in `n·c − b ± Σᵢ|nᵢ|hᵢ` (centre `c`, half-size `h`). A plane whose largest height
//! there is below minus the slack holds the whole cell and cannot reject a point in it; a plane
//! whose smallest height is above the slack rejects every point of the cell; the others are
//! the cell's deciding planes. A point's own f32 height differs from the exact one by far less
//! than the slack, so testing only the deciding planes gives the same verdict, bit for bit, as
//! testing every face.
//!
//! A cell every point of which lies outside keeps the plane that rejects it by the most at its
//! centre: the face a projection's walk starts from for points there, which they surely rise
//! above.

use glam::{DVec3, Vec3};

/// How far cells are grown, and how clearly a plane must hold or reject a cell before it is left
/// out of the cell's list, per unit of the polytope's largest coordinate (at least 1): far above
/// the f32 rounding of a height (a few 1e-7 per unit) and of the cell lookup.
const CELL_SLACK: f64 = 1e-4;

/// Cells per axis.
const CELLS: usize = 16;

/// The planes that decide the inside test in each cell of a grid over a polytope's bounding box.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlaneCells {
    /// The grid's lower corner.
    origin: Vec3,
    /// Cells per unit length along each axis.
    scale: Vec3,
    /// Per cell, the range of `planes` holding its deciding planes; a cell every point of which
    /// is outside has [`OUTSIDE`] as its start and the face rejecting it by the most as its end.
    ranges: Vec<(u32, u32)>,
    /// The cells' deciding planes, as face indices.
    planes: Vec<u16>,
}

/// The verdict of a cell: every point of it is outside.
const OUTSIDE: u32 = u32::MAX;

/// What a cell says about a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum CellVerdict<'a> {
    /// The point is inside exactly when it is inside these planes.
    Decided(&'a [u16]),
    /// The point is outside, above this face by far more than the inside tolerance.
    Outside(u16),
    /// The point is off the grid (or not finite): the grid cannot tell.
    Unknown,
}

impl PlaneCells {
    /// The grid for the polytope `{x : normalsᵢ·x ≤ offsetsᵢ}` with the given vertices, or `None`
    /// when it has too many faces to index by `u16` or no extent.
    pub(crate) fn new(normals: &[Vec3], offsets: &[f32], vertices: &[Vec3]) -> Option<PlaneCells> {
        if normals.len() > usize::from(u16::MAX) || vertices.is_empty() {
            return None;
        }
        let (low, high) = vertices
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let extent = (high - low).as_dvec3();
        if !(extent.is_finite() && extent.min_element() > 0.0) {
            return None;
        }
        let largest = low.abs().max(high.abs()).max_element();
        let slack = CELL_SLACK * f64::from(largest).max(1.0);
        let cell_size = extent / CELLS as f64;
        let half = cell_size * 0.5 + DVec3::splat(slack);
        let mut cells = PlaneCells {
            origin: low,
            scale: (DVec3::splat(CELLS as f64) / extent).as_vec3(),
            ranges: Vec::with_capacity(CELLS * CELLS * CELLS),
            planes: Vec::new(),
        };
        for k in 0..CELLS {
            for j in 0..CELLS {
                for i in 0..CELLS {
                    let centre = low.as_dvec3()
                        + cell_size * (DVec3::new(i as f64, j as f64, k as f64) + 0.5);
                    cells.add_cell(normals, offsets, centre, half, slack);
                }
            }
        }
        Some(cells)
    }

    /// Appends the cell of `centre` and half-size `half` (already grown by the `slack`).
    fn add_cell(
        &mut self,
        normals: &[Vec3],
        offsets: &[f32],
        centre: DVec3,
        half: DVec3,
        slack: f64,
    ) {
        let first = self.planes.len();
        // The plane rejecting the whole cell by the most at its centre, if any.
        let mut rejecting: Option<(usize, f64)> = None;
        for (face, (n, &b)) in normals.iter().zip(offsets).enumerate() {
            let n = n.as_dvec3();
            let middle = n.dot(centre) - f64::from(b);
            let spread = n.abs().dot(half);
            if middle - spread > slack {
                if rejecting.is_none_or(|(_, most)| middle > most) {
                    rejecting = Some((face, middle));
                }
            } else if middle + spread >= -slack {
                self.planes.push(face as u16);
            }
        }
        match rejecting {
            Some((face, _)) => {
                self.planes.truncate(first);
                self.ranges.push((OUTSIDE, face as u32));
            }
            None => self.ranges.push((first as u32, self.planes.len() as u32)),
        }
    }

    /// The verdict for the point `x`.
    #[inline]
    pub(crate) fn verdict(&self, x: Vec3) -> CellVerdict<'_> {
        let cell = (x - self.origin) * self.scale;
        // Also false for NaN: such points take the full scan.
        let on_grid = cell.cmpge(Vec3::ZERO).all() && cell.cmplt(Vec3::splat(CELLS as f32)).all();
        if !on_grid {
            return CellVerdict::Unknown;
        }
        self.cell_verdict(cell)
    }

    /// What the grid cell nearest the finite point `x` says, for a point off the grid: not a
    /// verdict on `x`, but its planes are the faces most likely to face it.
    #[inline]
    pub(crate) fn nearest_cell(&self, x: Vec3) -> CellVerdict<'_> {
        let cell = (x - self.origin) * self.scale;
        // Just inside the last cell's upper side, so that truncation stays on the grid.
        self.cell_verdict(cell.clamp(Vec3::ZERO, Vec3::splat(CELLS as f32 - 0.5)))
    }

    /// The verdict of the cell holding grid point `cell` (cell units, on the grid).
    #[inline(always)]
    fn cell_verdict(&self, cell: Vec3) -> CellVerdict<'_> {
        let (i, j, k) = (cell.x as usize, cell.y as usize, cell.z as usize);
        let index = (k * CELLS + j) * CELLS + i;
        match self.ranges[index] {
            (OUTSIDE, face) => CellVerdict::Outside(face as u16),
            (start, end) => CellVerdict::Decided(&self.planes[start as usize..end as usize]),
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;
    use proptest::prelude::*;

    use crate::shape::Polytope;
    use crate::shape::kdop::KdopDirections;

    /// Every face of `polytope` tested, as without the grid.
    fn inside_every_face(polytope: &Polytope, x: glam::Vec3) -> bool {
        polytope
            .planes()
            .all(|(n, b)| n.dot(x) - b <= Polytope::INSIDE_TOLERANCE)
    }

    fn polytopes() -> Vec<Polytope> {
        let cloud: Vec<DVec3> = (0..300)
            .map(|i| {
                let t = f64::from(i) * 0.37;
                DVec3::new(1.1 * t.sin(), 0.7 * (1.3 * t).cos(), 0.4 * (2.9 * t).sin())
                    + DVec3::new(0.3, -0.2, 0.1)
            })
            .collect();
        let directions = KdopDirections::Thirteen.vectors();
        let bounds: Vec<f64> = directions
            .iter()
            .map(|d| cloud.iter().map(|p| d.dot(*p)).fold(f64::MIN, f64::max))
            .chain(
                directions
                    .iter()
                    .map(|d| cloud.iter().map(|p| -d.dot(*p)).fold(f64::MIN, f64::max)),
            )
            .collect();
        let both: Vec<DVec3> = directions
            .iter()
            .copied()
            .chain(directions.iter().map(|d| -*d))
            .collect();
        vec![
            Polytope::hull(&cloud).unwrap(),
            Polytope::from_halfspaces(&both, &bounds).unwrap(),
        ]
    }

    proptest! {
        /// The grid's verdict equals the full scan's for points all over the grid and around it,
        /// and for points pushed onto face planes (within rounding of the boundary).
        #[test]
        fn the_grid_decides_as_every_face_does(
            a in 0usize..1000, b in 0usize..1000, t in -0.3f32..1.3,
            face in 0usize..1000, nudge in -1e-5f32..1e-5,
        ) {
            for polytope in polytopes() {
                assert!(polytope.has_cells());
                let vertices = polytope.vertices();
                let (from, to) = (vertices[a % vertices.len()], vertices[b % vertices.len()]);
                // Chords between vertices cross the whole polytope and leave it at both ends.
                let p = from + (to - from) * t;
                prop_assert_eq!(polytope.contains(p), inside_every_face(&polytope, p));
                prop_assert_eq!(polytope.project(p).is_none(), inside_every_face(&polytope, p));
                let (n, offset) = polytope.planes().nth(face % polytope.face_count()).unwrap();
                let on_plane = p - n * (n.dot(p) - offset - nudge);
                prop_assert_eq!(polytope.contains(on_plane), inside_every_face(&polytope, on_plane));
            }
        }
    }
}
