//! Boxes: per-axis intervals in a frame (axis-aligned in limit space, or oriented along the PCA
//! axes of the data).
//!
//! Projection onto a box is exact and separable: in the box's frame the nearest point clamps each
//! coordinate to its interval, `π(x)ᵢ = clamp(xᵢ, minᵢ, maxᵢ)`.

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use super::{Frame, LimitShape, Projection};
use crate::fit::FitError;
use crate::validation::{self, InvalidField};

/// A box `{x : min ≤ frameᵀ(x − c) ≤ max}` in limit space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoxShape {
    /// The frame the box's sides are aligned with.
    pub frame: Frame,
    /// Lower corner in frame coordinates.
    pub min: Vec3,
    /// Upper corner in frame coordinates (`min ≤ max` on every axis).
    pub max: Vec3,
}

impl BoxShape {
    /// The smallest box in `frame` holding every sample, grown by `padding` on every side.
    ///
    /// Bounds start at ±∞ and shrink onto the data, so negative-only coordinates are handled (a
    /// start at the smallest positive float would clip them).
    pub fn fit(samples: &[DVec3], frame: Frame, padding: f64) -> Result<BoxShape, FitError> {
        if samples.is_empty() {
            return Err(FitError::NoSamples);
        }
        let mut min = DVec3::INFINITY;
        let mut max = DVec3::NEG_INFINITY;
        for local in frame.local_samples(samples) {
            min = min.min(local);
            max = max.max(local);
        }
        let pad = DVec3::splat(padding.max(0.0));
        Ok(BoxShape {
            frame,
            min: (min - pad).as_vec3(),
            max: (max + pad).as_vec3(),
        })
    }

    /// A valid frame and bounded, ordered intervals (see [`crate::validation`]).
    pub fn validate(&self) -> Result<(), InvalidField> {
        self.frame.validate()?;
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            validation::interval(&format!("{name} range"), self.min[axis], self.max[axis])?;
        }
        Ok(())
    }
}

impl LimitShape for BoxShape {
    #[inline(always)]
    fn project(&self, p: Vec3) -> Projection {
        let local = self.frame.to_local(p);
        let clamped = local.clamp(self.min, self.max);
        if clamped == local {
            Projection::unchanged(p)
        } else {
            Projection::moved(p, self.frame.to_world(clamped))
        }
    }

    #[inline]
    fn contains(&self, p: Vec3) -> bool {
        let local = self.frame.to_local(p);
        local.cmpge(self.min).all() && local.cmple(self.max).all()
    }
}
