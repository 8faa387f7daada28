//! The five values a table stores per grid vertex, and their 16-bit codes.
//!
//! Every value is held on a lattice of 65,536 levels over a fixed range, the same in memory, in
//! limits files and in exported images, so that a table written and read back (or exported and
//! imported) is the same table, bit for bit.
//!
//! | channel | meaning | range | code 0 → 65535 |
//! |---|---|---|---|
//! | `allowed` | signed angular distance to the boundary of allowed directions | [−π, π] rad | outside (π) → inside (−π): white is allowed |
//! | `twist_min` | smallest allowed twist at that direction | [−2π, 2π] rad | −2π → 2π |
//! | `twist_max` | largest allowed twist at that direction | [−2π, 2π] rad | −2π → 2π |
//! | `stress` | how strained the joint is there | [0, 1] | 0 → 1 |
//! | `break_margin` | how far past the boundary the joint breaks | [0, π] rad | 0 → π |

use std::f32::consts::{PI, TAU};

/// One of the five stored values (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Signed angular distance to the boundary of allowed directions, negative inside.
    Allowed,
    /// The smallest allowed twist.
    TwistMin,
    /// The largest allowed twist.
    TwistMax,
    /// Stress in [0, 1].
    Stress,
    /// How far past the boundary the joint breaks, radians.
    BreakMargin,
}

/// The largest code.
const LEVELS: f32 = 65535.0;

impl Channel {
    /// All five, in the order of files and images.
    pub const ALL: [Channel; 5] = [
        Channel::Allowed,
        Channel::TwistMin,
        Channel::TwistMax,
        Channel::Stress,
        Channel::BreakMargin,
    ];

    /// The channel's name in files and image names.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Allowed => "allowed",
            Channel::TwistMin => "twist_min",
            Channel::TwistMax => "twist_max",
            Channel::Stress => "stress",
            Channel::BreakMargin => "break_margin",
        }
    }

    /// The values of code 0 and of code 65535.
    fn ends(self) -> (f32, f32) {
        match self {
            Channel::Allowed => (PI, -PI),
            Channel::TwistMin | Channel::TwistMax => (-TAU, TAU),
            Channel::Stress => (0.0, 1.0),
            Channel::BreakMargin => (0.0, PI),
        }
    }

    /// The value of `code`.
    #[inline]
    pub fn decode(self, code: u16) -> f32 {
        let (zero, full) = self.ends();
        zero + (full - zero) * (f32::from(code) / LEVELS)
    }

    /// The code nearest `value` (clamped into the range; NaN goes to code 0).
    #[inline]
    pub fn encode(self, value: f32) -> u16 {
        let (zero, full) = self.ends();
        let t = ((value - zero) / (full - zero)).clamp(0.0, 1.0);
        if t.is_nan() {
            return 0;
        }
        (t * LEVELS).round() as u16
    }

    /// `value` moved onto the channel's lattice: `decode(encode(value))`.
    #[inline]
    pub fn quantize(self, value: f32) -> f32 {
        self.decode(self.encode(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_decodes_and_encodes_back() {
        for channel in Channel::ALL {
            for code in 0..=u16::MAX {
                assert_eq!(channel.encode(channel.decode(code)), code, "{channel:?}");
            }
        }
    }

    #[test]
    fn white_is_allowed_and_ranges_clamp() {
        assert!(Channel::Allowed.decode(u16::MAX) < 0.0);
        assert!(Channel::Allowed.decode(0) > 0.0);
        assert_eq!(Channel::Stress.encode(7.0), u16::MAX);
        assert_eq!(Channel::TwistMin.encode(f32::NAN), 0);
    }
}
