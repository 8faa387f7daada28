//! Preferring relaxed poses: once the end effector is on its target, the chain moves through the
//! poses that keep it there towards lower total stress (for limits that store stress: tables).
//!
//! A chain of more than two joints reaches a target in a whole family of poses. Each round turns
//! every joint down its stress gradient, `zᵢ = −w·∇Sᵢ` (world rotation vectors, the gradient by
//! central differences), with the part that would move the end effector taken out: the end moves
//! by `v = Σ zᵢ × lᵢ` (`lᵢ` the lever from joint `i` to the end), and subtracting `lᵢ × y` with
//! `y = (λ²I + Σ [lᵢ]ₓ[lᵢ]ₓᵀ)⁻¹ (v + e)` cancels it and closes the remaining error `e` as the
//! damped least-squares step does. The step is first-order, so a few least-squares steps then
//! bring the end back onto the target. A round is kept only when the total stress falls and the
//! end is within the tolerance; otherwise the step halves.

use glam::{Mat3, Quat, Vec3};

use super::chain::Chain;
use crate::rotation::from_scaled_angle_axis;

/// Rounds of stress relief at most.
const ROUNDS: usize = 24;

/// The angle of the central differences, radians.
const DIFFERENCE: f32 = 0.01;

/// Least-squares steps after each round to bring the end back onto the target.
const CLOSING_STEPS: usize = 4;

/// The largest turn one round gives a joint, radians.
const LARGEST_TURN: f32 = 0.2;

/// The stress of joint `i` with world turn `turn` applied before its own rotation (0 for limits
/// that store none).
fn joint_stress(chain: &Chain, i: usize, turn: Quat) -> f32 {
    let Some(limit) = chain.limit(i) else {
        return 0.0;
    };
    let parent = chain.parent_world(i);
    let local = parent.conjugate() * turn * parent * chain.local_rotations()[i];
    limit.assess(local).stress.unwrap_or(0.0)
}

/// The chain's total stress over its free joints.
pub(crate) fn total_stress(chain: &Chain) -> f32 {
    (chain.first_free_joint()..chain.len())
        .map(|i| joint_stress(chain, i, Quat::IDENTITY))
        .sum()
}

/// Relieves stress while keeping the end effector within `tolerance` of `target` (module docs);
/// `weight` is the step per unit of stress gradient. Returns the end's distance afterwards.
pub(crate) fn relieve_stress(
    chain: &mut Chain,
    target: Vec3,
    weight: f32,
    tolerance: f32,
    damping: f32,
) -> f32 {
    let free = chain.first_free_joint()..chain.len();
    let mut stress = total_stress(chain);
    let mut step = weight;
    let mut saved = Vec::with_capacity(chain.len());
    let mut turns = vec![Vec3::ZERO; chain.len()];
    for _ in 0..ROUNDS {
        if stress <= 0.0 || step < weight / 64.0 {
            break;
        }
        let end = chain.end_effector();
        let mut moved = Vec3::ZERO;
        let mut normal = Mat3::from_diagonal(Vec3::splat(damping * damping));
        for i in free.clone() {
            let gradient = Vec3::AXES.map(|axis| {
                let turn = |angle: f32| Quat::from_axis_angle(axis, angle);
                (joint_stress(chain, i, turn(DIFFERENCE))
                    - joint_stress(chain, i, turn(-DIFFERENCE)))
                    / (2.0 * DIFFERENCE)
            });
            let z = -step * Vec3::from_array(gradient);
            let lever = end - chain.positions()[i];
            turns[i] = z;
            moved += z.cross(lever);
            normal += Mat3::from_diagonal(Vec3::splat(lever.length_squared()))
                - Mat3::from_cols(lever * lever.x, lever * lever.y, lever * lever.z);
        }
        let y = normal.inverse() * (moved - (target - end));
        for i in free.clone() {
            let lever = end - chain.positions()[i];
            let turn = turns[i] - lever.cross(y);
            turns[i] = turn.clamp_length_max(LARGEST_TURN);
        }
        if !turns.iter().all(|t| t.is_finite()) {
            break;
        }
        chain.save(&mut saved);
        chain.turn_all(|i, _| from_scaled_angle_axis(turns[i]), true);
        // The step is straight in a curved family of poses (and limits bend it): least-squares
        // steps bring the end back onto the target.
        for _ in 0..CLOSING_STEPS {
            if chain.end_effector().distance(target) <= tolerance {
                break;
            }
            super::solve::damped_least_squares_step(chain, target, damping, true);
        }
        let after = total_stress(chain);
        if after < stress && chain.end_effector().distance(target) <= tolerance {
            stress = after;
        } else {
            chain.restore(&saved);
            step *= 0.5;
        }
    }
    chain.end_effector().distance(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ik::{IkOptions, Solver, StopReason, solve};
    use crate::table::{TableLimit, TableValues};
    use crate::twist::TwistRange;
    use crate::{JointLimit, LimitRegion};

    /// A joint that may swing 100° from +Y, stress rising with the swing.
    fn table_joint() -> JointLimit {
        let table = TableLimit::from_fn(Vec3::Y, 32, |d| {
            let swing = d.angle_between(Vec3::Y);
            TableValues {
                allowed: swing - 100f32.to_radians(),
                twist: TwistRange {
                    min: -std::f32::consts::PI,
                    max: std::f32::consts::PI,
                },
                stress: (swing / 100f32.to_radians()).min(1.0),
                break_margin: 0.3,
            }
        });
        JointLimit {
            joint: "joint".into(),
            reference: Quat::IDENTITY,
            region: LimitRegion::Table(table),
            softening: None,
        }
    }

    #[test]
    fn a_stress_weight_finds_a_more_relaxed_pose_on_the_target() {
        let limit = table_joint();
        let targets = [
            Vec3::new(1.4, 1.9, 0.3),
            Vec3::new(-0.8, 1.5, 1.2),
            Vec3::new(0.5, 2.2, -0.9),
        ];
        let (mut plain_total, mut relaxed_total) = (0.0, 0.0);
        for target in targets {
            let solved = |stress_weight: f32| {
                // A bent start, so the plain solve settles on a strained pose.
                let mut chain = Chain::new(
                    Vec3::ZERO,
                    Quat::IDENTITY,
                    vec![
                        Quat::from_rotation_z(0.9),
                        Quat::from_rotation_z(-1.2),
                        Quat::from_rotation_x(0.8),
                    ],
                    vec![Vec3::Y; 3],
                    vec![Some(&limit); 3],
                )
                .unwrap();
                let options = IkOptions {
                    stress_weight,
                    ..IkOptions::default()
                };
                let report = solve(&mut chain, target, Solver::Relaxation, &options);
                assert_eq!(report.stop, StopReason::Reached, "{target}");
                assert!(chain.end_effector().distance(target) <= options.tolerance);
                assert!(chain.limit_violation() <= 1e-4);
                total_stress(&chain)
            };
            let (plain, relaxed) = (solved(0.0), solved(0.5));
            eprintln!("{target}: total stress {plain} → {relaxed}");
            assert!(relaxed < plain, "{target}: {plain} → {relaxed}");
            (plain_total, relaxed_total) = (plain_total + plain, relaxed_total + relaxed);
        }
        assert!(
            relaxed_total < 0.8 * plain_total,
            "{plain_total} → {relaxed_total}"
        );
    }
}
