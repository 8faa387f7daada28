//! Polynomial `atan2` and `sin_cos` for the runtime path (a few nanoseconds each instead of the
//! C library's tens), accurate to a few 1e-7 radians, which is f32 rounding for the angles
//! limits deal with.

// The coefficients are quoted as published.
#![allow(clippy::excessive_precision)]

use glam::Vec4;
use std::f32::consts::{FRAC_PI_2, PI};

/// `atan(t)` for `t ∈ [0, 1]`.
#[inline(always)]
fn atan_unit(t: f32) -> f32 {
    t * atan_over_t(t * t)
}

/// `atan(√u)/√u` for `u = t² ∈ [0, 1]`: Hastings' odd polynomial for `atan` (Abramowitz &
/// Stegun 4.4.49, error below 2e-8) divided by `t`, so callers can skip a square root.
#[inline(always)]
pub fn atan_over_t(u: f32) -> f32 {
    polynomial(u, &HASTINGS)
}

/// Hastings' odd polynomial for `atan(t)` on `[0, 1]` divided by `t`, in powers of `t²`.
const HASTINGS: [f32; 9] = [
    1.0,
    -0.333_331_45,
    0.199_935_51,
    -0.142_088_99,
    0.106_562_64,
    -0.075_289_64,
    0.042_909_614,
    -0.016_165_737,
    0.002_866_225_7,
];

/// The least magnitude [`polynomial`] gives a power of its argument.
///
/// A smaller power's terms underflow to subnormal numbers, and an operation making one costs a
/// microcode assist of a hundred cycles or more on x86 (AVX lanes too): near the identity, where
/// most joints of a crowd rest, it made a crowd's frame 1.6 times slower and `limit_many` on it
/// twice as slow. Raised to this floor, a
/// power's terms (at most its coefficient, below 1, times 1e-18) still lie far below half a unit
/// in the last place of the term they join, which is about its own leading coefficient for so small
/// an argument: every series here has coefficients that shrink term by term. So the sum rounds to
/// the same bits as with the true power. The smallest coefficient (4e-19) times the floor is still
/// a normal number, and so is the floor squared.
const SMALLEST_POWER: f32 = 1e-18;

/// `c₀ + c₁x + c₂x² + …` (coefficients lowest first, shrinking) by Estrin's scheme: neighbouring
/// terms are paired as `c₂ₖ + c₂ₖ₊₁·x`, the pairs paired again with `x²`, and so on. The work
/// equals Horner's rule, but the chain of dependent operations is `log₂ N` steps long instead of
/// `N`, and on the one-rotation-at-a-time path that chain is what the time is. Powers are kept at
/// least [`SMALLEST_POWER`] in magnitude, which changes no bit of the result and keeps every
/// operation off subnormal numbers.
#[inline(always)]
fn polynomial<const N: usize>(x: f32, coefficients: &[f32; N]) -> f32 {
    polynomial_with_powers_from(x, coefficients, SMALLEST_POWER)
}

/// [`polynomial`] with its powers kept at least `floor` in magnitude (0: the true powers).
#[inline(always)]
fn polynomial_with_powers_from<const N: usize>(x: f32, coefficients: &[f32; N], floor: f32) -> f32 {
    let mut terms = *coefficients;
    let mut len = N;
    // Comparisons rather than `max`, which would turn a NaN into the floor.
    let raised = |magnitude: f32| if magnitude < floor { floor } else { magnitude };
    let mut power = raised(x.abs()).copysign(x);
    while len > 1 {
        let pairs = len.div_ceil(2);
        for k in 0..pairs {
            terms[k] = if 2 * k + 1 < len {
                terms[2 * k] + terms[2 * k + 1] * power
            } else {
                terms[2 * k]
            };
        }
        len = pairs;
        power = raised(power * power);
    }
    terms[0]
}

/// The first `N` coefficients of a series.
const fn leading<const N: usize, const M: usize>(series: &[f32; M]) -> [f32; N] {
    let mut out = [0.0; N];
    let mut k = 0;
    while k < N {
        out[k] = series[k];
        k += 1;
    }
    out
}

/// Taylor coefficients of `sin(t)/t` in `−t²`: `1/(2k + 1)!`.
const SINC_SERIES: [f32; 10] = [
    1.0,
    1.0 / 6.0,
    1.0 / 120.0,
    1.0 / 5040.0,
    1.0 / 362_880.0,
    1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    1.0 / 1.307_674_4e12,
    1.0 / 3.556_874_3e14,
    1.0 / 1.216_451e17,
];

/// Taylor coefficients of `cos(t)` in `−t²`: `1/(2k)!`.
const COS_SERIES: [f32; 11] = [
    1.0,
    1.0 / 2.0,
    1.0 / 24.0,
    1.0 / 720.0,
    1.0 / 40_320.0,
    1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    1.0 / 8.717_829e10,
    1.0 / 2.092_279e13,
    1.0 / 6.402_374e15,
    1.0 / 2.432_902e18,
];

/// `(sin(θ/2)/θ, cos(θ/2))` from `θ²`, for `θ ∈ [0, 2π]`: Taylor series in `θ²/4`, so neither a
/// square root nor a division is needed (error below 3e-7).
#[inline(always)]
pub fn half_angle_sinc_cos(theta_squared: f32) -> (f32, f32) {
    // The series are in −t² with t = θ/2; the coefficients alternate through the sign of x.
    let x = -0.25 * theta_squared;
    (
        0.5 * polynomial(x, &SINC_SERIES),
        polynomial(x, &COS_SERIES),
    )
}

/// `atan2(y, x)` in `(−π, π]`; `atan2(0, 0) = 0`.
#[inline(always)]
pub fn atan2(y: f32, x: f32) -> f32 {
    let (ay, ax) = (y.abs(), x.abs());
    let (num, den) = if ay <= ax { (ay, ax) } else { (ax, ay) };
    if den == 0.0 {
        return if x < 0.0 {
            PI.copysign(y)
        } else {
            0.0f32.copysign(y)
        };
    }
    let base = atan_unit(num / den);
    let first_octants = if ay <= ax { base } else { FRAC_PI_2 - base };
    let upper = if x < 0.0 {
        PI - first_octants
    } else {
        first_octants
    };
    upper.copysign(y)
}

/// [`atan2`] of four pairs at once, for `y ≥ 0` (angles between directions, `[0, π]`), in one
/// set of SIMD lanes: the same reduction to `[0, 1]` and Hastings' polynomial (by Horner's
/// rule, so the last bit may differ from [`atan2`]'s).
#[inline(always)]
pub fn atan2_upper4(y: Vec4, x: Vec4) -> Vec4 {
    let ax = x.abs();
    let swapped = y.cmpgt(ax);
    let t = y.min(ax) / y.max(ax).max(Vec4::splat(f32::MIN_POSITIVE));
    let u = t * t;
    let mut series = Vec4::splat(HASTINGS[HASTINGS.len() - 1]);
    for &c in HASTINGS[..HASTINGS.len() - 1].iter().rev() {
        series = series * u + Vec4::splat(c);
    }
    let base = t * series;
    let first_octants = Vec4::select(swapped, Vec4::splat(FRAC_PI_2) - base, base);
    Vec4::select(
        x.cmplt(Vec4::ZERO),
        Vec4::splat(PI) - first_octants,
        first_octants,
    )
}

/// [`atan2`] of four pairs at once, any signs, in `[−π, π]`: [`atan2_upper4`] of `|y|`, given
/// `y`'s sign; `atan2(0, 0) = 0`.
#[inline(always)]
pub fn atan2_4(y: Vec4, x: Vec4) -> Vec4 {
    atan2_upper4(y.abs(), x).copysign(y)
}

/// `(sin x, cos x)` by Taylor polynomials about π/2 for `x ∈ [0, π]` (error below 1e-7), and
/// the library function outside that range.
#[inline(always)]
pub fn sin_cos(x: f32) -> (f32, f32) {
    if !(0.0..=PI).contains(&x) {
        return x.sin_cos();
    }
    // x = π/2 + y with |y| ≤ π/2: sin x = cos y, cos x = −sin y.
    let y = x - FRAC_PI_2;
    let minus_y2 = -y * y;
    // Seven terms each suffice for |y| ≤ π/2.
    const SIN: [f32; 7] = leading(&SINC_SERIES);
    const COS: [f32; 7] = leading(&COS_SERIES);
    let sin_y = y * polynomial(minus_y2, &SIN);
    let cos_y = polynomial(minus_y2, &COS);
    (cos_y, -sin_y)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Estrin's scheme with the true powers, subnormal or not: what [`polynomial`] computed
    /// before it raised tiny powers to [`SMALLEST_POWER`].
    fn with_true_powers<const N: usize>(x: f32, coefficients: &[f32; N]) -> f32 {
        polynomial_with_powers_from(x, coefficients, 0.0)
    }

    #[test]
    fn raising_tiny_powers_changes_no_bit() {
        // Every series over its whole argument range, densely at every magnitude down to the
        // smallest subnormal: 2,000 arguments per binary exponent, both signs, and zero.
        let magnitudes = (-149..=3).flat_map(|exponent| {
            (0..2000).map(move |k| 2f32.powi(exponent) * (1.0 + k as f32 / 2000.0))
        });
        const SIN: [f32; 7] = leading(&SINC_SERIES);
        const COS: [f32; 7] = leading(&COS_SERIES);
        let mut compared = 0;
        for magnitude in magnitudes.chain([0.0]) {
            for x in [magnitude, -magnitude] {
                if (0.0..=1.0).contains(&x) {
                    assert_eq!(
                        atan_over_t(x),
                        with_true_powers(x, &HASTINGS),
                        "atan at {x:e}"
                    );
                    compared += 1;
                }
                if (-PI * PI..=0.0).contains(&x) {
                    let (sinc, cos) = half_angle_sinc_cos(-4.0 * x);
                    assert_eq!(
                        sinc,
                        0.5 * with_true_powers(x, &SINC_SERIES),
                        "sinc at {x:e}"
                    );
                    assert_eq!(cos, with_true_powers(x, &COS_SERIES), "cos at {x:e}");
                    assert_eq!(
                        polynomial(x, &SIN),
                        with_true_powers(x, &SIN),
                        "sin at {x:e}"
                    );
                    assert_eq!(
                        polynomial(x, &COS),
                        with_true_powers(x, &COS),
                        "cos at {x:e}"
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 500_000, "{compared}");
        // And a NaN stays one.
        assert!(atan_over_t(f32::NAN).is_nan());
        assert!(half_angle_sinc_cos(f32::NAN).1.is_nan());
    }

    #[test]
    fn atan2_matches_the_library() {
        let mut worst = 0.0f32;
        for i in 0..20_000 {
            let a = i as f32 * 0.000_314_159 * 2.0 - PI;
            for r in [1e-6f32, 0.3, 1.0, 7.0] {
                let (y, x) = (r * a.sin(), r * a.cos());
                worst = worst.max((atan2(y, x) - y.atan2(x)).abs());
            }
        }
        // Two units in the last place of angles near π (Estrin's pairing rounds a little more
        // than Horner's rule).
        assert!(worst < 6e-7, "{worst}");
        assert_eq!(atan2(0.0, 0.0), 0.0);
        assert_eq!(atan2(0.0, -1.0), PI);
    }

    #[test]
    fn four_arctangents_at_once_match_one_at_a_time() {
        let mut worst = 0.0f32;
        for i in 0..20_000 {
            // Angles over [0, π] (y ≥ 0), each lane at its own radius, the axes included.
            let a = |k: u32| (i * 4 + k) as f32 / 80_000.0 * PI;
            let r = [1e-30f32, 1e-6, 1.0, 7.0];
            let y = Vec4::from_array([0, 1, 2, 3].map(|k| r[k as usize] * a(k).sin().abs()));
            let x = Vec4::from_array([0, 1, 2, 3].map(|k| r[k as usize] * a(k).cos()));
            let four = atan2_upper4(y, x).to_array();
            for k in 0..4 {
                worst = worst.max((four[k] - atan2(y[k], x[k])).abs());
            }
        }
        assert!(worst < 6e-7, "{worst}");
        let axes = atan2_upper4(
            Vec4::new(0.0, 0.0, 1.0, 0.0),
            Vec4::new(0.0, -1.0, 0.0, 1.0),
        );
        assert_eq!(axes.to_array(), [0.0, PI, FRAC_PI_2, 0.0]);
    }

    #[test]
    fn half_angle_series_match_the_library() {
        let mut worst = 0.0f32;
        for i in 1..=10_000 {
            let theta = i as f32 / 10_000.0 * 2.0 * PI;
            let (sinc, cos) = half_angle_sinc_cos(theta * theta);
            let (es, ec) = (0.5 * theta).sin_cos();
            worst = worst.max((sinc * theta - es).abs()).max((cos - ec).abs());
        }
        assert!(worst < 5e-7, "{worst}");
        assert_eq!(half_angle_sinc_cos(0.0), (0.5, 1.0));
    }

    #[test]
    fn sin_cos_matches_the_library() {
        let mut worst = 0.0f32;
        for i in 0..=10_000 {
            let x = i as f32 / 10_000.0 * PI;
            let (s, c) = sin_cos(x);
            let (es, ec) = x.sin_cos();
            worst = worst.max((s - es).abs()).max((c - ec).abs());
        }
        assert!(worst < 3e-7, "{worst}");
        assert_eq!(sin_cos(7.0), 7.0f32.sin_cos());
    }
}
