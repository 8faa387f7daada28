//! One page per skeleton: a small swing chart for every limited joint, in skeleton order.

use glam::{Quat, Vec2, Vec3};
use jointlimits::JointLimit;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::figure::Figure;
use crate::style;
use crate::swing_chart::{DiscPlacement, SwingMap, draw_disc};

/// Charts per row.
const COLUMNS: usize = 6;
/// A chart's disc side and the room around it, pixels.
const SIDE: i32 = 150;
const CELL_WIDTH: i32 = 170;
const CELL_HEIGHT: i32 = 186;
const TOP: i32 = 60;
const LEGEND_WIDTH: i32 = 130;

/// One joint's small chart.
#[derive(Clone, Debug, PartialEq)]
pub struct OverviewCell {
    /// The joint.
    pub name: String,
    /// Its map.
    pub map: SwingMap,
    /// Its samples as disc points, allowed or not.
    pub samples: Vec<(Vec2, bool)>,
}

/// The overview page (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    /// The heading.
    pub title: String,
    /// One cell per joint.
    pub cells: Vec<OverviewCell>,
}

impl Overview {
    /// The page for `joints`: each limit with its bone axis and samples (local rotations).
    pub fn new(title: &str, joints: &[(&JointLimit, Vec3, Vec<Quat>)]) -> Overview {
        let cells = joints
            .iter()
            .map(|(limit, axis, samples)| {
                let map = SwingMap::new(limit, *axis, 48);
                let samples = samples
                    .iter()
                    .map(|&local| (map.point_of(limit.relative(local)), limit.contains(local)))
                    .collect();
                OverviewCell {
                    name: limit.joint.clone(),
                    map,
                    samples,
                }
            })
            .collect();
        Overview {
            title: title.to_string(),
            cells,
        }
    }

    fn placement(index: usize) -> DiscPlacement {
        let (column, row) = ((index % COLUMNS) as i32, (index / COLUMNS) as i32);
        DiscPlacement {
            left: 20 + column * CELL_WIDTH,
            top: TOP + row * CELL_HEIGHT + 24,
            side: SIDE,
        }
    }

    /// The pixel where joint `index`'s sample with relative rotation `relative` is drawn.
    pub fn pixel_of(&self, index: usize, relative: Quat) -> (i32, i32) {
        Self::placement(index).pixel(self.cells[index].map.point_of(relative))
    }
}

/// The line under the title.
const SUBTITLE: &str = "where each bone can point (equal-area discs around the reference direction), coloured by allowed twist";

/// A width (pixels) that holds `text` at `size` points in the bundled DejaVu Sans, whose
/// characters average well under 0.62 em.
fn text_width(text: &str, size: f64) -> i32 {
    (text.chars().count() as f64 * size * 0.62).ceil() as i32
}

impl Figure for Overview {
    fn size(&self) -> (u32, u32) {
        let rows = self.cells.len().div_ceil(COLUMNS).max(1) as i32;
        let columns = self.cells.len().clamp(1, COLUMNS) as i32;
        // A few joints would leave the page narrower than its title lines.
        let text = text_width(&self.title, 18.0).max(text_width(SUBTITLE, 12.0));
        (
            (40 + columns * CELL_WIDTH + LEGEND_WIDTH).max(40 + text) as u32,
            (TOP + rows * CELL_HEIGHT + 20).max(TOP + 340) as u32,
        )
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.draw(&Text::new(self.title.as_str(), (20, 10), style::text(18.0)))?;
        root.draw(&Text::new(SUBTITLE, (20, 36), style::text(12.0)))?;
        for (index, cell) in self.cells.iter().enumerate() {
            let place = Self::placement(index);
            let label = crate::style::shorten(&cell.name, 22);
            root.draw(&Text::new(
                label,
                (place.left, place.top - 20),
                style::text(13.0),
            ))?;
            draw_disc(root, &cell.map, &cell.samples, place, 2)?;
        }
        let columns = self.cells.len().clamp(1, COLUMNS) as i32;
        style::draw_twist_legend(root, (40 + columns * CELL_WIDTH, TOP + 40), 160)
    }
}
