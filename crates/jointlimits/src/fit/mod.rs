//! Offline fitting: sample preparation, subsampling, the PCA frame, convex hulls and the
//! pipeline that turns clips into [`crate::SkeletonLimits`].
//!
//! Fitting runs in f64 and may allocate; runtime enforcement is elsewhere and does neither.

pub mod authored;
pub mod calibrate;
pub mod config;
pub mod convex_hull;
pub mod coupled;
pub mod directed_margin;
pub mod eigen;
pub mod halfspace_intersection;
pub mod limits;
pub mod mirror;
pub mod outliers;
pub mod reach_cone;
pub mod samples;
pub mod subsample;
pub mod swing_twist_margin;
pub mod table;

pub use calibrate::{
    JointCalibration, SkeletonFitChoices, fit_calibrated_skeleton_limits, fit_skeleton_limits_with,
};
pub use config::{FitConfig, JointChoice, JointRule};
pub use eigen::{SymmetricEigen, symmetric_eigen};
pub use limits::{
    FitLimitsError, FitOptions, ShapeKind, fit_joint_limit, fit_shape, fit_skeleton_limits,
};
pub use samples::{
    ReferenceChoice, SampleError, mean_rotation, reference_rotation, relative_rotations,
};
pub use subsample::subsample;

/// Why a shape could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// There were no samples to fit.
    #[error("no samples to fit")]
    NoSamples,
    /// The fitted region has no volume (a polytope could not be built from it).
    #[error("the fitted region has no volume")]
    NoVolume,
    /// The directions of a joint's bone surround it: no visible point sees them all.
    #[error(
        "the bone's directions reach {widest_degrees:.0}° from their centre; a reach cone needs a \
         gap around the opposite direction"
    )]
    NoVisiblePoint {
        /// The widest angle from the best centre, degrees.
        widest_degrees: f64,
    },
    /// The fitted reach cone did not validate.
    #[error("fitted reach cone: {0}")]
    Cone(String),
    /// The fitted coupled limit did not validate.
    #[error("fitted coupled limit: {0}")]
    Coupled(String),
    /// The shape kind is not a shape over limit-space points (reach cones have their own path).
    #[error("{0} is not fitted as a limit-space shape")]
    NotAShape(&'static str),
    /// A sample was NaN or infinite.
    #[error("sample {index} is not finite")]
    NonFinite {
        /// Index of the offending sample.
        index: usize,
    },
}
