//! Test helpers shared by the integration tests (each test crate that includes this module uses
//! part of it).
#![allow(dead_code)]

pub mod oracle;

use glam::Quat;
use jointlimits::{JointLimit, LimitRegion};

/// A joint named `joint` limited by `region` about the identity reference.
pub fn joint(region: LimitRegion) -> JointLimit {
    JointLimit {
        joint: "joint".into(),
        reference: Quat::IDENTITY,
        region,
        softening: None,
    }
}
