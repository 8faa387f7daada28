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

/// Whether a full-space or swing region reaches past a full turn (the examples that do hold
/// mostly rotations the long way round, which the quick inside tests, proven on the short way,
/// leave to the exact test).
pub fn reaches_past_full_turn(region: &LimitRegion) -> bool {
    match region {
        LimitRegion::Full(full) => full.ball().passes_full_turn(),
        LimitRegion::SwingTwist(limit) => limit.ball().passes_full_turn(),
        _ => false,
    }
}
