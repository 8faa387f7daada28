//! The limit space of one joint: the allowed set and the samples in three orthographic views and
//! one 3D view of the joint's [`LimitChart`].
//!
//! An orthographic view shades each cell by the share of the depth along it that is allowed
//! (darker: more), so the shadow of the region and its thickness show at once. The 3D view draws
//! the region's boundary cells from a turned viewpoint. The views frame the samples and the
//! allowed set found on a coarse grid, with a margin.

use glam::{Quat, Vec2, Vec3};
use jointlimits::{JointLimit, LimitContext, RotationLimit};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::chart::LimitChart;
use crate::figure::Figure;
use crate::style::{self, INK, NOT_ALLOWED, sample_colour};
use crate::swing_chart::distinct_dots;

/// Cells per side of an orthographic view.
const VIEW_CELLS: usize = 72;
/// Depth steps per cell.
const DEPTH_STEPS: usize = 32;
/// Cells per side of the 3D grid of boundary points (and of the framing search).
const GRID_CELLS: usize = 28;

const PANEL: i32 = 260;
const GAP: i32 = 70;
const LEFT: i32 = 60;
const TOP: i32 = 70;

/// Which coordinates a view shows (across, up) and which it looks along.
const VIEWS: [(usize, usize, usize); 3] = [(0, 1, 2), (0, 2, 1), (1, 2, 0)];

/// The 3D view's turn: yaw about the vertical, then pitch.
const YAW: f32 = 0.65;
const PITCH: f32 = 0.45;

/// A joint's limit space (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct LimitSpaceFigure {
    /// The heading.
    pub title: String,
    /// The chart the points live in.
    pub chart: LimitChart,
    /// The framed box of the chart.
    pub min: Vec3,
    /// Its far corner.
    pub max: Vec3,
    /// For each view, row-major from the top-left, the share of depth allowed.
    pub views: [Vec<f32>; 3],
    /// Boundary points of the allowed set (chart coordinates).
    pub boundary: Vec<Vec3>,
    /// Samples (chart coordinates) and whether they are allowed.
    pub samples: Vec<(Vec3, bool)>,
}

fn allowed(limit: &JointLimit, chart: &LimitChart, p: Vec3) -> bool {
    chart.in_domain(p)
        && limit
            .region
            .contains(chart.rotation(p), &LimitContext::NONE)
}

/// The centre of cell `index` of `cells` between `min` and `max`.
fn cell_centre(min: f32, max: f32, index: usize, cells: usize) -> f32 {
    min + (index as f32 + 0.5) * (max - min) / cells as f32
}

impl LimitSpaceFigure {
    /// The figure of `limit` (with `bone_axis` for charts that need one) and `samples` (local
    /// rotations of the joint).
    pub fn new(limit: &JointLimit, bone_axis: Vec3, samples: &[Quat]) -> LimitSpaceFigure {
        let chart = LimitChart::of(limit, bone_axis);
        let samples: Vec<(Vec3, bool)> = samples
            .iter()
            .map(|&local| (chart.point(limit.relative(local)), limit.contains(local)))
            .collect();
        let (min, max) = frame(limit, &chart, &samples);
        let views = VIEWS.map(|(across, up, along)| {
            let mut shares = Vec::with_capacity(VIEW_CELLS * VIEW_CELLS);
            for row in 0..VIEW_CELLS {
                for column in 0..VIEW_CELLS {
                    let mut p = Vec3::ZERO;
                    p[across] = cell_centre(min[across], max[across], column, VIEW_CELLS);
                    p[up] = cell_centre(max[up], min[up], row, VIEW_CELLS);
                    let inside = (0..DEPTH_STEPS)
                        .filter(|&k| {
                            p[along] = cell_centre(min[along], max[along], k, DEPTH_STEPS);
                            allowed(limit, &chart, p)
                        })
                        .count();
                    shares.push(inside as f32 / DEPTH_STEPS as f32);
                }
            }
            shares
        });
        let boundary = boundary_points(limit, &chart, min, max);
        LimitSpaceFigure {
            title: format!("{}: {} in limit space", limit.joint, limit.region.label()),
            chart,
            min,
            max,
            views,
            boundary,
            samples,
        }
    }

    /// The top-left pixel of view `view` (0–2; 3 is the 3D view).
    fn panel_origin(view: usize) -> (i32, i32) {
        let (column, row) = ((view % 2) as i32, (view / 2) as i32);
        (LEFT + column * (PANEL + GAP), TOP + row * (PANEL + GAP))
    }

    /// The pixel of chart point `p` in orthographic view `view` (0–2).
    fn view_pixel(&self, view: usize, p: Vec3) -> (i32, i32) {
        let (across, up, _) = VIEWS[view];
        let (left, top) = Self::panel_origin(view);
        let u = (p[across] - self.min[across]) / (self.max[across] - self.min[across]);
        let v = (p[up] - self.min[up]) / (self.max[up] - self.min[up]);
        (
            left + (u * PANEL as f32).round() as i32,
            top + ((1.0 - v) * PANEL as f32).round() as i32,
        )
    }

    /// The pixels where the sample with relative rotation `relative` is drawn in the three
    /// orthographic views.
    pub fn pixels_of(&self, relative: Quat) -> [(i32, i32); 3] {
        let p = self.chart.point(relative);
        [0, 1, 2].map(|view| self.view_pixel(view, p))
    }

    /// The 3D view's pixel of chart point `p`.
    fn pixel_3d(&self, p: Vec3) -> (i32, i32) {
        let centre = (self.min + self.max) * 0.5;
        let half = ((self.max - self.min) * 0.5).max_element();
        let q = (p - centre) / half;
        let turned = Vec2::new(
            q.x * YAW.cos() - q.y * YAW.sin(),
            (q.x * YAW.sin() + q.y * YAW.cos()) * PITCH.sin() + q.z * PITCH.cos(),
        );
        let (left, top) = Self::panel_origin(3);
        let scale = PANEL as f32 / 2.0 / 1.8;
        (
            left + PANEL / 2 + (turned.x * scale).round() as i32,
            top + PANEL / 2 - (turned.y * scale).round() as i32,
        )
    }
}

/// The box framing the samples and the allowed set (coarse grid plus the projection of the
/// reference), with a margin, at least 0.2 rad wide.
fn frame(limit: &JointLimit, chart: &LimitChart, samples: &[(Vec3, bool)]) -> (Vec3, Vec3) {
    let extent = chart.extent();
    let mut points: Vec<Vec3> = samples.iter().map(|s| s.0).collect();
    let nearest = limit.region.nearest(Quat::IDENTITY, &LimitContext::NONE);
    points.push(chart.point(nearest.relative));
    let step = 2.0 * extent / GRID_CELLS as f32;
    for i in 0..GRID_CELLS {
        for j in 0..GRID_CELLS {
            for k in 0..GRID_CELLS {
                let p = Vec3::new(
                    -extent + (i as f32 + 0.5) * step,
                    -extent + (j as f32 + 0.5) * step,
                    -extent + (k as f32 + 0.5) * step,
                );
                if allowed(limit, chart, p) {
                    points.push(p);
                }
            }
        }
    }
    let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for p in points.iter().filter(|p| p.is_finite()) {
        min = min.min(*p);
        max = max.max(*p);
    }
    if !min.is_finite() {
        return (Vec3::splat(-extent), Vec3::splat(extent));
    }
    let centre = (min + max) * 0.5;
    let half = ((max - min) * 0.5 * 1.2 + Vec3::splat(step)).max(Vec3::splat(0.1));
    (
        (centre - half).max(Vec3::splat(-extent * 1.05)),
        (centre + half).min(Vec3::splat(extent * 1.05)),
    )
}

/// Allowed cells of a grid over the box with a refused neighbour.
fn boundary_points(limit: &JointLimit, chart: &LimitChart, min: Vec3, max: Vec3) -> Vec<Vec3> {
    let n = GRID_CELLS;
    let at = |i: usize, j: usize, k: usize| {
        Vec3::new(
            cell_centre(min.x, max.x, i, n),
            cell_centre(min.y, max.y, j, n),
            cell_centre(min.z, max.z, k, n),
        )
    };
    let inside: Vec<bool> = (0..n * n * n)
        .map(|index| allowed(limit, chart, at(index % n, index / n % n, index / (n * n))))
        .collect();
    let is_inside = |i: isize, j: isize, k: isize| {
        let valid = |x: isize| (0..n as isize).contains(&x);
        valid(i) && valid(j) && valid(k) && inside[i as usize + n * (j as usize + n * k as usize)]
    };
    let mut points = Vec::new();
    for k in 0..n as isize {
        for j in 0..n as isize {
            for i in 0..n as isize {
                if is_inside(i, j, k)
                    && [
                        (1, 0, 0),
                        (-1, 0, 0),
                        (0, 1, 0),
                        (0, -1, 0),
                        (0, 0, 1),
                        (0, 0, -1),
                    ]
                    .iter()
                    .any(|(a, b, c)| !is_inside(i + a, j + b, k + c))
                {
                    points.push(at(i as usize, j as usize, k as usize));
                }
            }
        }
    }
    points
}

/// The colour of a view cell: grey where nothing is allowed, blue darkening with depth.
fn depth_colour(share: f32) -> RGBColor {
    if share <= 0.0 {
        return NOT_ALLOWED;
    }
    let t = share.sqrt();
    let mix = |light: f32, dark: f32| (light + (dark - light) * t).round() as u8;
    RGBColor(mix(200.0, 40.0), mix(220.0, 90.0), mix(250.0, 190.0))
}

impl Figure for LimitSpaceFigure {
    fn size(&self) -> (u32, u32) {
        (
            (LEFT + 2 * PANEL + GAP + 40) as u32,
            (TOP + 2 * PANEL + GAP + 50) as u32,
        )
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.draw(&Text::new(
            self.title.as_str(),
            (LEFT - 40, 10),
            style::text(18.0),
        ))?;
        root.draw(&Text::new(
            "allowed rotations (blue, darker: deeper) and samples, each rotation once",
            (LEFT - 40, 36),
            style::text(12.0),
        ))?;
        let names = self.chart.axis_names();
        for (view, &(across, up, _)) in VIEWS.iter().enumerate() {
            let (left, top) = Self::panel_origin(view);
            let cell = PANEL as f32 / VIEW_CELLS as f32;
            let edge = |index: usize| (index as f32 * cell).round() as i32;
            for row in 0..VIEW_CELLS {
                let colours: Vec<RGBColor> = self.views[view]
                    [row * VIEW_CELLS..(row + 1) * VIEW_CELLS]
                    .iter()
                    .map(|&share| depth_colour(share))
                    .collect();
                // One rectangle per run of equal colour along the row.
                let mut column = 0;
                while column < VIEW_CELLS {
                    let end = (column..VIEW_CELLS)
                        .find(|&c| colours[c] != colours[column])
                        .unwrap_or(VIEW_CELLS);
                    root.draw(&Rectangle::new(
                        [
                            (left + edge(column), top + edge(row)),
                            (left + edge(end), top + edge(row + 1)),
                        ],
                        colours[column].filled(),
                    ))?;
                    column = end;
                }
            }
            root.draw(&Rectangle::new(
                [(left, top), (left + PANEL, top + PANEL)],
                INK,
            ))?;
            let small = style::text(11.0);
            root.draw(&Text::new(
                names[across],
                (left + PANEL / 2 - 30, top + PANEL + 22),
                small.clone(),
            ))?;
            root.draw(&Text::new(names[up], (left - 55, top - 16), small.clone()))?;
            for (text, at) in [
                (format!("{:.2}", self.min[across]), (left, top + PANEL + 6)),
                (
                    format!("{:.2}", self.max[across]),
                    (left + PANEL - 30, top + PANEL + 6),
                ),
                (format!("{:.2}", self.max[up]), (left - 44, top)),
                (
                    format!("{:.2}", self.min[up]),
                    (left - 44, top + PANEL - 12),
                ),
            ] {
                root.draw(&Text::new(text, at, small.clone()))?;
            }
        }
        // The 3D view: box edges, boundary cells, samples.
        let corners: Vec<Vec3> = (0..8)
            .map(|c| {
                Vec3::new(
                    if c & 1 == 0 { self.min.x } else { self.max.x },
                    if c & 2 == 0 { self.min.y } else { self.max.y },
                    if c & 4 == 0 { self.min.z } else { self.max.z },
                )
            })
            .collect();
        for a in 0..8usize {
            for bit in [1usize, 2, 4] {
                if a & bit == 0 {
                    root.draw(&PathElement::new(
                        vec![self.pixel_3d(corners[a]), self.pixel_3d(corners[a | bit])],
                        INK.mix(0.4),
                    ))?;
                }
            }
        }
        for (axis, name) in names.iter().enumerate() {
            let mut end = corners[0];
            end[axis] = if axis == 0 {
                self.max.x
            } else if axis == 1 {
                self.max.y
            } else {
                self.max.z
            };
            let (x, y) = self.pixel_3d(end);
            root.draw(&Text::new(*name, (x + 4, y), style::text(11.0)))?;
        }
        for &p in &self.boundary {
            root.draw(&Circle::new(
                self.pixel_3d(p),
                1,
                RGBColor(90, 130, 210).filled(),
            ))?;
        }
        let pixels = self.samples.iter().flat_map(|&(p, inside)| {
            [
                self.pixel_3d(p),
                self.view_pixel(0, p),
                self.view_pixel(1, p),
                self.view_pixel(2, p),
            ]
            .map(|pixel| (pixel, inside))
        });
        for (pixel, inside) in distinct_dots(pixels) {
            root.draw(&Circle::new(pixel, 2, sample_colour(inside).filled()))?;
        }
        Ok(())
    }
}
