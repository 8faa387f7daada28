//! The boundary of a table's allowed directions as a chain of short great-circle arcs, with a
//! hint per grid vertex, so that the nearest boundary point to a direction is found in a few
//! steps.
//!
//! The boundary is where the bilinear interpolation of the vertex values crosses zero. On every
//! cell edge whose ends differ in sign it crosses once (linear along the edge); within a cell the
//! crossings are joined in pairs (marching squares, with the cell's mean deciding a saddle). Each
//! joint is one point shared by the two arcs on either side of it, including across the square's
//! folded outer edges, so the arcs form closed chains. The arcs lie within a fraction of a cell of
//! the smooth zero curve; a correction found on them is moved onto the curve afterwards.
//!
//! Hints: for every vertex, the arc nearest to its direction, propagated from the arcs' own cells
//! outwards over the grid (and across its folds) in order of distance, each vertex offering its
//! arc to its neighbours (vector propagation, Danielsson 1980, here with true angles on the
//! sphere). A query starts from the hints of its cell's four corners and walks along the chain
//! while that brings it nearer.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::{Vec2, Vec3};

use super::grid::VertexGrid;
use super::octahedral::OctahedralMap;

/// Arcs per cell crossing: the points between are put on the curve, so the arcs stay within
/// `1/SUBDIVISIONS²` of a single chord's distance from it.
pub(crate) const SUBDIVISIONS: usize = 4;

/// Arcs a walk goes on past without finding a nearer point before it stops.
const LOOK_AHEAD: usize = 3 * SUBDIVISIONS;

/// No arc (a vertex of a table with no boundary, or an arc end with no neighbour).
const NONE: u32 = u32::MAX;

/// The most arcs a walk along the chain may take: far more than a correction ever needs
/// (it starts within about a cell of the answer), and a bound on the work.
const MAX_WALK: usize = 256;

/// The boundary chains of a table and the per-vertex hints (module docs).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BoundaryChains {
    /// The points where the boundary crosses cell edges, on the sphere.
    points: Vec<Vec3>,
    /// Each arc's two points (indices into `points`).
    arcs: Vec<[u32; 2]>,
    /// For each point, the arcs that end there (two on a closed chain).
    arcs_at_point: Vec<[u32; 2]>,
    /// For each arc, the planes that locate a direction's nearest point on it.
    planes: Vec<ArcPlanes>,
    /// For each vertex, the nearest arc ([`NONE`] when there is no boundary).
    hints: Vec<u32>,
    /// For each cell, the arcs a correction starts from ([`CellHints`]).
    cell_hints: CellHints,
}

/// For each cell, the arcs a correction starts from: the distinct hints of the vertices within
/// one vertex of its corners, nearest its centre first, up to [`CELL_HINTS`]. Stored one cell
/// after another (most cells have one or two, a tenth of the fixed slots' memory).
#[derive(Clone, Debug, PartialEq, Default)]
struct CellHints {
    /// Where each cell's arcs start in `arcs`, and at the end their count (`n² + 1` entries).
    starts: Vec<u32>,
    /// The cells' arcs, one cell after another.
    arcs: Vec<u32>,
}

impl CellHints {
    /// The starting arcs of cell `cell`, nearest its centre first.
    #[inline]
    fn of(&self, cell: usize) -> &[u32] {
        &self.arcs[self.starts[cell] as usize..self.starts[cell + 1] as usize]
    }
}

/// The most arcs a cell's walks remember having looked at (later ones are walked again, which
/// costs time, not accuracy).
const VISITED: usize = 96;

/// The most starting arcs kept per cell.
pub const CELL_HINTS: usize = 8;

/// The planes of one arc `a → b`: its great circle's unit normal `n`, and the normals `n × a`
/// and `b × n` of the planes through its ends, orthogonal to it. A unit direction `p` projects
/// onto the arc between its ends when `p·(n × a) ≥ 0` and `p·(b × n) ≥ 0`, and then its cosine
/// with the projection is `√(1 − (p·n)²)`: no normalisation is needed to compare arcs.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct ArcPlanes {
    normal: Vec3,
    past_start: Vec3,
    before_end: Vec3,
}

/// The nearest point of an arc to a direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArcPoint {
    /// The point, on the sphere.
    pub point: Vec3,
    /// Its cosine with the direction (larger is nearer).
    pub cosine: f32,
    /// The arc.
    pub arc: u32,
}

impl BoundaryChains {
    /// The chains of the zero curve of `values` on `map`'s square (values at folded edge
    /// vertices must agree, as [`super::SwingSet::new`] makes them).
    pub fn new(map: &OctahedralMap, values: &VertexGrid) -> BoundaryChains {
        BoundaryChains::traced(map, values)
    }

    /// The chains of the boundary that `source` locates on `map`'s square (its inside test must
    /// agree at folded edge vertices).
    pub fn traced(map: &OctahedralMap, source: &impl BoundarySource) -> BoundaryChains {
        let n = source.resolution();
        let side = n + 1;
        let inside = |column: usize, row: usize| source.inside(column, row);

        // Edge ids: horizontal edges (column..column+1, row) first, then vertical ones.
        let horizontal = |column: usize, row: usize| row * n + column;
        let vertical = |column: usize, row: usize| side * n + column * n + row;
        // An outer edge and its fold partner are one place on the sphere: one id for both.
        let canonical = |edge: usize| -> usize {
            let partner = if edge < side * n {
                let (row, column) = (edge / n, edge % n);
                (row == 0 || row == n).then(|| horizontal(n - 1 - column, row))
            } else {
                let (column, row) = ((edge - side * n) / n, (edge - side * n) % n);
                (column == 0 || column == n).then(|| vertical(column, n - 1 - row))
            };
            partner.map_or(edge, |p| p.min(edge))
        };

        let mut point_of_edge = vec![NONE; 2 * side * n];
        let mut points = Vec::new();
        let mut squares = Vec::new();

        let mut arcs: Vec<[u32; 2]> = Vec::new();
        let mut cell_arcs: Vec<(usize, u32)> = Vec::new();
        for row in 0..n {
            for column in 0..n {
                let corners = [
                    inside(column, row),
                    inside(column + 1, row),
                    inside(column + 1, row + 1),
                    inside(column, row + 1),
                ];
                if corners.iter().all(|&c| c == corners[0]) {
                    continue;
                }
                // Crossings in order round the cell: bottom, right, top, left.
                let sides = [
                    (
                        horizontal(column, row),
                        (column, row),
                        (column + 1, row),
                        0,
                        1,
                    ),
                    (
                        vertical(column + 1, row),
                        (column + 1, row),
                        (column + 1, row + 1),
                        1,
                        2,
                    ),
                    (
                        horizontal(column, row + 1),
                        (column, row + 1),
                        (column + 1, row + 1),
                        3,
                        2,
                    ),
                    (
                        vertical(column, row),
                        (column, row),
                        (column, row + 1),
                        0,
                        3,
                    ),
                ];
                let mut found = [(0usize, 0u32); 4];
                let mut count = 0;
                for (side_index, &(edge, from, to, a, b)) in sides.iter().enumerate() {
                    if corners[a] != corners[b] {
                        let id = canonical(edge);
                        if point_of_edge[id] == NONE {
                            let p = source.crossing(from, to);
                            point_of_edge[id] = points.len() as u32;
                            points.push(map.to_sphere(p));
                            squares.push(p);
                        }
                        found[count] = (side_index, point_of_edge[id]);
                        count += 1;
                    }
                }
                let cell = row * n + column;
                let mut push = |a: u32, b: u32| {
                    // Intermediate points on the curve, so the arcs follow it closely.
                    let (from, to) = (squares[a as usize], squares[b as usize]);
                    let normal = (to - from).perp().normalize_or_zero();
                    let mut previous = a;
                    for k in 1..=SUBDIVISIONS {
                        let next = if k == SUBDIVISIONS {
                            b
                        } else {
                            let t = k as f32 / SUBDIVISIONS as f32;
                            let on = source.onto_boundary(from.lerp(to, t), normal);
                            points.push(map.to_sphere(on));
                            squares.push(on);
                            (points.len() - 1) as u32
                        };
                        cell_arcs.push((cell, arcs.len() as u32));
                        arcs.push([previous, next]);
                        previous = next;
                    }
                };
                if count == 2 {
                    push(found[0].1, found[1].1);
                } else {
                    // A saddle: bottom-left and top-right share a sign. When the cell's middle
                    // has it too they are joined through it, and the arcs cut off the other two
                    // corners (bottom-right between bottom and right, top-left between top and
                    // left); otherwise the arcs cut off these two.
                    let [bottom, right, top, left] = found.map(|f| f.1);
                    if source.middle_inside(column, row) == corners[0] {
                        push(bottom, right);
                        push(top, left);
                    } else {
                        push(bottom, left);
                        push(right, top);
                    }
                }
            }
        }

        let mut arcs_at_point = vec![[NONE; 2]; points.len()];
        for (index, arc) in arcs.iter().enumerate() {
            for &point in arc {
                let slot = &mut arcs_at_point[point as usize];
                if slot[0] == NONE {
                    slot[0] = index as u32;
                } else {
                    slot[1] = index as u32;
                }
            }
        }
        let planes = arcs
            .iter()
            .map(|&[a, b]| {
                let (a, b) = (points[a as usize], points[b as usize]);
                let normal = a.cross(b).normalize_or_zero();
                ArcPlanes {
                    normal,
                    past_start: normal.cross(a),
                    before_end: b.cross(normal),
                }
            })
            .collect();
        let mut chains = BoundaryChains {
            points,
            arcs,
            arcs_at_point,
            planes,
            hints: Vec::new(),
            cell_hints: CellHints::default(),
        };
        chains.hints = chains.propagate_hints(map, n, &cell_arcs);
        chains.cell_hints = chains.gather_cell_hints(map, n);
        chains
    }

    /// Every vertex's nearest arc, by vector propagation from the arcs' cells (module docs).
    fn propagate_hints(
        &self,
        map: &OctahedralMap,
        n: usize,
        cell_arcs: &[(usize, u32)],
    ) -> Vec<u32> {
        let side = n + 1;
        let mut propagation = Propagation {
            chains: self,
            directions: (0..side * side)
                .map(|i| map.to_sphere(VertexGrid::vertex_position(n, i % side, i / side)))
                .collect(),
            hints: vec![NONE; side * side],
            best: vec![f32::INFINITY; side * side],
            queue: BinaryHeap::new(),
        };
        for &(cell, arc) in cell_arcs {
            let (column, row) = (cell % n, cell / n);
            for (c, r) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                propagation.offer((row + r) * side + column + c, arc);
            }
        }
        let mut settled = vec![false; side * side];
        while let Some(Reverse((_, vertex))) = propagation.queue.pop() {
            let vertex = vertex as usize;
            if std::mem::replace(&mut settled[vertex], true) {
                continue;
            }
            let arc = propagation.hints[vertex];
            for neighbour in neighbours(n, vertex) {
                propagation.offer(neighbour, arc);
            }
        }
        propagation.hints
    }

    /// The nearest boundary point to the direction of vertex `vertex` (`direction`), from the
    /// vertex's hint; `None` when there is no boundary.
    pub fn nearest_to_vertex(&self, direction: Vec3, vertex: usize) -> Option<ArcPoint> {
        let hint = *self.hints.get(vertex)?;
        (hint != NONE).then(|| self.nearest_on_arc(direction, hint))
    }

    /// The bytes these chains and hints hold in memory.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of_val;
        size_of_val(self.points.as_slice())
            + size_of_val(self.arcs.as_slice())
            + size_of_val(self.arcs_at_point.as_slice())
            + size_of_val(self.planes.as_slice())
            + size_of_val(self.hints.as_slice())
            + size_of_val(self.cell_hints.starts.as_slice())
            + size_of_val(self.cell_hints.arcs.as_slice())
    }

    /// Each cell's starting arcs: a query inside a cell can be nearest an arc that none of its
    /// corners is nearest (where a medial line of the region passes through the cell), so the
    /// hints of the ring of vertices around the cell join its corners'.
    fn gather_cell_hints(&self, map: &OctahedralMap, n: usize) -> CellHints {
        use rayon::prelude::*;
        let side = n + 1;
        let rows: Vec<(Vec<u32>, Vec<u32>)> = (0..n)
            .into_par_iter()
            .map(|row| {
                let (mut counts, mut arcs) = (Vec::with_capacity(n), Vec::new());
                let mut seen: Vec<(f32, u32)> = Vec::with_capacity(16);
                for column in 0..n {
                    let centre = map.to_sphere(
                        (VertexGrid::vertex_position(n, column, row)
                            + VertexGrid::vertex_position(n, column + 1, row + 1))
                            * 0.5,
                    );
                    seen.clear();
                    for r in row.saturating_sub(1)..=(row + 2).min(n) {
                        for c in column.saturating_sub(1)..=(column + 2).min(n) {
                            let hint = self.hints[r * side + c];
                            if hint != NONE && !seen.iter().any(|&(_, h)| h == hint) {
                                let distance = 1.0 - self.nearest_on_arc(centre, hint).cosine;
                                seen.push((distance, hint));
                            }
                        }
                    }
                    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
                    seen.truncate(CELL_HINTS);
                    counts.push(seen.len() as u32);
                    arcs.extend(seen.iter().map(|&(_, hint)| hint));
                }
                (counts, arcs)
            })
            .collect();
        let mut hints = CellHints {
            starts: Vec::with_capacity(n * n + 1),
            arcs: Vec::with_capacity(rows.iter().map(|(_, arcs)| arcs.len()).sum()),
        };
        hints.starts.push(0);
        for (counts, arcs) in rows {
            for count in counts {
                let last = hints.starts[hints.starts.len() - 1];
                hints.starts.push(last + count);
            }
            hints.arcs.extend(arcs);
        }
        hints
    }

    /// The cosine between the unit `direction` and its nearest point on arc `arc` (larger is
    /// nearer; see [`ArcPlanes`]).
    #[inline(always)]
    fn cosine_to_arc(&self, direction: Vec3, arc: u32) -> f32 {
        let planes = &self.planes[arc as usize];
        if direction.dot(planes.past_start) >= 0.0
            && direction.dot(planes.before_end) >= 0.0
            && planes.normal != Vec3::ZERO
        {
            let across = direction.dot(planes.normal);
            return (1.0 - across * across).max(0.0).sqrt();
        }
        let [a, b] = self.arcs[arc as usize];
        direction
            .dot(self.points[a as usize])
            .max(direction.dot(self.points[b as usize]))
    }

    /// The nearest point of arc `arc` to the unit `direction`: the direction's projection onto
    /// the arc's great circle when it falls between the ends, else the nearer end.
    #[inline]
    pub fn nearest_on_arc(&self, direction: Vec3, arc: u32) -> ArcPoint {
        let planes = &self.planes[arc as usize];
        if direction.dot(planes.past_start) >= 0.0
            && direction.dot(planes.before_end) >= 0.0
            && planes.normal != Vec3::ZERO
        {
            let projected = direction - planes.normal * direction.dot(planes.normal);
            if let Some(point) = projected.try_normalize() {
                return ArcPoint {
                    point,
                    cosine: point.dot(direction),
                    arc,
                };
            }
        }
        let [a, b] = self.arcs[arc as usize];
        let (a, b) = (self.points[a as usize], self.points[b as usize]);
        let (ca, cb) = (a.dot(direction), b.dot(direction));
        let (point, cosine) = if ca >= cb { (a, ca) } else { (b, cb) };
        ArcPoint { point, cosine, arc }
    }

    /// From `start`, the nearest point to `direction` found by a short walk (going on past at
    /// most one cell crossing's arcs that are no nearer): for a query known to be near `start`,
    /// such as the next step of a search moving along the boundary.
    #[inline]
    pub fn walk_near(&self, direction: Vec3, start: u32) -> ArcPoint {
        self.walk_with(direction, start, MAX_WALK, SUBDIVISIONS)
    }

    /// From `start`, the nearest point to `direction` found by walking along the chain both
    /// ways, going on past up to `look_ahead` arcs that are no nearer (so a small bump of the
    /// boundary does not stop it), at most `most` arcs each way.
    #[inline]
    fn walk_with(&self, direction: Vec3, start: u32, most: usize, look_ahead: usize) -> ArcPoint {
        self.walk_visiting(direction, start, most, look_ahead, |_| {})
    }

    /// [`BoundaryChains::walk_with`], telling `visit` every arc it looks at.
    #[inline]
    fn walk_visiting(
        &self,
        direction: Vec3,
        start: u32,
        most: usize,
        look_ahead: usize,
        mut visit: impl FnMut(u32),
    ) -> ArcPoint {
        let mut best = (self.cosine_to_arc(direction, start), start);
        visit(start);
        for end in [0, 1] {
            let (mut arc, mut point) = (start, self.arcs[start as usize][end]);
            let mut since_best = 0;
            for _ in 0..most {
                let [a, b] = self.arcs_at_point[point as usize];
                let next = if a == arc { b } else { a };
                if next == NONE || next == start {
                    break;
                }
                visit(next);
                let there = self.cosine_to_arc(direction, next);
                if there > best.0 {
                    (best, since_best) = ((there, next), 0);
                } else {
                    since_best += 1;
                    if since_best > look_ahead {
                        break;
                    }
                }
                let [p, q] = self.arcs[next as usize];
                (arc, point) = (next, if p == point { q } else { p });
            }
        }
        self.nearest_on_arc(direction, best.1)
    }

    /// The nearest boundary point to `direction` found by walking from the starting arcs of
    /// `cell`, or `None` when there is no boundary. The walks start from the nearest starting
    /// arc first; a later one is skipped when an earlier walk passed over it (the same stretch
    /// of boundary), so only separate stretches cost a walk each.
    #[inline]
    pub fn nearest_from_cell(&self, direction: Vec3, cell: usize) -> Option<ArcPoint> {
        let hints = self.cell_hints.of(cell);
        let mut starts = [(f32::NEG_INFINITY, NONE); CELL_HINTS];
        for (start, &hint) in starts.iter_mut().zip(hints) {
            *start = (self.cosine_to_arc(direction, hint), hint);
        }
        let starts = &mut starts[..hints.len()];
        starts.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let mut visited = [NONE; VISITED];
        let mut visits = 0;
        let mut best: Option<ArcPoint> = None;
        for &(_, hint) in starts.iter() {
            if visited[..visits.min(VISITED)].contains(&hint) {
                continue;
            }
            let found = self.walk_visiting(direction, hint, MAX_WALK, LOOK_AHEAD, |arc| {
                if visits < VISITED {
                    visited[visits] = arc;
                }
                visits += 1;
            });
            if best.is_none_or(|b| found.cosine > b.cosine) {
                best = Some(found);
            }
        }
        best
    }

    /// How many arcs there are.
    pub fn arc_count(&self) -> usize {
        self.arcs.len()
    }

    /// The first point of arc `arc`.
    pub fn arc_start(&self, arc: usize) -> Vec3 {
        self.points[self.arcs[arc][0] as usize]
    }

    /// Every arc as its two end points (for pictures and tests).
    pub fn arcs(&self) -> impl Iterator<Item = (Vec3, Vec3)> + '_ {
        self.arcs
            .iter()
            .map(|&[a, b]| (self.points[a as usize], self.points[b as usize]))
    }
}

/// Where a boundary lies on a grid over the square: what [`BoundaryChains::traced`] asks while
/// it traces the boundary cell by cell.
pub trait BoundarySource {
    /// Cells per side.
    fn resolution(&self) -> usize;
    /// Whether vertex `(column, row)` is inside.
    fn inside(&self, column: usize, row: usize) -> bool;
    /// The square point where the boundary crosses the edge between neighbouring vertices
    /// `from` and `to` (`(column, row)`), whose inside tests differ.
    fn crossing(&self, from: (usize, usize), to: (usize, usize)) -> Vec2;
    /// A boundary point on the line through square point `p` along the unit `normal`, within
    /// about a cell of `p` (`p` itself when there is none).
    fn onto_boundary(&self, p: Vec2, normal: Vec2) -> Vec2;
    /// Whether the middle of cell `(column, row)` is inside (asked of saddle cells only).
    fn middle_inside(&self, column: usize, row: usize) -> bool;
}

/// The zero curve of the bilinear interpolation of the values.
impl BoundarySource for VertexGrid {
    fn resolution(&self) -> usize {
        self.resolution
    }

    fn inside(&self, column: usize, row: usize) -> bool {
        self.values[row * (self.resolution + 1) + column] <= 0.0
    }

    /// Linear along the edge: the bilinear interpolation's own zero.
    fn crossing(&self, from: (usize, usize), to: (usize, usize)) -> Vec2 {
        let (n, side) = (self.resolution, self.resolution + 1);
        let (a, b) = (
            self.values[from.1 * side + from.0],
            self.values[to.1 * side + to.0],
        );
        let t = a / (a - b);
        VertexGrid::vertex_position(n, from.0, from.1)
            .lerp(VertexGrid::vertex_position(n, to.0, to.1), t)
    }

    /// Newton steps along the line.
    fn onto_boundary(&self, p: Vec2, normal: Vec2) -> Vec2 {
        let mut at = p;
        for _ in 0..8 {
            let value = self.sample(at);
            let slope = self.gradient(at).dot(normal);
            if value.abs() < 1e-8 || slope.abs() < 1e-12 {
                break;
            }
            at -= normal * (value / slope);
        }
        if (at - p).length() > self.cell_size() {
            return p;
        }
        at
    }

    /// The mean of the corners decides.
    fn middle_inside(&self, column: usize, row: usize) -> bool {
        let side = self.resolution + 1;
        let at = |c: usize, r: usize| self.values[r * side + c];
        at(column, row) + at(column + 1, row) + at(column + 1, row + 1) + at(column, row + 1) <= 0.0
    }
}

/// The state of the hint propagation: each vertex's best arc so far and the queue of vertices
/// to pass theirs on, nearest first.
struct Propagation<'a> {
    chains: &'a BoundaryChains,
    directions: Vec<Vec3>,
    hints: Vec<u32>,
    best: Vec<f32>,
    queue: BinaryHeap<Reverse<(u32, u32)>>,
}

impl Propagation<'_> {
    /// Offers `arc` to `vertex`: taken, and queued, when nearer than what it has.
    fn offer(&mut self, vertex: usize, arc: u32) {
        let distance = 1.0
            - self
                .chains
                .nearest_on_arc(self.directions[vertex], arc)
                .cosine;
        if distance < self.best[vertex] {
            self.best[vertex] = distance;
            self.hints[vertex] = arc;
            // Non-negative floats order as their bits.
            self.queue
                .push(Reverse((distance.max(0.0).to_bits(), vertex as u32)));
        }
    }
}

/// The vertices next to `vertex` on a grid of `n` cells per side: its eight grid neighbours and,
/// on the square's outer edges, its fold partner (the same direction on the other half of the
/// edge).
pub(crate) fn neighbours(n: usize, vertex: usize) -> impl Iterator<Item = usize> {
    let side = n + 1;
    let (column, row) = ((vertex % side) as i64, (vertex / side) as i64);
    let last = n as i64;
    let folds = [
        (row == 0).then(|| last - column),
        (row == last).then(|| last * (last + 1) + last - column),
        (column == 0).then(|| (last - row) * (last + 1)),
        (column == last).then(|| (last - row) * (last + 1) + last),
    ];
    grid_neighbours(n, vertex).chain(folds.into_iter().flatten().map(|v| v as usize))
}

/// The up to eight grid neighbours of `vertex` on a grid of `n` cells per side, not crossing
/// the square's folds.
pub(crate) fn grid_neighbours(n: usize, vertex: usize) -> impl Iterator<Item = usize> {
    let side = n + 1;
    let (column, row) = ((vertex % side) as i64, (vertex / side) as i64);
    let last = n as i64;
    (-1i64..=1).flat_map(move |dr| {
        (-1i64..=1).filter_map(move |dc| {
            let (c, r) = (column + dc, row + dr);
            ((dc, dr) != (0, 0) && (0..=last).contains(&c) && (0..=last).contains(&r))
                .then(|| (r * (last + 1) + c) as usize)
        })
    })
}

/// The index of the cell holding square point `p` on a grid of `resolution` cells per side.
#[inline]
pub fn cell_of(resolution: usize, p: Vec2) -> usize {
    let n = resolution;
    let scaled = (p.clamp(Vec2::splat(-1.0), Vec2::splat(1.0)) + 1.0) * (0.5 * n as f32);
    let column = (scaled.x as usize).min(n - 1);
    let row = (scaled.y as usize).min(n - 1);
    row * n + column
}

/// The vertex indices of the four corners of the cell holding square point `p`.
#[inline]
pub fn cell_corner_vertices(resolution: usize, p: Vec2) -> [usize; 4] {
    let cell = cell_of(resolution, p);
    let (column, row) = (cell % resolution, cell / resolution);
    let side = resolution + 1;
    let base = row * side + column;
    [base, base + 1, base + side, base + side + 1]
}
