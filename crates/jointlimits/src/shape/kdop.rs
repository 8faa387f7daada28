//! k-DOPs (discrete oriented polytopes): the intersection of slabs `minₖ ≤ dₖ·x ≤ maxₖ` along a
//! fixed set of directions in the PCA frame, with the exact Euclidean projection of
//! [`Polytope`].
//!
//! Clamping slab by slab, one direction after another, is not the nearest point (and can even
//! leave the point outside a slab clamped earlier); here the slabs are turned into the polytope's
//! faces once, when the shape is made, and projected onto exactly.

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use super::{Frame, LimitShape, Polytope, Projection, frame_is_finite};
use crate::fit::FitError;
use crate::fit::convex_hull::HullError;
use crate::validation::{self, InvalidField};

/// The thinnest slab a fitted k-DOP gets, in radians, so flat data still gives a solid.
pub const MIN_SLAB_WIDTH: f64 = 2e-4;

/// Standard direction sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KdopDirections {
    /// The three axes (a box, 6 faces).
    Three,
    /// The axes and the four cube diagonals (14 faces).
    Seven,
    /// The axes, the four cube diagonals and the six face diagonals (26 faces, a
    /// rhombicuboctahedron when all slabs are equal).
    Thirteen,
}

impl KdopDirections {
    /// The number of directions.
    pub fn count(self) -> usize {
        match self {
            KdopDirections::Three => 3,
            KdopDirections::Seven => 7,
            KdopDirections::Thirteen => 13,
        }
    }

    /// The unit directions: axes first, then cube diagonals, then face diagonals.
    pub fn vectors(self) -> Vec<DVec3> {
        let axes = [DVec3::X, DVec3::Y, DVec3::Z];
        let corners = [
            DVec3::new(1.0, 1.0, 1.0),
            DVec3::new(1.0, 1.0, -1.0),
            DVec3::new(1.0, -1.0, 1.0),
            DVec3::new(-1.0, 1.0, 1.0),
        ];
        let edges = [
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, -1.0, 0.0),
            DVec3::new(1.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, -1.0),
            DVec3::new(0.0, 1.0, 1.0),
            DVec3::new(0.0, 1.0, -1.0),
        ];
        axes.into_iter()
            .chain(corners)
            .chain(edges)
            .take(self.count())
            .map(DVec3::normalize)
            .collect()
    }
}

/// A k-DOP in a frame: `minₖ ≤ dₖ·x ≤ maxₖ` for frame coordinates `x`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "KdopData", into = "KdopData")]
pub struct KdopShape {
    /// The frame the directions are expressed in (usually the PCA frame).
    pub frame: Frame,
    /// Unit slab directions in frame coordinates.
    pub directions: Vec<Vec3>,
    /// Lower slab bounds.
    pub min: Vec<f32>,
    /// Upper slab bounds.
    pub max: Vec<f32>,
    polytope: Polytope,
}

/// The stored form of a [`KdopShape`]: the slabs without the derived polytope.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KdopData {
    frame: Frame,
    directions: Vec<Vec3>,
    min: Vec<f32>,
    max: Vec<f32>,
}

impl KdopShape {
    /// The tightest slabs along `directions` in the PCA frame of `core` that hold every sample,
    /// widened by `padding` on both sides.
    pub fn fit(
        core: &[DVec3],
        samples: &[DVec3],
        directions: KdopDirections,
        padding: f64,
    ) -> Result<KdopShape, FitError> {
        if core.is_empty() || samples.is_empty() {
            return Err(FitError::NoSamples);
        }
        let frame = Frame::principal(core);
        let local = frame.local_samples(samples);
        let dirs = directions.vectors();
        let mut min = vec![f64::INFINITY; dirs.len()];
        let mut max = vec![f64::NEG_INFINITY; dirs.len()];
        for x in &local {
            for (k, d) in dirs.iter().enumerate() {
                let along = d.dot(*x);
                min[k] = min[k].min(along);
                max[k] = max[k].max(along);
            }
        }
        for k in 0..dirs.len() {
            let grow = padding
                .max(0.0)
                .max(0.5 * (MIN_SLAB_WIDTH - (max[k] - min[k])));
            min[k] -= grow;
            max[k] += grow;
        }
        let data = KdopData {
            frame,
            directions: dirs.iter().map(|d| d.as_vec3()).collect(),
            min: min.iter().map(|&m| m as f32).collect(),
            max: max.iter().map(|&m| m as f32).collect(),
        };
        KdopShape::try_from(data).map_err(|_| FitError::NoVolume)
    }

    /// The k-DOP with each slab `i` widened by `lower[i]` below and `upper[i]` above (missing
    /// entries: 0); `None` when the result bounds no solid.
    pub fn widened(&self, lower: &[f32], upper: &[f32]) -> Option<KdopShape> {
        let by = |margins: &[f32], i: usize| margins.get(i).copied().unwrap_or(0.0);
        let data = KdopData {
            frame: self.frame,
            directions: self.directions.clone(),
            min: (0..self.min.len())
                .map(|i| self.min[i] - by(lower, i))
                .collect(),
            max: (0..self.max.len())
                .map(|i| self.max[i] + by(upper, i))
                .collect(),
        };
        KdopShape::try_from(data).ok()
    }

    /// A valid frame, unit slab directions and bounded, ordered slab intervals (see
    /// [`crate::validation`]); the slabs were checked to bound a solid when it was built.
    pub fn validate(&self) -> Result<(), InvalidField> {
        self.frame.validate()?;
        for (i, direction) in self.directions.iter().enumerate() {
            validation::unit_vector(&format!("directions[{i}]"), *direction)?;
            validation::interval(&format!("slab {i}"), self.min[i], self.max[i])?;
        }
        Ok(())
    }

    /// The polytope the slabs bound, in frame coordinates.
    pub fn polytope(&self) -> &Polytope {
        &self.polytope
    }
}

impl TryFrom<KdopData> for KdopShape {
    type Error = KdopError;

    fn try_from(data: KdopData) -> Result<KdopShape, KdopError> {
        let k = data.directions.len();
        if k < 3 || data.min.len() != k || data.max.len() != k {
            return Err(KdopError::Counts);
        }
        let finite = data.directions.iter().all(|d| d.is_finite())
            && data.min.iter().chain(&data.max).all(|m| m.is_finite());
        if !finite || !frame_is_finite(&data.frame) {
            return Err(KdopError::NonFinite);
        }
        let mut directions = Vec::with_capacity(2 * k);
        let mut bounds = Vec::with_capacity(2 * k);
        for i in 0..k {
            let d = data.directions[i].as_dvec3().normalize_or_zero();
            if d == DVec3::ZERO {
                return Err(KdopError::ZeroDirection(i));
            }
            directions.extend([d, -d]);
            bounds.extend([f64::from(data.max[i]), -f64::from(data.min[i])]);
        }
        let polytope =
            Polytope::from_halfspaces(&directions, &bounds).map_err(|error| match error {
                HullError::Flat => KdopError::NoVolume,
                other => KdopError::Hull(other),
            })?;
        Ok(KdopShape {
            frame: data.frame,
            directions: data.directions,
            min: data.min,
            max: data.max,
            polytope,
        })
    }
}

impl From<KdopShape> for KdopData {
    fn from(shape: KdopShape) -> KdopData {
        KdopData {
            frame: shape.frame,
            directions: shape.directions,
            min: shape.min,
            max: shape.max,
        }
    }
}

/// Why stored slabs do not make a k-DOP.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KdopError {
    /// Fewer than three directions, or bound lists of the wrong length.
    #[error("a k-DOP needs at least 3 directions and one min and max per direction")]
    Counts,
    /// A number is NaN or infinite.
    #[error("a k-DOP number is not finite")]
    NonFinite,
    /// A slab direction of zero length (its index), which orients no slab.
    #[error("k-DOP direction {0} has zero length")]
    ZeroDirection(usize),
    /// The slabs meet in nothing, or in a flat set (a plane, a line or a point).
    #[error("the k-DOP slabs meet in no volume (their intersection is empty or flat)")]
    NoVolume,
    /// The slabs do not bound a solid (directions leaving it open, or a construction failure).
    #[error("the k-DOP slabs do not bound a solid: {0}")]
    Hull(HullError),
}

impl LimitShape for KdopShape {
    #[inline]
    fn project(&self, p: Vec3) -> Projection {
        self.polytope.project_in_frame(&self.frame, p)
    }

    #[inline]
    fn contains(&self, p: Vec3) -> bool {
        self.polytope.contains(self.frame.to_local(p))
    }
}
