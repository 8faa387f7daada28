//! # jointlimits
//!
//! Learn the rotation limits of a character's joints from motion capture and enforce them wherever
//! motion is made.
//!
//! - Rotation math: [`rotation`], [`euler`]; skeletons and forward kinematics: [`skeleton`];
//!   clips: [`motion`]; a built-in humanoid: [`humanoid`].
//! - Limit space ([`space`]): rotations relative to a reference, as scaled angle-axis points, whole
//!   or split into swing and twist.
//! - One contract every limit kind implements ([`contract`], spec in `docs/limits.md`), and the
//!   registered kinds ([`region`]).
//! - Limit-space shapes with exact projections ([`shape`]): box, ellipsoid, k-DOP, convex hull;
//!   reach cones with swing-dependent twist ([`reach_cone`]); authored Euler ranges, hinges,
//!   cones and spherical ellipses ([`authored`]); anatomical presets ([`presets`]).
//! - Fitting from clips ([`fit`]), softening ([`soften`]), one joint's limit ([`joint_limit`]),
//!   a skeleton's limits ([`skeleton_limits`]) and their enforcement on streams of poses
//!   ([`limiter`]).
//!
//! The library never touches the file system or the terminal; file formats live in
//! `jointlimits-io`, the command line in `jointlimits-cli`.
//!
//! Conventions: glam quaternions `(x, y, z, w)`, unit length, right-handed; a joint's rotation is
//! relative to its parent; radians everywhere.

#![warn(missing_docs)]

pub mod authored;
pub mod batch;
pub mod contract;
pub mod coupled;
pub mod crowd;
mod derived;
mod direction_twist;
pub mod euler;
mod fast_trig;
pub mod fit;
mod golden_section;
pub mod humanoid;
pub mod ik;
pub mod joint_limit;
pub mod limiter;
pub mod measure;
pub mod mirror_limits;
pub mod motion;
pub mod prepared;
pub mod presets;
pub mod reach_cone;
pub mod region;
pub mod rotation;
pub mod rotation_cells;
pub mod shape;
pub mod skeleton;
pub mod skeleton_limits;
pub mod skeleton_record;
pub mod soften;
pub mod space;
pub mod table;
pub mod twist;
pub mod validation;

pub use contract::{LimitContext, Limited, RotationLimit};
pub use crowd::Crowd;
pub use euler::{Axis, EulerOrder};
pub use fit::{FitOptions, ShapeKind, fit_skeleton_limits};
pub use joint_limit::{Assessment, JointLimit};
pub use limiter::Limiter;
pub use motion::Motion;
pub use region::{FullLimit, LimitRegion, SwingTwistLimit};
pub use shape::{LimitShape, Shape};
pub use skeleton::{GlobalPose, Joint, Pose, Skeleton, SkeletonError};
pub use skeleton_limits::{JointFitRecord, LimitsError, SkeletonLimits};
pub use skeleton_record::{SkeletonDifference, SkeletonRecord};
pub use soften::Softening;
pub use space::SpaceKind;
pub use twist::TwistRange;
