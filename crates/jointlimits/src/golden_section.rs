//! Golden-section search: the minimum of a function of one variable within a bracket, with no
//! derivatives.

/// The share of the bracket each step keeps, `(√5 − 1)/2`.
const RATIO: f32 = 0.618_034;

/// Narrows the bracket `[low, high]` around a minimum of `f` by up to `steps` golden sections
/// (its width shrinks by [`RATIO`] per step), stopping as soon as a value is `good`. Returns the
/// better of the two interior points and its value.
pub(crate) fn golden_section(
    f: impl Fn(f32) -> f32,
    (mut low, mut high): (f32, f32),
    steps: usize,
    good: impl Fn(f32) -> bool,
) -> (f32, f32) {
    let (mut a, mut b) = (high - RATIO * (high - low), low + RATIO * (high - low));
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..steps {
        if good(fa) || good(fb) {
            break;
        }
        if fa <= fb {
            high = b;
            (b, fb) = (a, fa);
            a = high - RATIO * (high - low);
            fa = f(a);
        } else {
            low = a;
            (a, fa) = (b, fb);
            b = low + RATIO * (high - low);
            fb = f(b);
        }
    }
    if fa <= fb { (a, fa) } else { (b, fb) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_a_parabola_and_stops_when_good() {
        let f = |x: f32| (x - 0.3) * (x - 0.3);
        let (x, value) = golden_section(f, (-1.0, 1.0), 40, |_| false);
        assert!((x - 0.3).abs() < 1e-3 && value < 1e-6, "{x} {value}");
        let (_, value) = golden_section(f, (-1.0, 1.0), 40, |v| v < 0.1);
        assert!(value < 0.1 && value > 1e-6, "{value}");
    }
}
