//! Anatomical limits that load by name: reach cones for the shoulder and the wrist.
//!
//! Each preset is written in a body frame: `x` to the character's right, `y` up, `z` forward,
//! for a limb hanging down in the anatomical position (palm forward) at the reference rotation.
//! Arm directions are given in the globe convention of shoulder biomechanics: the plane of
//! elevation (0° lateral, 90° forward, 180° medial, 270° backward) and the elevation from the
//! hanging position. Twist is the rotation about the bone from shoulder (or wrist) outwards;
//! for the right side positive twist turns the front of the limb medially (internal rotation,
//! pronation). Left presets are the mirror images.
//!
//! Sources:
//! - Shoulder elevation limits by plane follow the clinical ranges of the American Academy of
//!   Orthopaedic Surgeons (*Joint Motion: Method of Measuring and Recording*, 1965; Greene &
//!   Heckman, *The Clinical Measurement of Joint Motion*, 1994): flexion 170–180°, abduction
//!   170–180°, extension 60°, horizontal adduction about 130°, adduction across the body 20–30°.
//! - The twist range of the upper arm shrinks from 157° with the arm down to 94° with the arm
//!   raised (Wilhelms & Van Gelder, *Fast and Easy Reach-Cone Joint Limits*, 2001, after the
//!   anthropometric data they cite); here external 87° / internal 70° down, 50° / 44° raised,
//!   interpolated by elevation.
//! - The wrist: flexion 80°, extension 70°, radial deviation 20°, ulnar deviation 30° (AAOS), and
//!   the twist (pronation–supination at the wrist) between −60° and 100° as in Wilhelms & Van
//!   Gelder, 0° supinated.

use glam::{Quat, Vec3};

use crate::joint_limit::{JointLimit, LimitRegion, TwistRange};
use crate::reach_cone::{ReachCone, ReachConeLimit};

/// The names [`preset`] knows.
pub const PRESET_NAMES: [&str; 4] = [
    "right_shoulder",
    "left_shoulder",
    "right_wrist",
    "left_wrist",
];

/// A named limit in the body frame (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// Its name.
    pub name: &'static str,
    /// What it limits.
    pub description: &'static str,
    /// The limit, in the body frame.
    pub limit: ReachConeLimit,
}

impl Preset {
    /// The preset as the limit of joint `joint`, measured from `reference`, with `body_to_joint`
    /// the rotation taking body-frame vectors to the coordinates the joint's relative rotation
    /// `reference⁻¹ · local` acts in.
    pub fn joint_limit(&self, joint: &str, reference: Quat, body_to_joint: Quat) -> JointLimit {
        JointLimit {
            joint: joint.to_string(),
            reference,
            region: LimitRegion::ReachCone(ReachConeLimit {
                twist_axis: (body_to_joint * self.limit.twist_axis).normalize(),
                cone: self.limit.cone.rotated(body_to_joint),
            }),
            softening: None,
        }
    }
}

/// The preset called `name` (one of [`PRESET_NAMES`]).
pub fn preset(name: &str) -> Option<Preset> {
    let (description, table, at_visible, mirrored): (_, &[(f32, f32, f32, f32)], _, _) = match name
    {
        "right_shoulder" => (
            "right upper arm at the shoulder",
            &SHOULDER,
            SHOULDER_DOWN,
            false,
        ),
        "left_shoulder" => (
            "left upper arm at the shoulder",
            &SHOULDER,
            SHOULDER_DOWN,
            true,
        ),
        "right_wrist" => ("right hand at the wrist", &WRIST, WRIST_TWIST, false),
        "left_wrist" => ("left hand at the wrist", &WRIST, WRIST_TWIST, true),
        _ => return None,
    };
    let name = PRESET_NAMES.into_iter().find(|&n| n == name)?;
    let mirror = |v: Vec3| {
        if mirrored {
            Vec3::new(-v.x, v.y, v.z)
        } else {
            v
        }
    };
    let mirror_twist = |(min, max): (f32, f32)| {
        let range = if mirrored { (-max, -min) } else { (min, max) };
        TwistRange {
            min: range.0.to_radians(),
            max: range.1.to_radians(),
        }
    };
    let mut boundary: Vec<Vec3> = Vec::with_capacity(table.len());
    let mut twist = Vec::with_capacity(table.len());
    for &(plane, elevation, min, max) in table {
        boundary.push(mirror(arm_direction(plane, elevation)));
        twist.push(mirror_twist((min, max)));
    }
    if mirrored {
        // A mirror image turns clockwise: reverse to keep the boundary counter-clockwise.
        boundary.reverse();
        twist.reverse();
    }
    let down = Vec3::NEG_Y;
    // The tables are star polygons around the hanging direction (tested), so this succeeds.
    let cone = ReachCone::with_twist(down, &boundary, mirror_twist(at_visible), &twist).ok()?;
    Some(Preset {
        name,
        description,
        limit: ReachConeLimit {
            twist_axis: down,
            cone,
        },
    })
}

/// The body-frame direction of a limb at `plane` of elevation and `elevation` (degrees) from
/// hanging straight down.
fn arm_direction(plane: f32, elevation: f32) -> Vec3 {
    let (sin_p, cos_p) = plane.to_radians().sin_cos();
    let (sin_e, cos_e) = elevation.to_radians().sin_cos();
    Vec3::new(sin_e * cos_p, -cos_e, sin_e * sin_p)
}

/// Twist range (degrees) of the upper arm hanging down.
const SHOULDER_DOWN: (f32, f32) = (-87.0, 70.0);

/// Twist range of the upper arm at `elevation` degrees: from 157° down to 94° raised.
const fn shoulder_twist(elevation: f32) -> (f32, f32) {
    let t = elevation / 180.0;
    (-87.0 + t * (87.0 - 50.0), 70.0 - t * (70.0 - 44.0))
}

/// Builds a shoulder row: plane, elevation, twist range.
const fn row(plane: f32, elevation: f32) -> (f32, f32, f32, f32) {
    let (min, max) = shoulder_twist(elevation);
    (plane, elevation, min, max)
}

/// The shoulder's boundary every 15° of plane of elevation: the highest elevation reachable.
const SHOULDER: [(f32, f32, f32, f32); 24] = [
    row(0.0, 170.0),
    row(15.0, 172.0),
    row(30.0, 175.0),
    row(45.0, 175.0),
    row(60.0, 175.0),
    row(75.0, 172.0),
    row(90.0, 170.0),
    row(105.0, 160.0),
    row(120.0, 145.0),
    row(135.0, 125.0),
    row(150.0, 100.0),
    row(165.0, 70.0),
    row(180.0, 25.0),
    row(195.0, 18.0),
    row(210.0, 15.0),
    row(225.0, 20.0),
    row(240.0, 30.0),
    row(255.0, 45.0),
    row(270.0, 60.0),
    row(285.0, 65.0),
    row(300.0, 70.0),
    row(315.0, 85.0),
    row(330.0, 110.0),
    row(345.0, 145.0),
];

/// Twist range (degrees) of the hand, everywhere.
const WRIST_TWIST: (f32, f32) = (-60.0, 100.0);

/// The wrist's boundary: radial deviation 20° (lateral), flexion 80° (forward, towards the
/// palm), ulnar deviation 30° (medial), extension 70° (backward), and the spherical-ellipse
/// radius `1/√(cos²φ/a² + sin²φ/b²)` between them.
const WRIST: [(f32, f32, f32, f32); 8] = [
    (0.0, 20.0, -60.0, 100.0),
    (45.0, 27.4, -60.0, 100.0),
    (90.0, 80.0, -60.0, 100.0),
    (135.0, 39.7, -60.0, 100.0),
    (180.0, 30.0, -60.0, 100.0),
    (225.0, 39.0, -60.0, 100.0),
    (270.0, 70.0, -60.0, 100.0),
    (315.0, 27.2, -60.0, 100.0),
];
