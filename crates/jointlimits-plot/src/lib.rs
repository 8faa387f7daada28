//! Pictures of joint limits, drawn from the limits' own membership test (the
//! [`jointlimits::RotationLimit`] contract), so a picture shows what runtime does:
//!
//! - [`SwingChart`]: the bone's directions on an equal-area disc around its reference direction,
//!   coloured by how much twist is allowed there, with the clip's samples;
//! - [`LimitSpaceFigure`]: the limit space (scaled angle-axis, or swing and twist) in three
//!   orthographic views and one 3D view, with the samples;
//! - [`Timeline`]: each joint's violation frame by frame, before and after limiting;
//! - [`Overview`]: a small swing chart for every joint of a skeleton.
//!
//! Every figure renders to PNG ([`to_png`]) and SVG ([`to_svg`]); text uses the bundled DejaVu
//! Sans, so PNGs come out the same on every machine.

#![warn(missing_docs)]

mod chart;
mod figure;
mod limit_space;
mod overview;
pub mod style;
mod swing_chart;
mod timeline;

pub use chart::LimitChart;
pub use figure::{Figure, PlotError, to_png, to_svg};
pub use limit_space::LimitSpaceFigure;
pub use overview::Overview;
pub use swing_chart::{SwingChart, SwingMap, disc_point};
pub use timeline::Timeline;
