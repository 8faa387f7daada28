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
//!
//! ```
//! use glam::{Quat, Vec3};
//! use jointlimits::authored::ConeLimit;
//! use jointlimits::{JointLimit, TwistRange};
//! use jointlimits_plot::{Figure, SwingChart, to_png};
//!
//! let limit = JointLimit {
//!     joint: "shoulder".into(),
//!     reference: Quat::IDENTITY,
//!     region: ConeLimit {
//!         twist_axis: Vec3::Y,
//!         max_swing: 1.2,
//!         twist: TwistRange { min: -0.5, max: 0.5 },
//!     }
//!     .into(),
//!     softening: None,
//! };
//! let samples = [Quat::from_rotation_x(0.4), Quat::from_rotation_x(2.0)];
//! let chart = SwingChart::new(&limit, Vec3::Y, &samples);
//! let png = to_png(&chart).unwrap();
//! assert_eq!(&png[1..4], b"PNG");
//! assert_eq!(chart.samples.iter().filter(|s| s.1).count(), 1);
//! ```

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
