//! The convex hull of the samples: the tightest convex region holding them, with the exact
//! projection of [`Polytope`].
//!
//! Padding is a Minkowski sum: the hull is taken of every core sample offset to the vertices of
//! an icosahedron whose inscribed sphere has radius `padding + spacing`. The result holds a ball of
//! radius `padding + spacing` around every core sample, so with core samples `spacing` apart (see
//! [`crate::fit::subsample()`]) every original sample is inside with at least `padding` to spare, and
//! the region always has a volume, even for flat data.

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use super::{Frame, LimitShape, Polytope, Projection, frame_is_finite};
use crate::fit::FitError;
use crate::fit::convex_hull::HullError;
use crate::validation::{self, InvalidField};

/// The smallest Minkowski radius used, radians, so that the hull of a single sample is a solid.
pub const MIN_HULL_RADIUS: f64 = 1e-4;

/// Inscribed / circumscribed radius of the regular icosahedron.
const ICOSAHEDRON_INRADIUS_RATIO: f64 = 0.794_654_472_291_766_1;

/// A convex polytope, stored by its vertices around a centre.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "HullData", into = "HullData")]
pub struct HullShape {
    /// The frame's centre is the centre of the core samples; its rotation is the identity.
    pub frame: Frame,
    polytope: Polytope,
}

/// The stored form of a [`HullShape`]: its vertices relative to the centre.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HullData {
    frame: Frame,
    vertices: Vec<Vec3>,
}

impl HullShape {
    /// The hull of `core` grown by a ball of radius `padding + spacing` (see the module docs).
    pub fn fit(core: &[DVec3], padding: f64, spacing: f64) -> Result<HullShape, FitError> {
        if core.is_empty() {
            return Err(FitError::NoSamples);
        }
        if let Some(index) = core.iter().position(|c| !c.is_finite()) {
            return Err(FitError::NonFinite { index });
        }
        let center = core.iter().copied().sum::<DVec3>() / core.len() as f64;
        let radius =
            (padding.max(0.0) + spacing.max(0.0)).max(MIN_HULL_RADIUS) / ICOSAHEDRON_INRADIUS_RATIO;
        let offsets = icosahedron_vertices(radius);
        let points: Vec<DVec3> = core
            .iter()
            .flat_map(|&c| offsets.iter().map(move |&o| c - center + o))
            .collect();
        let polytope = Polytope::hull(&points).map_err(|_| FitError::NoVolume)?;
        Ok(HullShape {
            frame: Frame {
                center: center.as_vec3(),
                rotation: glam::Mat3::IDENTITY,
            },
            polytope,
        })
    }

    /// A valid frame and bounded vertices (see [`crate::validation`]); they were checked to
    /// build a solid polytope when it was built.
    pub fn validate(&self) -> Result<(), InvalidField> {
        self.frame.validate()?;
        for (i, vertex) in self.polytope.vertices().iter().enumerate() {
            validation::bounded_vector(&format!("vertices[{i}]"), *vertex)?;
        }
        Ok(())
    }

    /// The polytope in frame coordinates.
    pub fn polytope(&self) -> &Polytope {
        &self.polytope
    }
}

fn icosahedron_vertices(radius: f64) -> [DVec3; 12] {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let raw = [
        DVec3::new(-1.0, phi, 0.0),
        DVec3::new(1.0, phi, 0.0),
        DVec3::new(-1.0, -phi, 0.0),
        DVec3::new(1.0, -phi, 0.0),
        DVec3::new(0.0, -1.0, phi),
        DVec3::new(0.0, 1.0, phi),
        DVec3::new(0.0, -1.0, -phi),
        DVec3::new(0.0, 1.0, -phi),
        DVec3::new(phi, 0.0, -1.0),
        DVec3::new(phi, 0.0, 1.0),
        DVec3::new(-phi, 0.0, -1.0),
        DVec3::new(-phi, 0.0, 1.0),
    ];
    raw.map(|v| v.normalize() * radius)
}

impl TryFrom<HullData> for HullShape {
    type Error = HullError;

    fn try_from(data: HullData) -> Result<HullShape, HullError> {
        if !frame_is_finite(&data.frame) {
            return Err(HullError::NonFinite);
        }
        let points: Vec<DVec3> = data.vertices.iter().map(|v| v.as_dvec3()).collect();
        Ok(HullShape {
            frame: data.frame,
            polytope: Polytope::hull(&points)?,
        })
    }
}

impl From<HullShape> for HullData {
    fn from(shape: HullShape) -> HullData {
        HullData {
            frame: shape.frame,
            vertices: shape.polytope.vertices().to_vec(),
        }
    }
}

impl LimitShape for HullShape {
    #[inline]
    fn project(&self, p: Vec3) -> Projection {
        self.polytope.project_in_frame(&self.frame, p)
    }

    #[inline]
    fn contains(&self, p: Vec3) -> bool {
        self.polytope.contains(self.frame.to_local(p))
    }
}
