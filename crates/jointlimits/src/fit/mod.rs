//! Offline fitting support: the PCA frame of limit-space samples and subsampling.
//!
//! Fitting runs in f64 and may allocate; runtime enforcement is elsewhere and is neither.

pub mod eigen;
pub mod subsample;

pub use eigen::{SymmetricEigen, symmetric_eigen};
pub use subsample::subsample;
