//! Limits authored by hand in the parameterisations animation tools use: Euler-angle ranges,
//! hinges, circular swing cones and spherical ellipses with twist intervals.
//!
//! Each implements [`crate::RotationLimit`] exactly in its own parameterisation: the result is
//! the allowed point nearest to the input measured in the coordinates the limit is written in
//! (Euler angles; the hinge's rotation angle; the swing's scaled angle-axis and the twist angle),
//! over both covers and every turn.

mod cone;
mod ellipse;
mod euler_range;
mod hinge;
mod swing_plane;

pub use cone::ConeLimit;
pub use ellipse::SphericalEllipseLimit;
pub use euler_range::EulerLimit;
pub use hinge::{HingeInside, HingeLimit};
