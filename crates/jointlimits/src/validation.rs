//! Checks of the numbers a limit stores, run when a limits file is read: each failure names the
//! field and what is wrong, so a hand-edited or hostile file is refused before any rotation is
//! limited with it.
//!
//! Beyond finiteness, every quantity must lie in what its kind can use: unit axes and reference
//! rotations, orthonormal right-handed frames, ordered intervals, and magnitudes within
//! [`MAX_COORDINATE`] (limit-space points of rotations never exceed 2π; larger numbers only lose
//! f32 precision and overflow products).

use glam::{Mat3, Quat, Vec3};
use std::f32::consts::PI;

use crate::region::covers::COVER_REACH;

/// The largest magnitude a limit-space coordinate, extent or angle may have, radians: 32 times
/// the largest that a rotation's point can reach, so every fitted shape fits, while products of
/// two such numbers stay far inside f32's range and precision.
pub const MAX_COORDINATE: f32 = 64.0 * PI;

/// The smallest semi-axis an ellipsoid may have, radians: well below what any data or authoring
/// means, and large enough that its projection stays well conditioned in f32.
pub const MIN_SEMI_AXIS: f32 = 1e-5;

/// How far from 1 a stored unit length, or from orthonormal a stored frame, may be.
pub const UNIT_TOLERANCE: f32 = 1e-4;

/// A stored value that breaks an invariant of its kind: which field, and how.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct InvalidField {
    /// The field's path within the limit, such as `region.shape.frame.rotation`.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl InvalidField {
    /// A problem with `field`.
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> InvalidField {
        InvalidField {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// The same problem, with its field named inside `parent`.
    pub fn inside(self, parent: &str) -> InvalidField {
        InvalidField {
            field: format!("{parent}.{}", self.field),
            problem: self.problem,
        }
    }
}

/// `Ok` when `condition`, else the problem `problem` with `field`.
pub fn require(
    condition: bool,
    field: &str,
    problem: impl FnOnce() -> String,
) -> Result<(), InvalidField> {
    if condition {
        Ok(())
    } else {
        Err(InvalidField::new(field, problem()))
    }
}

/// A finite number of magnitude at most [`MAX_COORDINATE`].
pub fn bounded(field: &str, value: f32) -> Result<(), InvalidField> {
    require(
        value.is_finite() && value.abs() <= MAX_COORDINATE,
        field,
        || {
            if value.is_infinite() {
                format!(
                    "{value}: not finite, or beyond the range of f32; at most ±{MAX_COORDINATE:.4} (64π)"
                )
            } else {
                format!("{value} is not a finite number within ±{MAX_COORDINATE:.4} (64π)")
            }
        },
    )
}

/// A shape that holds some limit-space point of a rotation: one within [`COVER_REACH`] (a full
/// turn less 0.1 rad) of the origin, where a region's points count. One wholly beyond allows no
/// rotation at all.
pub fn reaches_rotations(
    field: &str,
    shape: &impl crate::shape::LimitShape,
) -> Result<(), InvalidField> {
    let nearest = shape.distance(Vec3::ZERO);
    require(nearest < COVER_REACH, field, || {
        format!(
            "holds no rotation: its nearest point is {nearest:.4} rad from the identity; a \
             region's points count within {COVER_REACH:.4} (a full turn less 0.1)"
        )
    })
}

/// Every component [`bounded`].
pub fn bounded_vector(field: &str, value: Vec3) -> Result<(), InvalidField> {
    for (axis, component) in ["x", "y", "z"].iter().zip(value.to_array()) {
        bounded(&format!("{field}.{axis}"), component)?;
    }
    Ok(())
}

/// A finite vector of unit length.
pub fn unit_vector(field: &str, value: Vec3) -> Result<(), InvalidField> {
    require(
        value.is_finite() && (value.length() - 1.0).abs() <= UNIT_TOLERANCE,
        field,
        || format!("{value} is not a unit vector"),
    )
}

/// A finite quaternion of unit length.
pub fn unit_quaternion(field: &str, value: Quat) -> Result<(), InvalidField> {
    require(
        value.is_finite() && (value.length() - 1.0).abs() <= UNIT_TOLERANCE,
        field,
        || format!("{value} is not a unit quaternion"),
    )
}

/// A rotation matrix: finite, orthonormal columns, determinant +1.
pub fn rotation_matrix(field: &str, value: Mat3) -> Result<(), InvalidField> {
    require(value.is_finite(), field, || "has a non-finite entry".into())?;
    let gram = value.transpose() * value - Mat3::IDENTITY;
    let worst = gram
        .to_cols_array()
        .iter()
        .fold(0.0f32, |w, e| w.max(e.abs()));
    require(worst <= UNIT_TOLERANCE, field, || {
        format!("the columns are not orthonormal (off by {worst:.3e})")
    })?;
    require(value.determinant() > 0.0, field, || {
        "is a reflection, not a rotation (determinant −1)".into()
    })
}

/// An interval of bounded numbers with `min ≤ max`.
pub fn interval(field: &str, min: f32, max: f32) -> Result<(), InvalidField> {
    bounded(&format!("{field}.min"), min)?;
    bounded(&format!("{field}.max"), max)?;
    require(min <= max, field, || format!("min {min} exceeds max {max}"))
}

/// `x` as a person would write it: plain digits for ordinary sizes, an exponent for huge or tiny
/// ones (a padding of 1e308 in a message should not take three hundred digits).
pub fn readable(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        format!("{x}")
    } else if (1e-4..1e6).contains(&x.abs()) {
        // Twelve significant digits: a value typed in degrees and converted to radians and
        // back reads as typed (`-3`, not `-3.0000000000000004`).
        let decimals = (11 - x.abs().log10().floor() as i32).clamp(0, 16) as usize;
        let rounded: f64 = format!("{x:.decimals$}").parse().unwrap_or(x);
        format!("{rounded}")
    } else {
        format!("{x:e}")
    }
}
