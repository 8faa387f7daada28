//! Each joint's limit as the shader reads it: eight `vec4<f32>` (the `Joint` struct of
//! `crowd.wgsl`).

use jointlimits::shape::Shape;
use jointlimits::{JointLimit, LimitRegion, RotationLimit};

use crate::GpuError;

/// Floats per joint: eight vec4.
pub const FLOATS_PER_JOINT: usize = 32;

/// The shader's kind codes (`center.w`).
const UNLIMITED: f32 = 0.0;
const BOX: f32 = 1.0;
const ELLIPSOID: f32 = 2.0;

/// The joints' limits packed for the shader, with the switch margin `margin`; an error naming
/// the first joint whose limit has no GPU kernel.
pub fn pack_joints(limits: &[Option<JointLimit>], margin: f32) -> Result<Vec<f32>, GpuError> {
    let mut packed = Vec::with_capacity(limits.len().max(1) * FLOATS_PER_JOINT);
    for limit in limits {
        match limit {
            None => packed.extend([UNLIMITED; FLOATS_PER_JOINT]),
            Some(limit) => packed.extend(pack_joint(limit, margin)?.as_flattened()),
        }
    }
    if packed.is_empty() {
        // A storage buffer may not be empty.
        packed.extend([0.0; FLOATS_PER_JOINT]);
    }
    Ok(packed)
}

fn pack_joint(limit: &JointLimit, margin: f32) -> Result<[[f32; 4]; 8], GpuError> {
    let unsupported = |reason: String| GpuError::Unsupported {
        joint: limit.joint.clone(),
        reason,
    };
    if limit.softening.is_some() {
        return Err(unsupported("softened limits have no GPU kernel".into()));
    }
    let LimitRegion::Full(full) = &limit.region else {
        return Err(unsupported(format!(
            "{} ({}) has no GPU kernel; full-space boxes and ellipsoids do",
            limit.region.kind_name(),
            limit.region.label()
        )));
    };
    let (frame, kind, low, high) = match full.shape() {
        Shape::Box(b) => (b.frame, BOX, b.min, b.max),
        Shape::Ellipsoid(e) => (e.frame, ELLIPSOID, e.semi_axes, e.semi_axes),
        other => {
            return Err(unsupported(format!(
                "a full-space {} has no GPU kernel; boxes and ellipsoids do",
                other.label()
            )));
        }
    };
    let (axes, center) = (frame.rotation, frame.center);
    Ok([
        limit.reference.to_array(),
        axes.x_axis.extend(0.0).to_array(),
        axes.y_axis.extend(0.0).to_array(),
        axes.z_axis.extend(0.0).to_array(),
        center.extend(kind).to_array(),
        low.extend(0.0).to_array(),
        high.extend(0.0).to_array(),
        [full.ball().reach, margin, 0.0, 0.0],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_joints_pack_as_zeros() {
        let packed = pack_joints(&[None, None], 0.1).unwrap();
        assert_eq!(packed.len(), 2 * FLOATS_PER_JOINT);
        assert!(packed.iter().all(|&v| v == UNLIMITED));
    }
}
