//! Twist intervals, with twist angles taken modulo a full turn.
//!
//! A twist angle `τ` and `τ + 2πk` are the same rotation about the twist axis, so an interval
//! `[min, max]` allows every turn of it: `τ` is allowed when some `τ + 2πk` lies inside. The
//! distance of `τ` from the interval is the smallest `|τ + 2πk − clamp(τ + 2πk)|` over `k`.

use std::f32::consts::TAU;

use serde::{Deserialize, Serialize};

/// An interval of twist angles, radians, allowed modulo 2π (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwistRange {
    /// Smallest allowed twist.
    pub min: f32,
    /// Largest allowed twist (`min ≤ max`).
    pub max: f32,
}

/// A twist measured against a [`TwistRange`]: the turn of the input that was used, and the
/// allowed twist nearest to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwistMeasure {
    /// The input twist plus the whole turns that bring it nearest to the interval.
    pub turned: f32,
    /// The nearest allowed twist to `turned`: `turned` itself when inside.
    pub allowed: f32,
    /// `|turned − allowed|`, 0 inside.
    pub distance: f32,
}

impl TwistRange {
    /// Whether `twist` itself (not another turn of it) is inside.
    #[inline]
    pub fn contains(&self, twist: f32) -> bool {
        (self.min..=self.max).contains(&twist)
    }

    /// Whether `twist` or a turn of it lies in the interval shrunk by `margin` at both ends, as
    /// [`TwistRange::measure`] takes turns but branch-free, for lane tests: with both ends
    /// shrunk, a turn that rounding would wrap across an end is never taken.
    #[inline(always)]
    pub(crate) fn holds_within(&self, twist: f32, margin: f32) -> bool {
        let (min, max) = (self.min + margin, self.max - margin);
        let offset = twist - min;
        let turned = min + (offset - TAU * (offset * (1.0 / TAU)).floor());
        (twist >= min) & (twist <= max) | (turned >= min) & (turned <= max)
    }

    /// The nearest point of the interval to `twist` itself (no turns).
    #[inline]
    pub fn clamp(&self, twist: f32) -> f32 {
        twist.clamp(self.min, self.max)
    }

    /// Both ends are finite and `min ≤ max`.
    pub fn is_valid(&self) -> bool {
        self.validate().is_ok()
    }

    /// Bounded, ordered ends (field `twist`; see [`crate::validation`]).
    pub fn validate(&self) -> Result<(), crate::validation::InvalidField> {
        crate::validation::interval("twist", self.min, self.max)
    }

    /// The turn of `twist` nearest to the interval and its nearest allowed twist (module docs).
    ///
    /// With `r = min + ((twist − min) mod 2π)`, `r ∈ [min, min + 2π)`: inside when `r ≤ max`;
    /// otherwise `r` lies above `max` and `r − 2π` below `min`, and the nearer of the two wins
    /// (`max` on a tie: the documented switch point half a turn from the interval's middle).
    #[inline]
    pub fn measure(&self, twist: f32) -> TwistMeasure {
        if self.contains(twist) {
            return TwistMeasure {
                turned: twist,
                allowed: twist,
                distance: 0.0,
            };
        }
        // (twist − min) mod 2π by a floor, which vectorises (`%` on floats is a library call).
        let offset = twist - self.min;
        let turned = self.min + (offset - TAU * (offset * (1.0 / TAU)).floor());
        if turned <= self.max {
            return TwistMeasure {
                turned,
                allowed: turned,
                distance: 0.0,
            };
        }
        let (above, below) = (turned - self.max, self.min + TAU - turned);
        if above <= below {
            TwistMeasure {
                turned,
                allowed: self.max,
                distance: above,
            }
        } else {
            TwistMeasure {
                turned: turned - TAU,
                allowed: self.min,
                distance: below,
            }
        }
    }

    /// Like [`TwistRange::measure`], but using the turn of `twist` nearest to `previous` (the
    /// turn a stream used last frame), so a twist driven round and round stays on one side.
    /// A twist that some turn puts inside is allowed and stays as it is, whatever the turn
    /// nearest `previous` (an interval a whole turn wide has no seam).
    #[inline]
    pub fn measure_from(&self, twist: f32, previous: f32) -> TwistMeasure {
        let turned = twist + TAU * ((previous - twist) / TAU).round();
        let allowed = self.clamp(turned);
        if allowed != turned {
            let stateless = self.measure(twist);
            if stateless.distance == 0.0 {
                return stateless;
            }
        }
        TwistMeasure {
            turned,
            allowed,
            distance: (turned - allowed).abs(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_measure_is_the_nearest_over_every_turn(
            min in -7.0f32..7.0, width in 0.0f32..6.0, twist in -20.0f32..20.0,
        ) {
            let range = TwistRange { min, max: min + width };
            let m = range.measure(twist);
            let brute = (-5..=5)
                .map(|k| {
                    let t = twist + TAU * k as f32;
                    (t - range.clamp(t)).abs()
                })
                .fold(f32::INFINITY, f32::min);
            prop_assert!((m.distance - brute).abs() < 1e-4, "{m:?} vs {brute}");
            prop_assert!(range.contains(m.allowed) || (m.allowed - range.clamp(m.allowed)).abs() < 1e-6);
            let k = ((m.turned - twist) / TAU).round();
            prop_assert!((m.turned - twist - TAU * k).abs() < 1e-4);
        }
    }

    #[test]
    fn a_whole_turn_has_no_seam_for_streams() {
        // [−π, π] allows every twist: a stream coming from just below π and going on past it
        // is never clamped at π.
        let range = TwistRange {
            min: -std::f32::consts::PI,
            max: std::f32::consts::PI,
        };
        let mut previous = 3.0;
        for step in 0..40 {
            let twist = 3.0 + 0.01 * step as f32;
            let wrapped = if twist > std::f32::consts::PI {
                twist - TAU
            } else {
                twist
            };
            let m = range.measure_from(wrapped, previous);
            assert_eq!(m.distance, 0.0, "{twist}: {m:?}");
            previous = m.turned;
        }
    }

    #[test]
    fn twists_a_full_turn_away_are_inside() {
        let range = TwistRange {
            min: -0.5,
            max: 0.5,
        };
        for t in [TAU, -TAU, 2.0 * TAU + 0.2, -TAU - 0.4] {
            assert_eq!(range.measure(t).distance, 0.0, "{t}");
        }
        // Half a turn from the middle both ends are equally far: the maximum is chosen.
        let m = range.measure(std::f32::consts::PI);
        assert_eq!(m.allowed, 0.5);
        // A stream coming from below keeps the minimum there.
        assert_eq!(range.measure_from(std::f32::consts::PI, -2.9).allowed, -0.5);
    }
}
