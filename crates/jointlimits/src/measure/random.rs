//! Reproducible random inputs for measurement: uniformly random rotations (Haar measure, both
//! covers) and uniformly random directions, from a seeded SplitMix64 generator.

use std::f64::consts::TAU;

use glam::{DQuat, Quat, Vec3};

/// A small seeded generator (SplitMix64): the same seed gives the same numbers on every machine.
#[derive(Clone, Debug)]
pub struct SeededRandom {
    state: u64,
}

impl SeededRandom {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> SeededRandom {
        SeededRandom { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number uniform in `[0, 1)` with 53 random bits.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniformly random rotation (Haar measure on SO(3)), in a uniformly random cover.
    ///
    /// Shoemake's construction: for `u₁, u₂, u₃` uniform in `[0, 1)`,
    /// `q = (√(1−u₁)·sin 2πu₂, √(1−u₁)·cos 2πu₂, √u₁·sin 2πu₃, √u₁·cos 2πu₃)` is uniform on the
    /// unit 3-sphere, which covers SO(3) twice with the Haar measure.
    pub fn rotation(&mut self) -> Quat {
        let (u1, u2, u3) = (self.next_unit(), self.next_unit(), self.next_unit());
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let q = DQuat::from_xyzw(
            a * (TAU * u2).sin(),
            a * (TAU * u2).cos(),
            b * (TAU * u3).sin(),
            b * (TAU * u3).cos(),
        );
        q.as_quat().normalize()
    }

    /// A uniformly random unit direction (Archimedes: the height `z` is uniform in `[−1, 1]`).
    pub fn direction(&mut self) -> Vec3 {
        let z = 2.0 * self.next_unit() - 1.0;
        let azimuth = TAU * self.next_unit();
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(
            (r * azimuth.cos()) as f32,
            (r * azimuth.sin()) as f32,
            z as f32,
        )
        .normalize()
    }

    /// A uniformly random unit direction perpendicular to the unit `axis`.
    pub fn perpendicular(&mut self, axis: Vec3) -> Vec3 {
        let (first, second) = axis.any_orthonormal_pair();
        let angle = TAU * self.next_unit();
        (first * angle.cos() as f32 + second * angle.sin() as f32).normalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_rotations_are_uniform_in_angle_and_cover() {
        // Haar measure: the rotation angle θ has density (1 − cos θ)/π on [0, π], so
        // P(θ ≤ π/2) = (π/2 − 1)/π ≈ 0.1817; and both covers are equally likely.
        let mut random = SeededRandom::new(7);
        let n = 200_000;
        let (mut small, mut negative) = (0, 0);
        for _ in 0..n {
            let q = random.rotation();
            assert!((q.length() - 1.0).abs() < 1e-5);
            if 2.0 * q.w.abs().min(1.0).acos() <= std::f32::consts::FRAC_PI_2 {
                small += 1;
            }
            negative += usize::from(q.w < 0.0);
        }
        let expected = (std::f64::consts::FRAC_PI_2 - 1.0) / std::f64::consts::PI;
        assert!((small as f64 / n as f64 - expected).abs() < 0.004);
        assert!((negative as f64 / n as f64 - 0.5).abs() < 0.004);
    }

    #[test]
    fn random_directions_are_uniform_on_the_sphere() {
        // Cap of half-angle 60° around +X holds (1 − cos 60°)/2 = 1/4 of the sphere.
        let mut random = SeededRandom::new(11);
        let n = 200_000;
        let inside = (0..n).filter(|_| random.direction().x >= 0.5).count();
        assert!((inside as f64 / n as f64 - 0.25).abs() < 0.004);
    }

    #[test]
    fn the_same_seed_gives_the_same_numbers() {
        let (mut a, mut b) = (SeededRandom::new(3), SeededRandom::new(3));
        for _ in 0..100 {
            assert_eq!(a.rotation(), b.rotation());
        }
    }
}
