//! A joint's rotation channels as Euler angles: decoding channel values into a rotation and a
//! translation, and choosing, for a rotation, the angles nearest some given ones.

use super::Channel;
use glam::{DQuat, DVec3, Quat, Vec3};
use jointlimits::{Axis, EulerOrder};
use std::f64::consts::{PI, TAU};

/// The local rotation and translation of one joint from its channel values.
///
/// The rotation is the product of the rotation channels in the order listed,
/// `R = R_1(v_1) · R_2(v_2) · …`; the translation is the offset with each position channel
/// replacing one component.
pub(super) fn decode(channels: &[Channel], values: &[f32], offset: Vec3) -> (Quat, Vec3) {
    let mut translation = offset;
    let mut axes = [Axis::X; 3];
    let mut angles = [0.0f64; 3];
    let mut rotation_count = 0;
    for (channel, &value) in channels.iter().zip(values) {
        match *channel {
            Channel::Position(axis) => translation[axis.index()] = value,
            Channel::Rotation(axis) => {
                // The parser guarantees at most one channel per axis, so at most three.
                axes[rotation_count] = axis;
                angles[rotation_count] = f64::from(value).to_radians();
                rotation_count += 1;
            }
        }
    }
    let rotation = match EulerOrder::from_axes(axes).filter(|_| rotation_count == 3) {
        Some(order) => order.to_quat(DVec3::from(angles)),
        None => product(&axes[..rotation_count], &angles[..rotation_count]).as_quat(),
    };
    (rotation, translation)
}

/// The axes of a joint's rotation channels, in order.
pub(super) fn rotation_axes(channels: &[Channel]) -> Vec<Axis> {
    channels
        .iter()
        .filter_map(|channel| match channel {
            Channel::Rotation(axis) => Some(*axis),
            Channel::Position(_) => None,
        })
        .collect()
}

/// The angles (radians) of a joint's rotation channels in one frame, in order.
pub(super) fn rotation_angles(channels: &[Channel], values: &[f32]) -> Vec<f64> {
    channels
        .iter()
        .zip(values)
        .filter(|(channel, _)| matches!(channel, Channel::Rotation(_)))
        .map(|(_, &value)| f64::from(value).to_radians())
        .collect()
}

/// Angles (radians, one per axis) for `rotation` about `axes` (distinct, at most three), and the
/// angle (radians) between `rotation` and the rotation they express.
///
/// Three axes express every rotation. Fewer express only some; then the angles are those of the
/// nearest rotation they can express (one axis: the twist about it; two: alternating exact
/// minimisations over each angle, started from the Euler solution with the third angle dropped).
/// Of the equivalent solutions (whole turns on any angle; for three axes also the flipped triple
/// `(a + π, π − b, c + π)`), the one nearest `near` is taken, so curves keep their branch.
pub(super) fn encode(axes: &[Axis], rotation: Quat, near: Option<&[f64]>) -> (Vec<f64>, f64) {
    let target = rotation.as_dquat().normalize();
    let angles: Vec<f64> = match *axes {
        [] => Vec::new(),
        [axis] => vec![twist_angle(target, axis)],
        [first, second] => two_axis_angles(first, second, target),
        [first, second, third] => {
            let order = EulerOrder::from_axes([first, second, third])
                .expect("the parser allows each rotation axis once");
            order.from_dquat(target).to_array().to_vec()
        }
        _ => unreachable!("a joint has at most three rotation channels"),
    };
    let angles = match near {
        Some(near) if near.len() == angles.len() => nearest_equivalent(&angles, near),
        _ => angles,
    };
    let expressed = product(axes, &angles);
    (angles, rotation_angle_between(expressed, target))
}

/// `R_a1(θ1) · R_a2(θ2) · …`.
fn product(axes: &[Axis], angles: &[f64]) -> DQuat {
    axes.iter()
        .zip(angles)
        .fold(DQuat::IDENTITY, |q, (axis, &angle)| {
            q * axis.rotation(angle)
        })
}

/// The angle of the rotation about `axis` nearest `q`: `2·atan2(v·axis, w)`.
fn twist_angle(q: DQuat, axis: Axis) -> f64 {
    let along = q.xyz().dot(axis.unit());
    2.0 * along.atan2(q.w)
}

/// The angles `(α, β)` with `R_a(α) · R_b(β)` nearest `target`. For a fixed β the best α is the
/// twist of `target · R_b(β)⁻¹` about `a`, and likewise for β; alternating the two never moves
/// away from `target`, and from the Euler start it settles within a few rounds.
fn two_axis_angles(first: Axis, second: Axis, target: DQuat) -> Vec<f64> {
    const ROUNDS: usize = 16;
    let start = EulerOrder::completing(&[first, second])
        .expect("two distinct axes complete to an order")
        .from_dquat(target);
    let (mut alpha, mut beta) = (start.x, start.y);
    for _ in 0..ROUNDS {
        alpha = twist_angle(target * second.rotation(beta).inverse(), first);
        beta = twist_angle(first.rotation(alpha).inverse() * target, second);
    }
    vec![alpha, beta]
}

/// The rotation angle between two unit quaternions (either cover), radians.
fn rotation_angle_between(a: DQuat, b: DQuat) -> f64 {
    let chord = (a - b).length().min((a + b).length());
    4.0 * (0.5 * chord).min(1.0).asin()
}

/// Of the angle lists equivalent to `angles`, the one nearest `near` (sum of absolute
/// differences).
/// The largest angle (degrees) whose turns are kept, read or written: f32 holds it to about
/// 1e-4°. Beyond it an angle is taken modulo a turn.
pub(super) const FOLLOWED_DEGREES: f64 = 2048.0;

/// [`FOLLOWED_DEGREES`] in radians.
const MAX_FOLLOWED_ANGLE: f64 = FOLLOWED_DEGREES * PI / 180.0;

fn nearest_equivalent(angles: &[f64], near: &[f64]) -> Vec<f64> {
    // Turns are followed only while f32 can still hold the angle to about 1e-4°; beyond, the
    // angle stays within half a turn of the input's angle modulo a turn.
    let followed = |target: f64| {
        if target.abs() <= MAX_FOLLOWED_ANGLE {
            target
        } else {
            target - (target / TAU).round() * TAU
        }
    };
    let wrap_near =
        |angle: f64, target: f64| angle + ((followed(target) - angle) / TAU).round() * TAU;
    let wrapped = |candidate: &[f64]| -> Vec<f64> {
        candidate
            .iter()
            .zip(near)
            .map(|(&angle, &target)| wrap_near(angle, target))
            .collect()
    };
    let plain = wrapped(angles);
    if let [a, b, c] = *angles {
        let flipped = wrapped(&[a + PI, PI - b, c + PI]);
        // Measured from the followed angles, so that huge ones do not swamp the comparison.
        let near: Vec<f64> = near.iter().map(|&t| followed(t)).collect();
        let distance = |candidate: &[f64]| -> f64 {
            candidate
                .iter()
                .zip(&near)
                .map(|(a, b)| (a - b).abs())
                .sum()
        };
        if distance(&flipped) < distance(&plain) {
            return flipped;
        }
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_input_angles_are_followed_modulo_a_turn() {
        let axes = [Axis::Z, Axis::X, Axis::Y];
        let near = [467179373.4683f64.to_radians(), 0.1, -1e7f64.to_radians()];
        let rotation = product(&axes, &[0.3, 0.2, 0.1]).as_quat();
        let (angles, residual) = encode(&axes, rotation, Some(&near));
        assert!(residual < 1e-6, "{residual}");
        for angle in &angles {
            assert!(angle.abs() <= PI + 1e-9, "{angles:?}");
        }
    }

    #[test]
    fn three_axes_take_the_solution_nearest_the_given_angles() {
        let axes = [Axis::Z, Axis::X, Axis::Y];
        let near = [
            170f64.to_radians(),
            100f64.to_radians(),
            -190f64.to_radians(),
        ];
        let rotation = product(&axes, &near).as_quat();
        let (angles, residual) = encode(&axes, rotation, Some(&near));
        assert!(residual < 1e-6, "{residual}");
        for (a, b) in angles.iter().zip(near) {
            assert!((a - b).abs() < 1e-5, "{angles:?} vs {near:?}");
        }
    }

    #[test]
    fn two_axes_find_the_nearest_rotation_they_express() {
        let (first, second) = (Axis::X, Axis::Z);
        let target = DQuat::from_euler(glam::EulerRot::XZY, 0.7, -0.4, 0.3);
        let (angles, residual) = encode(&[first, second], target.as_quat(), None);
        // No pair on a fine grid comes closer.
        let mut best = f64::INFINITY;
        for i in -180..180 {
            for j in -180..180 {
                let q = product(
                    &[first, second],
                    &[f64::from(i) * PI / 180.0, f64::from(j) * PI / 180.0],
                );
                best = best.min(rotation_angle_between(q, target));
            }
        }
        assert!(residual <= best + 1e-4, "{residual} > {best} at {angles:?}");
        assert!(residual > 0.1, "the third angle was needed: {residual}");
    }

    #[test]
    fn one_axis_takes_the_twist() {
        let target = DQuat::from_rotation_x(0.5) * DQuat::from_rotation_y(0.2);
        let (angles, _) = encode(&[Axis::X], target.as_quat(), Some(&[TAU]));
        assert!((angles[0] - (0.5 + TAU)).abs() < 1e-3, "{angles:?}");
    }
}
