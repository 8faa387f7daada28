//! Colours and text shared by every figure.

use plotters::prelude::*;
use plotters::style::{FontStyle, RGBColor, TextStyle};
use std::sync::Once;

/// The bundled font (DejaVu Sans; its licence is in `fonts/DejaVu-LICENSE`).
const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The family name figures ask for.
pub const FONT_FAMILY: &str = "DejaVu Sans";

/// Samples inside the limit.
pub const INSIDE: RGBColor = RGBColor(0, 170, 0);
/// Samples outside the limit.
pub const OUTSIDE: RGBColor = RGBColor(230, 0, 40);
/// Directions or points no allowed rotation reaches.
pub const NOT_ALLOWED: RGBColor = RGBColor(228, 228, 228);
/// The region's boundary.
pub const BOUNDARY: RGBColor = RGBColor(30, 30, 30);
/// Axes, frames and text.
pub const INK: RGBColor = RGBColor(60, 60, 60);
/// Allowed twist range, narrowest: pale yellow…
const RAMP_LOW: [f32; 3] = [255.0, 236.0, 150.0];
/// …through orange…
const RAMP_MIDDLE: [f32; 3] = [240.0, 130.0, 70.0];
/// …to the widest: deep blue.
const RAMP_HIGH: [f32; 3] = [40.0, 50.0, 140.0];

/// Registers the bundled font once, under its own name and as `sans-serif`.
pub fn register_fonts() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        for name in [FONT_FAMILY, "sans-serif"] {
            // The bytes are a valid TrueType font, checked by the tests.
            let _ = plotters::style::register_font(name, FontStyle::Normal, FONT);
        }
    });
}

/// Text of `size` pixels in the bundled font.
pub fn text(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT_FAMILY, size).into_font()).color(&INK)
}

/// The colour of a share of twists allowed, `share` in `(0, 1]` (0 is [`NOT_ALLOWED`]).
pub fn twist_colour(share: f32) -> RGBColor {
    if share <= 0.0 {
        return NOT_ALLOWED;
    }
    let t = share.clamp(0.0, 1.0);
    let (from, to, s) = if t < 0.5 {
        (RAMP_LOW, RAMP_MIDDLE, t * 2.0)
    } else {
        (RAMP_MIDDLE, RAMP_HIGH, t * 2.0 - 1.0)
    };
    let mix = |i: usize| (from[i] + (to[i] - from[i]) * s).round() as u8;
    RGBColor(mix(0), mix(1), mix(2))
}

/// The colour of a sample.
pub fn sample_colour(inside: bool) -> RGBColor {
    if inside { INSIDE } else { OUTSIDE }
}

/// Draws the colour ramp of allowed twist as a vertical bar at `(x, y)`, `height` pixels tall,
/// with its labels.
pub fn draw_twist_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
    height: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&Text::new("allowed twist", (x - 10, y - 22), text(12.0)))?;
    for row in 0..height {
        let share = 1.0 - row as f32 / height as f32;
        root.draw(&Rectangle::new(
            [(x, y + row), (x + 16, y + row + 1)],
            twist_colour(share.max(1e-3)).filled(),
        ))?;
    }
    root.draw(&Rectangle::new([(x, y), (x + 16, y + height)], INK))?;
    for (label, share) in [("360°", 1.0), ("180°", 0.5), ("0°", 0.0)] {
        let at = y + ((1.0 - share) * height as f32) as i32;
        root.draw(&Text::new(label, (x + 22, at - 6), text(12.0)))?;
    }
    root.draw(&Rectangle::new(
        [(x, y + height + 14), (x + 16, y + height + 30)],
        NOT_ALLOWED.filled(),
    ))?;
    root.draw(&Text::new("none", (x + 22, y + height + 16), text(12.0)))?;
    for (row, (inside, label)) in [(true, "inside"), (false, "outside")].iter().enumerate() {
        let cy = y + height + 50 + 20 * row as i32;
        root.draw(&Circle::new(
            (x + 8, cy),
            4,
            sample_colour(*inside).filled(),
        ))?;
        root.draw(&Text::new(*label, (x + 22, cy - 7), text(12.0)))?;
    }
    Ok(())
}

/// At most `width` characters, ending in `…` when cut.
pub fn shorten(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}
