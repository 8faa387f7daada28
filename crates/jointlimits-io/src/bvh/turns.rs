//! A rotation angle written in degrees, taken modulo a turn exactly from its decimal text.
//!
//! Neither f32 nor f64 holds a huge angle to the degree: `1e20` is exact in f64, but any
//! arithmetic that rounds its quotient by 360 loses everything (the quotient needs 58 bits), and
//! `123456789012345678901234567` is not even held: the nearest f64 lies 4e9 away. The written
//! number is `±D·10^e` for the integer `D` of its digits, so its remainder modulo 360 follows from
//! `D mod 360` and `10^e mod 360` in integers, and a fraction of `k` digits from `D mod 360·10^k`.

/// Fraction digits kept exactly: `360·10^k` fits 128 bits up to `k = 35`; a number written with
/// more fraction digits than that is read as f64 first, whose remainder by 360 is exact.
const MOST_FRACTION_DIGITS: i64 = 35;

/// The angle `degrees` (a finite number, as written in `word`) taken modulo a turn into
/// `(−180, 180]`, exactly as written where the text is a plain decimal (`[±]digits[.digits][e±n]`),
/// otherwise from its f64 value.
pub(super) fn degrees_modulo_turn(word: &str, degrees: f64) -> f64 {
    let remainder = exact_remainder(word).unwrap_or(degrees % 360.0);
    if remainder > 180.0 {
        remainder - 360.0
    } else if remainder <= -180.0 {
        remainder + 360.0
    } else {
        remainder
    }
}

/// The written number's remainder modulo 360 (sign of the number), or `None` when the text is not
/// a plain decimal or has too many fraction digits.
fn exact_remainder(word: &str) -> Option<f64> {
    let (negative, unsigned) = match word.as_bytes().first()? {
        b'-' => (true, &word[1..]),
        b'+' => (false, &word[1..]),
        _ => (false, word),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || whole.bytes().chain(fraction.bytes());
    if whole.is_empty() && fraction.is_empty() || !digits().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The number is D·10^(exponent − fraction digits).
    let scale = exponent.checked_sub(fraction.len() as i64)?;
    let signed = |remainder: f64| if negative { -remainder } else { remainder };
    if scale >= 0 {
        let d = digits().fold(0u64, |r, b| (r * 10 + u64::from(b - b'0')) % 360);
        return Some(signed((d * power_of_ten_modulo_360(scale) % 360) as f64));
    }
    let shift = -scale;
    if shift > MOST_FRACTION_DIGITS {
        return None;
    }
    let unit = 10u128.pow(shift as u32);
    let d = digits().fold(0u128, |r, b| (r * 10 + u128::from(b - b'0')) % (360 * unit));
    // Whole degrees exactly, then the fraction of a degree to f64's precision.
    let whole_degrees = (d / unit) as f64;
    let fraction = (d % unit) as f64 / unit as f64;
    Some(signed(whole_degrees + fraction))
}

/// `10^n mod 360` (from `n = 3` on it is 280).
fn power_of_ten_modulo_360(n: i64) -> u64 {
    match n {
        0 => 1,
        1 => 10,
        2 => 100,
        _ => 280,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(word: &str) -> f64 {
        degrees_modulo_turn(word, word.parse().unwrap())
    }

    #[test]
    fn huge_angles_are_taken_modulo_a_turn_as_written() {
        // 10^n ≡ 280 (mod 360) for n ≥ 3; 3·280 = 840 ≡ 120.
        for (word, expected) in [
            ("1e15", -80.0),
            ("1e20", -80.0),
            ("1E37", -80.0),
            ("-1e30", 80.0),
            ("3e38", 120.0),
            ("+1e300", -80.0),
            ("123456789012345678901234567", 127.0),
            ("-123456789012345678901234567", -127.0),
            ("1000000000000000000000.5", -79.5),
            ("1234567.25", 127.25),
            ("-4000.5", -40.5),
            ("2.5e4", 160.0),
            ("12345e-2", 123.45),
            ("540", 180.0),
            ("-540", 180.0),
            (".5e4", -40.0),
            ("7200.", 0.0),
        ] {
            let got = read(word);
            assert!(
                (got - expected).abs() < 1e-9,
                "{word}: {got}, not {expected}"
            );
        }
    }

    #[test]
    fn text_that_is_not_a_plain_decimal_falls_back_to_its_value() {
        // Rust reads these, but they are not digits: the f64 remainder (exact for the value).
        assert_eq!(degrees_modulo_turn("1e99999999999999999999", 1e20), -80.0);
        assert_eq!(read("0.1e-40"), 1e-41);
        assert!((read("4000.123456789012345678901234567890123456789") - 40.123456789).abs() < 1e-9);
    }
}
