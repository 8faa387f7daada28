//! File formats for jointlimits: BVH motion capture in and out, limits files, and atomic file
//! writing.
//!
//! This crate owns all file-system access of the project; the `jointlimits` library stays pure.

#![warn(missing_docs)]

pub mod atomic;
pub mod bvh;
pub mod fit_config_file;
pub mod limits_file;
pub mod picture;
pub mod table_images;
pub mod text_lines;

pub use bvh::{Bvh, BvhError, Channel, parse_bvh, read_bvh_file, write_bvh_file};
pub use fit_config_file::{FitConfigError, parse_fit_config, read_fit_config};
pub use limits_file::{LimitsFileError, parse_limits, read_limits_file, write_limits_file};
