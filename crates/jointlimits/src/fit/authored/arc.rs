//! The shortest arc of the circle that holds a set of angles.

use std::f64::consts::{PI, TAU};

/// The shortest interval `[min, max]` that holds every angle modulo 2π: the complement of the
/// widest gap between neighbours around the circle. Its middle is in `[−π, π]` and
/// `0 ≤ max − min < 2π`; `None` when there are no angles or one is not finite.
///
/// ```
/// use jointlimits::fit::authored::covering_arc;
/// // 170° and −170° are 20° apart across ±180°.
/// let (min, max) = covering_arc([170f64.to_radians(), (-170f64).to_radians()]).unwrap();
/// assert!(((max - min).to_degrees() - 20.0).abs() < 1e-9);
/// assert!((min.to_degrees().rem_euclid(360.0) - 170.0).abs() < 1e-9);
/// ```
pub fn covering_arc(angles: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let mut around: Vec<f64> = Vec::new();
    for angle in angles {
        if !angle.is_finite() {
            return None;
        }
        // A tiny negative angle's remainder rounds up to 2π itself: that is 0.
        around.push(angle.rem_euclid(TAU) % TAU);
    }
    around.sort_by(f64::total_cmp);
    let (&first, &last) = (around.first()?, around.last()?);
    // The gap across 0 first; then each gap between sorted neighbours, from `around[i]` to
    // `around[i + 1]`.
    let mut widest = (first + TAU - last, first, last);
    for pair in around.windows(2) {
        let gap = pair[1] - pair[0];
        if gap > widest.0 {
            widest = (gap, pair[1], pair[0] + TAU);
        }
    }
    let (_, min, max) = widest;
    let turns = ((min + max) / 2.0 / TAU).round();
    let (min, max) = (min - turns * TAU, max - turns * TAU);
    debug_assert!(((min + max) / 2.0).abs() <= PI + 1e-9);
    Some((min, max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The narrowest arc by brute force: every start angle on a fine grid, each with the
    /// narrowest width that reaches every angle from it.
    fn brute_force_width(angles: &[f64]) -> f64 {
        (0..36_000)
            .map(|step| {
                let start = f64::from(step) * TAU / 36_000.0;
                angles
                    .iter()
                    .map(|a| (a - start).rem_euclid(TAU))
                    .fold(0.0, f64::max)
            })
            .fold(f64::INFINITY, f64::min)
    }

    proptest! {
        #[test]
        fn holds_every_angle_and_is_the_narrowest(
            centre in -20.0f64..20.0,
            offsets in prop::collection::vec(-3.5f64..3.5, 1..40),
        ) {
            let angles: Vec<f64> = offsets.iter().map(|o| centre + o).collect();
            let (min, max) = covering_arc(angles.iter().copied()).unwrap();
            prop_assert!(max - min < TAU && max >= min);
            for angle in &angles {
                // How far past `min` the angle is around the circle (just under a turn is just
                // below `min`, by rounding).
                let past = (angle - min).rem_euclid(TAU);
                let inside = past <= max - min + 1e-9 || past >= TAU - 1e-9;
                prop_assert!(inside, "{angle} outside [{min}, {max}]");
            }
            // Grid spacing 0.01°: the brute force is at most that much wider.
            prop_assert!(max - min <= brute_force_width(&angles) + 1e-9);
        }
    }

    #[test]
    fn empty_or_not_finite_gives_none() {
        assert_eq!(covering_arc([]), None);
        assert_eq!(covering_arc([0.0, f64::NAN]), None);
    }
}
