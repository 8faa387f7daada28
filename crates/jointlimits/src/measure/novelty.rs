//! How far unseen motion lies from the motion a limit was fitted to, and what that costs any
//! limit that must accept it.
//!
//! A limit asked to accept a share `P` of unseen frames must hold, near every fitted rotation,
//! the unseen rotations that fall there. With no shape assumed at all, the least a region can
//! do is hold the rotations within `r` of some fitted rotation, `r` the `P`-quantile of the
//! held-out rotations' angles to their nearest fitted rotation: the *sample neighbourhood*. Its
//! share of Haar-random rotations is the data's own reference for the tightness reachable at that
//! acceptance; a fitted kind that accepts as much unseen motion with fewer random rotations
//! generalises better than the samples themselves suggest.
//!
//! Angles are geodesic, `θ(a, b) = 2·acos |a·b|` (either cover). A neighbourhood of one
//! rotation with radius `r` holds `(r − sin r)/π` of all rotations:
//!
//! ```
//! use glam::Quat;
//! use jointlimits::measure::novelty::SampleNeighbourhood;
//!
//! let radius = 1.0f32;
//! let ball = SampleNeighbourhood::new(vec![Quat::IDENTITY], radius);
//! let share = ball.random_acceptance(40_000, 5);
//! let exact = (radius - radius.sin()) as f64 / std::f64::consts::PI;
//! assert!((share - exact).abs() < 0.003, "{share} against {exact}");
//! ```

use glam::Quat;
use rayon::prelude::*;

use super::tightness::random_rotation_share;

/// The geodesic angle (radians) from `rotation` to the nearest of `samples` (either cover);
/// `π` when there are none.
pub fn angle_to_nearest(samples: &[Quat], rotation: Quat) -> f32 {
    let nearest = samples
        .iter()
        .map(|s| s.dot(rotation).abs())
        .fold(0.0f32, f32::max);
    2.0 * nearest.min(1.0).acos()
}

/// The radius a sample neighbourhood needs to hold a share `share` of unseen motion, judged by
/// leaving each of `folds` out in turn: the `share`-quantile, over every fold's rotations, of
/// the angle to the nearest rotation of the other folds. `None` with fewer than two folds
/// holding rotations.
pub fn calibrated_radius(folds: &[Vec<Quat>], share: f64) -> Option<f32> {
    let filled: Vec<&Vec<Quat>> = folds.iter().filter(|f| !f.is_empty()).collect();
    if filled.len() < 2 {
        return None;
    }
    let mut angles: Vec<f32> = filled
        .iter()
        .enumerate()
        .flat_map(|(out, fold)| {
            let rest: Vec<Quat> = filled
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != out)
                .flat_map(|(_, f)| f.iter().copied())
                .collect();
            fold.par_iter()
                .map(|&q| angle_to_nearest(&rest, q))
                .collect::<Vec<f32>>()
        })
        .collect();
    angles.sort_by(f32::total_cmp);
    let rank = ((angles.len() - 1) as f64 * share.clamp(0.0, 1.0)).round() as usize;
    Some(angles[rank])
}

/// The rotations within a radius of some sample (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct SampleNeighbourhood {
    samples: Vec<Quat>,
    radius: f32,
}

impl SampleNeighbourhood {
    /// The rotations within `radius` (radians, geodesic) of one of `samples`.
    pub fn new(samples: Vec<Quat>, radius: f32) -> SampleNeighbourhood {
        SampleNeighbourhood { samples, radius }
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Whether `rotation` lies within the radius of a sample.
    pub fn contains(&self, rotation: Quat) -> bool {
        // θ ≤ r ⇔ |a·b| ≥ cos(r/2), with no arccosine per sample.
        let threshold = (0.5 * self.radius).cos();
        self.samples
            .iter()
            .any(|s| s.dot(rotation).abs() >= threshold)
    }

    /// The share of `rotations` it holds (0 for none).
    pub fn acceptance(&self, rotations: &[Quat]) -> f64 {
        if rotations.is_empty() {
            return 0.0;
        }
        let inside = rotations.par_iter().filter(|&&q| self.contains(q)).count();
        inside as f64 / rotations.len() as f64
    }

    /// The share of `samples` Haar-random rotations (drawn from `seed`) it holds.
    pub fn random_acceptance(&self, samples: usize, seed: u64) -> f64 {
        random_rotation_share(samples, seed, |q| self.contains(q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::SeededRandom;
    use glam::Vec3;

    #[test]
    fn angles_are_geodesic_in_either_cover() {
        let q = Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 2.5);
        let samples = [Quat::IDENTITY, Quat::from_rotation_x(3.0)];
        let expected = q.angle_between(Quat::IDENTITY);
        assert!((angle_to_nearest(&samples[..1], q) - expected).abs() < 1e-5);
        assert!((angle_to_nearest(&samples[..1], -q) - expected).abs() < 1e-5);
        assert_eq!(angle_to_nearest(&[], q), std::f32::consts::PI);
    }

    #[test]
    fn a_neighbourhood_of_one_rotation_holds_the_volume_of_its_ball() {
        for radius in [0.3f32, 1.0, 2.0, 3.0] {
            let ball = SampleNeighbourhood::new(vec![Quat::from_rotation_y(1.2)], radius);
            let share = ball.random_acceptance(60_000, 3);
            let exact = (radius - radius.sin()) as f64 / std::f64::consts::PI;
            assert!(
                (share - exact).abs() < 0.004,
                "{radius}: {share} against {exact}"
            );
        }
    }

    #[test]
    fn the_calibrated_radius_holds_the_share_of_each_left_out_fold() {
        let mut random = SeededRandom::new(9);
        // Three folds scattered about the same rotation.
        let centre = Quat::from_rotation_z(0.7);
        let folds: Vec<Vec<Quat>> = (0..3)
            .map(|_| {
                (0..300)
                    .map(|_| {
                        let axis = random.direction();
                        let angle = 0.4 * random.next_unit() as f32;
                        centre * Quat::from_axis_angle(axis, angle)
                    })
                    .collect()
            })
            .collect();
        let radius = calibrated_radius(&folds, 0.95).expect("three folds");
        for out in 0..3 {
            let rest: Vec<Quat> = (0..3)
                .filter(|&i| i != out)
                .flat_map(|i| folds[i].clone())
                .collect();
            let held = SampleNeighbourhood::new(rest, radius).acceptance(&folds[out]);
            assert!(held > 0.9, "fold {out}: {held}");
        }
        assert!(calibrated_radius(&folds[..1], 0.95).is_none());
        assert!(calibrated_radius(&[folds[0].clone(), Vec::new()], 0.95).is_none());
    }
}
