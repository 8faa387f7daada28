//! Holding a share of a joint's frames: leaving out the outliers (a capture glitch, a marker swap)
//! that would otherwise stretch every fitted shape.
//!
//! Frames are ranked by their Mahalanobis distance in scaled angle-axis space under a robust
//! estimate of the centre and spread, found by concentration steps (as in the minimum covariance
//! determinant estimator): starting from the mean and covariance of every frame, each step
//! re-estimates them from the `CORE_SHARE` of frames nearest under the previous estimate. A
//! burst of glitch frames far from the rest therefore cannot pull the estimate towards itself,
//! and ranks last. The share held keeps the frames ranked first, each clip in its order.

use glam::{DMat3, DVec3, Quat};

use crate::rotation::quat_abs;
use crate::space::full_point;

/// The share of frames each concentration step estimates the centre and spread from.
const CORE_SHARE: f64 = 0.75;

/// Concentration steps: each cannot increase the core's covariance determinant, and a few
/// settle it on motion capture.
const CONCENTRATION_STEPS: usize = 4;

/// The frames of `relative` (one list per clip) to hold when a share `hold` in `(0, 1]` of them
/// must be held: every frame but the `⌊(1 − hold)·n⌋` (at most `n − 1`) of largest robust Mahalanobis distance
/// (module docs), each clip's kept frames in their order. `hold = 1` keeps every frame.
pub fn hold_share(relative: &[Vec<Quat>], hold: f64) -> Vec<Vec<Quat>> {
    let total: usize = relative.iter().map(Vec::len).sum();
    // A hair of slack so that, say, 10% of 100 frames is 10 despite rounding; one frame is
    // always held (a share as small as 1e-300 holds some).
    let dropped = (((1.0 - hold.clamp(0.0, 1.0)) * total as f64 + 1e-9).floor() as usize)
        .min(total.saturating_sub(1));
    if dropped == 0 || total < 4 {
        return relative.to_vec();
    }
    let points: Vec<DVec3> = relative
        .iter()
        .flatten()
        .map(|&q| full_point(quat_abs(q)).as_dvec3())
        .collect();
    let distances = robust_distances(&points);
    // The `dropped`-th largest distance is the threshold; ties at it are broken by order, so
    // exactly `dropped` frames go.
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by(|&a, &b| distances[b].total_cmp(&distances[a]).then(a.cmp(&b)));
    let mut keep = vec![true; total];
    for &index in &order[..dropped] {
        keep[index] = false;
    }
    let mut next = 0;
    relative
        .iter()
        .map(|clip| {
            let kept = clip
                .iter()
                .zip(&keep[next..next + clip.len()])
                .filter_map(|(&q, &k)| k.then_some(q))
                .collect();
            next += clip.len();
            kept
        })
        .collect()
}

/// Each point's squared Mahalanobis distance under the robust centre and spread of `points`
/// (module docs).
fn robust_distances(points: &[DVec3]) -> Vec<f64> {
    let mut estimate = Spread::of(points.iter().copied());
    let core = ((CORE_SHARE * points.len() as f64).ceil() as usize).clamp(1, points.len());
    for _ in 0..CONCENTRATION_STEPS {
        let distances: Vec<f64> = points.iter().map(|&p| estimate.distance(p)).collect();
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| distances[a].total_cmp(&distances[b]));
        estimate = Spread::of(order[..core].iter().map(|&i| points[i]));
    }
    points.iter().map(|&p| estimate.distance(p)).collect()
}

/// A centre and the inverse of a covariance, regularised so that a joint that never moves in
/// some direction still has one.
struct Spread {
    centre: DVec3,
    inverse_covariance: DMat3,
}

impl Spread {
    /// The mean and regularised covariance of `points` (at least one).
    fn of(points: impl Iterator<Item = DVec3> + Clone) -> Spread {
        let count = points.clone().count().max(1) as f64;
        let centre = points.clone().sum::<DVec3>() / count;
        let mut covariance = DMat3::ZERO;
        for p in points {
            let d = p - centre;
            covariance += DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        }
        covariance *= 1.0 / count;
        // A floor of a hundredth of a degree squared, and a millionth of the spread, on every
        // axis: the inverse exists even for a joint that does not move.
        let trace = covariance.x_axis.x + covariance.y_axis.y + covariance.z_axis.z;
        let floor = 3e-8 + 1e-6 * trace;
        covariance += DMat3::from_diagonal(DVec3::splat(floor));
        Spread {
            centre,
            inverse_covariance: covariance.inverse(),
        }
    }

    /// The squared Mahalanobis distance of `p`.
    fn distance(&self, p: DVec3) -> f64 {
        let d = p - self.centre;
        d.dot(self.inverse_covariance * d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jointlimits_testdata::SplitMix;

    #[test]
    fn a_burst_of_glitch_frames_is_what_goes() {
        let mut random = SplitMix(5);
        let natural = |random: &mut SplitMix| {
            Quat::from_scaled_axis(glam::Vec3::new(
                0.4 * random.next_signed(),
                0.2 * random.next_signed(),
                0.1 * random.next_signed(),
            ))
        };
        let first: Vec<Quat> = (0..500).map(|_| natural(&mut random)).collect();
        let mut second: Vec<Quat> = (0..500).map(|_| natural(&mut random)).collect();
        // Ten frames of a glitch: the joint flung 150° about z and back, mid-clip.
        for (k, q) in second[200..210].iter_mut().enumerate() {
            *q = Quat::from_rotation_z(2.0 + 0.06 * k as f32);
        }
        let held = hold_share(&[first.clone(), second.clone()], 0.99);
        assert_eq!(held[0].len() + held[1].len(), 990);
        assert!(second[200..210].iter().all(|q| !held[1].contains(q)));
        // Order within each clip is kept.
        let positions: Vec<usize> = held[0]
            .iter()
            .map(|q| first.iter().position(|p| p == q).unwrap())
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(hold_share(std::slice::from_ref(&first), 1.0), vec![first]);
    }

    #[test]
    fn a_joint_that_never_moves_keeps_a_share_of_its_frames() {
        let still = vec![vec![Quat::IDENTITY; 100]];
        let held = hold_share(&still, 0.9);
        assert_eq!(held[0].len(), 90);
        // However small the share, a frame is held.
        assert_eq!(hold_share(&still, 1e-300)[0].len(), 1);
    }
}
