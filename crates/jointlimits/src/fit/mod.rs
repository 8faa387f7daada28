//! Offline fitting support: the PCA frame of limit-space samples and subsampling.
//!
//! Fitting runs in f64 and may allocate; runtime enforcement is elsewhere and is neither.

pub mod convex_hull;
pub mod eigen;
pub mod subsample;

pub use eigen::{SymmetricEigen, symmetric_eigen};
pub use subsample::subsample;

/// Why a shape could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// There were no samples to fit.
    #[error("no samples to fit")]
    NoSamples,
    /// A sample was NaN or infinite.
    #[error("sample {index} is not finite")]
    NonFinite {
        /// Index of the offending sample.
        index: usize,
    },
}
