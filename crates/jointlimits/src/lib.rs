//! # jointlimits
//!
//! Learn the rotation limits of a character's joints from motion capture and enforce them wherever
//! motion is made.
//!
//! This crate is the library: rotation math ([`rotation`], [`euler`]), skeletons and forward
//! kinematics ([`skeleton`]) and motion clips ([`motion`]). It never touches the file system or the
//! terminal; file formats live in `jointlimits-io`, the command line in `jointlimits-cli`.
//!
//! Conventions: glam quaternions `(x, y, z, w)`, unit length, right-handed; a joint's rotation is
//! relative to its parent; radians everywhere.

#![warn(missing_docs)]

pub mod euler;
pub mod fit;
pub mod humanoid;
pub mod motion;
pub mod rotation;
pub mod shape;
pub mod skeleton;

pub use euler::{Axis, EulerOrder};
pub use motion::Motion;
pub use skeleton::{GlobalPose, Joint, Pose, Skeleton, SkeletonError};
