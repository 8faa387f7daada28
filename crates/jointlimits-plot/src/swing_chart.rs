//! Swing charts: where a bone can point, and how much twist it keeps there.
//!
//! Directions are drawn on the Lambert azimuthal equal-area disc around the bone's reference
//! direction `b`: a direction at angle `φ` from `b` lands at radius `2·sin(φ/2)` (its chord
//! distance from `b`), so the centre is the reference direction, the rim (radius 2) the opposite
//! one, and equal areas of the disc are equal areas of the sphere: the coloured share of the disc
//! is the share of directions the limit reaches. Each cell is coloured by the share of twists
//! allowed there, found through the limit's membership test.

use glam::{Mat3, Quat, Vec2, Vec3};
use jointlimits::JointLimit;
use jointlimits::joint_limit::swing_basis;
use jointlimits::measure::tightness::{TWIST_STEPS, allowed_twist_share, pointing};
use jointlimits::{LimitContext, RotationLimit};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::figure::Figure;
use crate::style::{self, BOUNDARY, INK, sample_colour, twist_colour};

/// The equal-area disc point of the unit `direction` around the unit `axis`, with `basis`'s
/// first two columns as the disc's x and y (module docs).
pub fn disc_point(axis: Vec3, basis: &Mat3, direction: Vec3) -> Vec2 {
    let chord = (direction - axis).length();
    let planar = Vec2::new(direction.dot(basis.x_axis), direction.dot(basis.y_axis));
    match planar.try_normalize() {
        Some(towards) => towards * chord,
        // The reference direction itself, or exactly opposite (drawn at the rim's +x).
        None => Vec2::new(chord, 0.0),
    }
}

/// The unit direction at disc point `p` (radius at most 2), or `None` outside the disc.
fn disc_direction(axis: Vec3, basis: &Mat3, p: Vec2) -> Option<Vec3> {
    let chord = p.length();
    if chord > 2.0 {
        return None;
    }
    let angle = 2.0 * (chord / 2.0).asin();
    let towards = p.try_normalize().unwrap_or(Vec2::X);
    Some(
        (axis * angle.cos() + (basis.x_axis * towards.x + basis.y_axis * towards.y) * angle.sin())
            .normalize(),
    )
}

/// Whether the limit's nearest allowed rotation to the bone pointing along `direction` (the
/// centre `p` of a cell `cell` wide) points into the same cell: regions thinner than a cell (a
/// wrist's arc) still show.
fn touches_cell(
    limit: &JointLimit,
    axis: Vec3,
    basis: &Mat3,
    direction: Vec3,
    p: Vec2,
    cell: f32,
) -> bool {
    let nearest = limit
        .region
        .nearest(pointing(axis, direction, 0.0), &LimitContext::NONE);
    let reached = disc_point(axis, basis, (nearest.relative * axis).normalize());
    (reached - p).abs().max_element() <= cell / 2.0
}

/// The allowed twist share on a grid of disc cells.
#[derive(Clone, Debug, PartialEq)]
pub struct SwingMap {
    /// Cells per side of the square around the disc.
    pub resolution: usize,
    /// Row-major from the top-left, share of twists allowed; `None` outside the disc.
    pub shares: Vec<Option<f32>>,
    /// The bone's reference direction.
    pub axis: Vec3,
    /// The disc's axes (columns x, y) and the bone axis (z).
    pub basis: Mat3,
}

impl SwingMap {
    /// Maps `limit` on a `resolution`² grid around the unit `bone_axis`.
    pub fn new(limit: &JointLimit, bone_axis: Vec3, resolution: usize) -> SwingMap {
        let axis = bone_axis.normalize();
        let basis = swing_basis(axis);
        let cell = 4.0 / resolution as f32;
        let shares = (0..resolution * resolution)
            .map(|index| {
                let (column, row) = (index % resolution, index / resolution);
                let p = Vec2::new(
                    -2.0 + (column as f32 + 0.5) * cell,
                    2.0 - (row as f32 + 0.5) * cell,
                );
                disc_direction(axis, &basis, p).map(|direction| {
                    let share = allowed_twist_share(&limit.region, axis, direction, TWIST_STEPS);
                    if share == 0.0 && touches_cell(limit, axis, &basis, direction, p, cell) {
                        1.0 / TWIST_STEPS as f32
                    } else {
                        share
                    }
                })
            })
            .collect();
        SwingMap {
            resolution,
            shares,
            axis,
            basis,
        }
    }

    /// The disc point of the relative rotation `relative`'s bone direction.
    pub fn point_of(&self, relative: Quat) -> Vec2 {
        disc_point(self.axis, &self.basis, (relative * self.axis).normalize())
    }

    fn share(&self, column: usize, row: usize) -> Option<f32> {
        self.shares[row * self.resolution + column]
    }

    fn allowed(&self, column: usize, row: usize) -> bool {
        self.share(column, row).is_some_and(|s| s > 0.0)
    }
}

/// A square drawing area for a disc: its top-left pixel and side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DiscPlacement {
    pub left: i32,
    pub top: i32,
    pub side: i32,
}

impl DiscPlacement {
    /// The pixel of disc point `p`.
    pub fn pixel(&self, p: Vec2) -> (i32, i32) {
        let scale = self.side as f32 / 4.0;
        (
            self.left + (self.side as f32 / 2.0 + p.x * scale).round() as i32,
            self.top + (self.side as f32 / 2.0 - p.y * scale).round() as i32,
        )
    }

    /// The pixel edge before cell `index` of `resolution`.
    fn edge(&self, index: usize, resolution: usize) -> i32 {
        (index as f32 * self.side as f32 / resolution as f32).round() as i32
    }
}

/// Draws `map` and `samples` (disc points, inside or not) at `place`.
pub(crate) fn draw_disc<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    map: &SwingMap,
    samples: &[(Vec2, bool)],
    place: DiscPlacement,
    dot: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let n = map.resolution;
    // Cells, one rectangle per run of equal colour along a row.
    for row in 0..n {
        let (y0, y1) = (
            place.top + place.edge(row, n),
            place.top + place.edge(row + 1, n),
        );
        let mut column = 0;
        while column < n {
            let colour = map.share(column, row).map(twist_colour);
            let mut end = column + 1;
            while end < n && map.share(end, row).map(twist_colour) == colour {
                end += 1;
            }
            if let Some(colour) = colour {
                root.draw(&Rectangle::new(
                    [
                        (place.left + place.edge(column, n), y0),
                        (place.left + place.edge(end, n), y1),
                    ],
                    colour.filled(),
                ))?;
            }
            column = end;
        }
    }
    // The boundary: edges between allowed and refused cells.
    for row in 0..n {
        for column in 0..n {
            let here = map.allowed(column, row);
            let x = place.left + place.edge(column + 1, n);
            if column + 1 < n && here != map.allowed(column + 1, row) {
                let (y0, y1) = (place.edge(row, n), place.edge(row + 1, n));
                root.draw(&Rectangle::new(
                    [(x - 1, place.top + y0), (x, place.top + y1)],
                    BOUNDARY.filled(),
                ))?;
            }
            let y = place.top + place.edge(row + 1, n);
            if row + 1 < n && here != map.allowed(column, row + 1) {
                let (x0, x1) = (place.edge(column, n), place.edge(column + 1, n));
                root.draw(&Rectangle::new(
                    [(place.left + x0, y - 1), (place.left + x1, y)],
                    BOUNDARY.filled(),
                ))?;
            }
        }
    }
    // Rings every 45° of swing, and the rim.
    let centre = place.pixel(Vec2::ZERO);
    for degrees in [45.0f32, 90.0, 135.0, 180.0] {
        let radius = 2.0 * (degrees.to_radians() / 2.0).sin() * place.side as f32 / 4.0;
        root.draw(&Circle::new(
            centre,
            radius.round() as i32,
            ShapeStyle::from(&INK.mix(if degrees == 180.0 { 1.0 } else { 0.35 })),
        ))?;
    }
    root.draw(&PathElement::new(
        vec![(centre.0 - 4, centre.1), (centre.0 + 4, centre.1)],
        INK,
    ))?;
    root.draw(&PathElement::new(
        vec![(centre.0, centre.1 - 4), (centre.0, centre.1 + 4)],
        INK,
    ))?;
    // Samples: inside first, so the outside ones, the news, are on top.
    let dots = distinct_dots(samples.iter().map(|&(p, inside)| (place.pixel(p), inside)));
    for (pixel, inside) in dots {
        root.draw(&Circle::new(pixel, dot, sample_colour(inside).filled()))?;
    }
    Ok(())
}

/// The dots to draw for samples at `pixels` (inside or not): one per pixel and colour, the inside
/// ones first. A clip's thousands of frames drawn on the same few pixels look the same drawn
/// once, and keep SVG files small.
pub(crate) fn distinct_dots(
    pixels: impl Iterator<Item = ((i32, i32), bool)>,
) -> Vec<((i32, i32), bool)> {
    let mut dots: Vec<((i32, i32), bool)> = pixels.collect();
    // `false < true`: sorting by (not inside) puts the inside dots first.
    dots.sort_unstable_by_key(|&(pixel, inside)| (!inside, pixel));
    dots.dedup();
    dots
}

/// One joint's swing chart (module docs) with a legend.
#[derive(Clone, Debug, PartialEq)]
pub struct SwingChart {
    /// The heading.
    pub title: String,
    /// The map of allowed twist.
    pub map: SwingMap,
    /// Samples as disc points, and whether the limit allows them.
    pub samples: Vec<(Vec2, bool)>,
}

const CHART_SIDE: i32 = 440;
const CHART_LEFT: i32 = 24;
const CHART_TOP: i32 = 64;
const LEGEND_WIDTH: i32 = 130;

impl SwingChart {
    /// The chart of `limit` around `bone_axis`, with `samples` (local rotations of the joint).
    pub fn new(limit: &JointLimit, bone_axis: Vec3, samples: &[Quat]) -> SwingChart {
        let map = SwingMap::new(limit, bone_axis, 110);
        let samples = samples
            .iter()
            .map(|&local| (map.point_of(limit.relative(local)), limit.contains(local)))
            .collect();
        SwingChart {
            title: format!(
                "{}: {}",
                limit.joint,
                jointlimits::RotationLimit::label(&limit.region)
            ),
            map,
            samples,
        }
    }

    fn placement() -> DiscPlacement {
        DiscPlacement {
            left: CHART_LEFT,
            top: CHART_TOP,
            side: CHART_SIDE,
        }
    }

    /// The pixel where the sample with relative rotation `relative` is drawn.
    pub fn pixel_of(&self, relative: Quat) -> (i32, i32) {
        Self::placement().pixel(self.map.point_of(relative))
    }
}

impl Figure for SwingChart {
    fn size(&self) -> (u32, u32) {
        (
            (CHART_LEFT + CHART_SIDE + LEGEND_WIDTH) as u32,
            (CHART_TOP + CHART_SIDE + 30) as u32,
        )
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.draw(&Text::new(
            self.title.as_str(),
            (CHART_LEFT, 10),
            style::text(18.0),
        ))?;
        root.draw(&Text::new(
            "bone directions (equal-area; centre: reference, rim: opposite; rings every 45°)",
            (CHART_LEFT, 36),
            style::text(12.0),
        ))?;
        draw_disc(root, &self.map, &self.samples, Self::placement(), 3)?;
        style::draw_twist_legend(root, (CHART_LEFT + CHART_SIDE + 24, CHART_TOP + 30), 200)
    }
}
