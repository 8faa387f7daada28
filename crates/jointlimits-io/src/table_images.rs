//! A lookup table as five grayscale PNG images, one per channel, to paint in any image editor.
//!
//! Image `JOINT.CHANNEL.png` (channel `allowed`, `twist_min`, `twist_max`, `stress` or
//! `break_margin`) has one pixel per grid vertex: `(N + 1) × (N + 1)` pixels for a table of `N`
//! cells per side. Pixel `(x, y)`, `y` counted from the top, is vertex `(x, N − y)`: the centre
//! pixel is the bone pointing along its axis, the diamond through the edge midpoints is the bone
//! at 90°, and the four corners are the bone pointing straight back; the map keeps areas, so a
//! blob painted anywhere covers the solid angle it looks like it covers. Pixels on opposite
//! halves of an outer edge (`(x, 0)` and `(N − x, 0)`, likewise the other edges) are the same
//! direction; where they differ the table takes their mean, and the import says so.
//!
//! Gray levels are the table's own 16-bit codes ([`Channel`]): for `allowed`, white is allowed
//! and black is not, and the boundary runs where the interpolated level crosses mid-gray, so a
//! region painted in plain black and white has its boundary halfway between painted and unpainted
//! pixels (export writes the signed distance, which keeps the boundary where the table had it);
//! twist levels run from −360° (black) to +360° (white); stress from 0 to 1; break margin from 0
//! to 180°. Export writes 16-bit images, so that export followed by import gives the same table
//! bit for bit; import also reads 8-bit images (level `k` as code `257·k`) and RGB ones whose
//! pixels are gray.

use std::f32::consts::TAU;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use glam::Vec3;
use jointlimits::RotationLimit;
use jointlimits::table::{Channel, TableLimit, VertexGrid};
use jointlimits::validation::InvalidField;

use crate::atomic::write_atomically;

/// The largest image side import reads (a table of 2048 cells per side).
const LARGEST_SIDE: u32 = 2049;

/// Why table images cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TableImageError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The problem.
        source: io::Error,
    },
    /// The file is not a PNG image this reader understands.
    #[error("{path}: not a readable PNG image: {message}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// The decoder's message.
        message: String,
    },
    /// The image is readable but unusable as a table channel.
    #[error("{path}: {message}")]
    Unusable {
        /// The file.
        path: PathBuf,
        /// The problem.
        message: String,
    },
    /// The images together do not make a valid table.
    #[error("{dir}: the images of joint {joint:?} make no valid table: {source}")]
    Invalid {
        /// The folder.
        dir: PathBuf,
        /// The joint.
        joint: String,
        /// The field and the problem.
        source: InvalidField,
    },
}

/// The file name of `joint`'s image of `channel`: characters other than letters, digits and
/// `_ - . :` in the joint's name become `_`.
pub fn image_file_name(joint: &str, channel: Channel) -> String {
    let safe: String = joint
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "_-.:".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.{}.png", channel.name())
}

/// Writes the five images of `table` for `joint` into `dir` (which must exist), each atomically;
/// returns their paths in [`Channel::ALL`]'s order.
pub fn export_table_images(
    table: &TableLimit,
    joint: &str,
    dir: &Path,
) -> Result<Vec<PathBuf>, TableImageError> {
    let side = table.resolution() + 1;
    let mut written = Vec::with_capacity(5);
    for (grid, channel) in table.grids().into_iter().zip(Channel::ALL) {
        let path = dir.join(image_file_name(joint, channel));
        let mut bytes = Vec::with_capacity(2 * side * side);
        for y in 0..side {
            let row = side - 1 - y;
            for x in 0..side {
                bytes.extend_from_slice(&channel.encode(grid.values[row * side + x]).to_be_bytes());
            }
        }
        write_atomically(&path, |out| write_gray16(out, side as u32, &bytes)).map_err(
            |source| TableImageError::Io {
                path: path.clone(),
                source,
            },
        )?;
        written.push(path);
    }
    Ok(written)
}

/// A 16-bit grayscale PNG of `side × side` pixels holding `bytes` (big-endian samples, rows from
/// the top).
fn write_gray16(out: &mut impl Write, side: u32, bytes: &[u8]) -> io::Result<()> {
    let mut encoder = png::Encoder::new(out, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Sixteen);
    encoder.set_compression(png::Compression::Best);
    let mut writer = encoder.write_header().map_err(io::Error::other)?;
    writer.write_image_data(bytes).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

/// A table read from images, and what the reader noticed but could repair.
#[derive(Debug)]
pub struct ImportedTable {
    /// The table.
    pub table: TableLimit,
    /// Problems repaired (pixels of one direction that differed), one line each.
    pub warnings: Vec<String>,
}

/// Reads the five images of `joint` from `dir` into a table about the unit `twist_axis`,
/// validated: every image square, of one size, `N + 1` pixels for `N` from 4 to 2048, gray,
/// and together a valid table (some direction allowed, twist minimum at most the maximum at every
/// pixel).
pub fn import_table_images(
    dir: &Path,
    joint: &str,
    twist_axis: Vec3,
) -> Result<ImportedTable, TableImageError> {
    let mut grids = Vec::with_capacity(5);
    let mut warnings = Vec::new();
    let mut size: Option<(u32, PathBuf)> = None;
    for channel in Channel::ALL {
        let path = dir.join(image_file_name(joint, channel));
        let (side, codes) = read_gray16(&path)?;
        if let Some((first, first_path)) = &size
            && *first != side
        {
            return Err(TableImageError::Unusable {
                path,
                message: format!(
                    "is {side}×{side} pixels but {} is {first}×{first}: the five images of a table have one size",
                    first_path.display()
                ),
            });
        }
        size = Some((side, path.clone()));
        let side = side as usize;
        let n = side - 1;
        let mut values = vec![0.0; side * side];
        for y in 0..side {
            let row = n - y;
            for x in 0..side {
                values[row * side + x] = channel.decode(codes[y * side + x]);
            }
        }
        if let Some(message) = fold_mismatch(&codes, side, channel) {
            warnings.push(format!("{}: {message}", path.display()));
        }
        grids.push(VertexGrid {
            resolution: n,
            values,
        });
    }
    let grids: [VertexGrid; 5] = grids.try_into().expect("five channels");
    let table = TableLimit::from_grids(twist_axis, grids);
    table
        .validate()
        .map_err(|source| TableImageError::Invalid {
            dir: dir.to_path_buf(),
            joint: joint.to_string(),
            source: pixel_named(source, table.resolution()),
        })?;
    Ok(ImportedTable { table, warnings })
}

/// `error` with a vertex index in its field (`twist_min[i]`) said as the image pixel `(x, y)`.
fn pixel_named(error: InvalidField, resolution: usize) -> InvalidField {
    let side = resolution + 1;
    let Some((name, index)) = error
        .field
        .strip_suffix(']')
        .and_then(|f| f.split_once('['))
        .and_then(|(name, index)| Some((name.to_string(), index.parse::<usize>().ok()?)))
    else {
        return error;
    };
    let (x, y) = (index % side, resolution - index / side);
    let problem = match error.problem.split_once(" the ") {
        Some((_, rest)) if error.problem.starts_with("at pixel") => format!("the {rest}"),
        _ => error.problem,
    };
    InvalidField::new(format!("{name} pixel ({x}, {y})"), problem)
}

/// Which pixels that show one direction (fold partners on the outer edges, the four corners)
/// differ, said once with a count; `None` when all agree. Twist limits are compared as the
/// table reads them: the corners point opposite the axis, where twist has no single meaning
/// (each corner keeps its own), and edge partners may differ by whole turns (the twist of a
/// rotation field winds twice round that direction), so only a difference modulo a turn of
/// more than a code and a half (each partner rounded to its code) counts.
fn fold_mismatch(codes: &[u16], side: usize, channel: Channel) -> Option<String> {
    let n = side - 1;
    let at = |(x, y): (usize, usize)| codes[y * side + x];
    let mut pairs = Vec::new();
    for k in 0..=n / 2 {
        pairs.push(((k, 0), (n - k, 0)));
        pairs.push(((k, n), (n - k, n)));
        pairs.push(((0, k), (0, n - k)));
        pairs.push(((n, k), (n, n - k)));
    }
    pairs.extend([(n, 0), (0, n), (n, n)].map(|corner| ((0, 0), corner)));
    let twist = matches!(channel, Channel::TwistMin | Channel::TwistMax);
    let corner = |(x, y): (usize, usize)| (x == 0 || x == n) && (y == 0 || y == n);
    let code = channel.decode(1) - channel.decode(0);
    let differ = |a: (usize, usize), b: (usize, usize)| {
        if !twist {
            return at(a) != at(b);
        }
        if corner(a) || corner(b) {
            return false;
        }
        let difference = channel.decode(at(a)) - channel.decode(at(b));
        (difference - TAU * (difference / TAU).round()).abs() > 1.5 * code
    };
    let differing: Vec<_> = pairs.into_iter().filter(|&(a, b)| differ(a, b)).collect();
    let &((ax, ay), (bx, by)) = differing.first()?;
    let repair = if twist {
        "the table takes their mean, each on its own turn"
    } else {
        "the table takes their mean"
    };
    Some(format!(
        "{} pair(s) of edge pixels show one direction but differ, first ({ax}, {ay}) and ({bx}, {by}); {repair}",
        differing.len()
    ))
}

/// The side and the 16-bit gray levels (rows from the top) of the square PNG at `path`.
fn read_gray16(path: &Path) -> Result<(u32, Vec<u16>), TableImageError> {
    let bytes = std::fs::read(path).map_err(|source| TableImageError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode_table_image(&bytes).map_err(|problem| match problem {
        ImageProblem::Decode(message) => TableImageError::Decode {
            path: path.to_path_buf(),
            message,
        },
        ImageProblem::Unusable(message) => TableImageError::Unusable {
            path: path.to_path_buf(),
            message,
        },
    })
}

/// What is wrong with the bytes of a table image.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageProblem {
    /// Not a PNG this reader understands (the decoder's message).
    Decode(String),
    /// A PNG, but not a table channel (why).
    Unusable(String),
}

/// The side and the 16-bit gray levels (rows from the top) of the square PNG in `bytes`: 8- or
/// 16-bit, gray or RGB with gray pixels (with an alpha channel, every pixel opaque), `N + 1`
/// pixels a side for `N` from 4 to 2048.
pub fn decode_table_image(bytes: &[u8]) -> Result<(u32, Vec<u16>), ImageProblem> {
    let decode_error = |e: png::DecodingError| ImageProblem::Decode(e.to_string());
    let mut decoder =
        png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: 64 << 20 });
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(decode_error)?;
    let (width, height) = (reader.info().width, reader.info().height);
    if width != height {
        return Err(ImageProblem::Unusable(format!(
            "is {width}×{height} pixels; a table image is square"
        )));
    }
    if !(5..=LARGEST_SIDE).contains(&width) {
        return Err(ImageProblem::Unusable(format!(
            "is {width}×{width} pixels; a table image has N + 1 pixels a side for N from 4 to 2048"
        )));
    }
    let mut buffer = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buffer).map_err(decode_error)?;
    let samples = frame.color_type.samples();
    let wide = frame.bit_depth == png::BitDepth::Sixteen;
    let side = width as usize;
    if frame.width != width
        || frame.height != height
        || buffer.len() < side * side * samples * (1 + usize::from(wide))
    {
        return Err(ImageProblem::Unusable("has a frame of another size".into()));
    }
    let sample = |index: usize| -> u16 {
        if wide {
            u16::from_be_bytes([buffer[2 * index], buffer[2 * index + 1]])
        } else {
            u16::from(buffer[index]) * 257
        }
    };
    let colour = samples >= 3;
    // Gray with alpha has 2 samples a pixel, RGB with alpha 4: the last is the alpha.
    let alpha = samples % 2 == 0;
    let mut codes = Vec::with_capacity(side * side);
    for pixel in 0..side * side {
        let gray = sample(pixel * samples);
        if alpha {
            // A see-through pixel has no one value to read: refused rather than read as painted.
            let opacity = sample(pixel * samples + samples - 1);
            if opacity != u16::MAX {
                // Rounded down, so that a pixel a hair from opaque does not read as 100%.
                let percent = (1e5 * f64::from(opacity) / f64::from(u16::MAX)).floor() / 1e3;
                return Err(ImageProblem::Unusable(format!(
                    "pixel ({}, {}) is see-through (alpha {percent}%, not 100%); table images are opaque: flatten the image before saving it",
                    pixel % side,
                    pixel / side,
                )));
            }
        }
        if colour {
            let (green, blue) = (sample(pixel * samples + 1), sample(pixel * samples + 2));
            if green != gray || blue != gray {
                return Err(ImageProblem::Unusable(format!(
                    "pixel ({}, {}) is coloured ({gray}, {green}, {blue}); table images are gray",
                    pixel % side,
                    pixel / side
                )));
            }
        }
        codes.push(gray);
    }
    Ok((width, codes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("jointlimits-table-images-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn export_then_import_gives_the_same_table_bit_for_bit() {
        let dir = scratch("roundtrip");
        for (i, table) in TableLimit::examples().into_iter().enumerate() {
            let joint = format!("joint/{i}");
            let paths = export_table_images(&table, &joint, &dir).unwrap();
            assert_eq!(paths.len(), 5);
            let imported = import_table_images(&dir, &joint, table.twist_axis).unwrap();
            assert_eq!(imported.table, table);
            assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
        }
    }

    /// Writes an 8-bit gray image of `side²` pixels with level `level(x, y)`, as a paint
    /// program saves one.
    fn paint(path: &Path, side: usize, level: impl Fn(usize, usize) -> u8) {
        let mut bytes = Vec::new();
        for y in 0..side {
            for x in 0..side {
                bytes.push(level(x, y));
            }
        }
        let file = std::fs::File::create(path).unwrap();
        let mut encoder = png::Encoder::new(file, side as u32, side as u32);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&bytes).unwrap();
    }

    /// Paints a table of 64 cells with 8-bit levels: white where `allowed(x, y)`, black
    /// elsewhere, twist ±0.5 rad, stress 0.5, break margin 0.3 rad (each to the nearest level).
    fn paint_table(dir: &Path, joint: &str, allowed: impl Fn(usize, usize) -> bool) {
        let side = 65;
        let level = |channel: Channel, value: f32| (channel.encode(value) / 257) as u8;
        paint(
            &dir.join(image_file_name(joint, Channel::Allowed)),
            side,
            |x, y| {
                if allowed(x, y) { 255 } else { 0 }
            },
        );
        for (channel, value) in [
            (Channel::TwistMin, -0.5),
            (Channel::TwistMax, 0.5),
            (Channel::Stress, 0.5),
            (Channel::BreakMargin, 0.3),
        ] {
            paint(&dir.join(image_file_name(joint, channel)), side, |_, _| {
                level(channel, value)
            });
        }
    }

    #[test]
    fn a_painted_ring_with_a_hole_behaves_as_painted() {
        let dir = scratch("ring");
        // Diamonds around the centre pixel are circles around the axis on the sphere.
        let (centre, inner, outer) = (32i64, 8i64, 20i64);
        let ring = |x: usize, y: usize| {
            let r = (x as i64 - centre).abs() + (y as i64 - centre).abs();
            (inner..=outer).contains(&r)
        };
        paint_table(&dir, "ring", ring);
        let imported = import_table_images(&dir, "ring", Vec3::Y).unwrap();
        let table = imported.table;
        assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
        // Square radius r = √(1 − cos θ) in the near hemisphere; 32 pixels per unit.
        let pixels_from_axis = |d: Vec3| (1.0 - d.y).max(0.0).sqrt() * 32.0;
        let mut random = jointlimits::measure::SeededRandom::new(9);
        let (mut inside, mut outside) = (0, 0);
        for _ in 0..20_000 {
            let d = random.direction();
            let r = pixels_from_axis(d);
            let allowed = table.swing().contains(d);
            // Painted and unpainted pixels meet halfway: the boundary lies at 7.5 and 20.5.
            if d.y > 0.0 && (8.5..19.5).contains(&r) {
                assert!(allowed, "{d} at {r} pixels is painted white");
                inside += 1;
            } else if d.y < 0.0 || !(6.5..=21.5).contains(&r) {
                assert!(!allowed, "{d} at {r} pixels is painted black");
                outside += 1;
            }
        }
        assert!(inside > 500 && outside > 5000, "{inside} {outside}");
        // The hole: the bone along its axis is refused and moved onto the ring's inner edge.
        let limited = table.nearest(Quat::IDENTITY, &jointlimits::LimitContext::NONE);
        assert!(!limited.inside);
        let r = pixels_from_axis(limited.relative * Vec3::Y);
        assert!((r - 7.5).abs() < 0.6, "moved to {r} pixels from the axis");
        // Twist as painted, on the ring.
        let on_ring = Quat::from_rotation_x(0.5);
        let twisted = |t: f32| on_ring * Quat::from_rotation_y(t);
        let allowed = |q| table.contains(q, &jointlimits::LimitContext::NONE);
        assert!(allowed(twisted(0.45)) && allowed(twisted(-0.45)));
        assert!(!allowed(twisted(0.56)) && !allowed(twisted(-0.56)));
    }

    /// The orientation the README documents: image right and up are the pair of directions
    /// `(1 + s·a_x²·k, s·a_x·a_y·k, −s·a_x)` and `(a_x·a_y·k, s + a_y²·k, −a_y)` across the bone
    /// axis `a` (`s` its z's sign, `k = −1/(s + a_z)`), written out here rather than asked of
    /// glam, for axes on either side of the xy plane.
    #[test]
    fn image_right_and_up_are_the_documented_directions_across_the_axis() {
        let dir = scratch("orientation");
        for (name, axis) in [
            ("upper", Vec3::new(0.3, -0.5, 0.8)),
            ("lower", Vec3::new(-0.6, 0.2, -0.7)),
        ] {
            let a = axis.normalize();
            let s = if a.z >= 0.0 { 1.0 } else { -1.0 };
            let k = -1.0 / (s + a.z);
            let right = Vec3::new(1.0 + s * a.x * a.x * k, s * a.x * a.y * k, -s * a.x);
            let up = Vec3::new(a.x * a.y * k, s + a.y * a.y * k, -a.y);
            // A blob round pixel (56, 24) of 65: square point (0.75, 0.25), on the diamond, so
            // the bone at 90° from its axis, turned 22.5° from right towards up (the diamond's
            // edge spreads the azimuth evenly).
            paint_table(&dir, name, |x, y| {
                (x as i64 - 56).abs() + (y as i64 - 24).abs() <= 3
            });
            let table = import_table_images(&dir, name, a).unwrap().table;
            let allowed = |d: Vec3| table.swing().contains(d.normalize());
            let (cos, sin) = (22.5f32.to_radians().cos(), 22.5f32.to_radians().sin());
            assert!(
                allowed(cos * right + sin * up),
                "{name}: right, a little up"
            );
            for other in [
                sin * right + cos * up,
                cos * right - sin * up,
                -cos * right + sin * up,
                a,
                -a,
            ] {
                assert!(!allowed(other), "{name}: {other}");
            }
        }
    }

    #[test]
    fn unusable_images_are_refused_naming_the_file_and_the_pixel() {
        let dir = scratch("refused");
        let message = |joint: &str| {
            import_table_images(&dir, joint, Vec3::Y)
                .unwrap_err()
                .to_string()
        };
        // Missing images.
        assert!(
            message("nobody").contains("nobody.allowed.png"),
            "{}",
            message("nobody")
        );
        // Nothing allowed.
        paint_table(&dir, "empty", |_, _| false);
        let text = message("empty");
        assert!(
            text.contains("allowed") && text.contains("no direction"),
            "{text}"
        );
        // Twist minimum above the maximum at one pixel.
        paint_table(&dir, "crossed", |_, _| true);
        paint(&dir.join("crossed.twist_min.png"), 65, |x, y| {
            if (x, y) == (10, 20) { 200 } else { 100 }
        });
        let text = message("crossed");
        assert!(text.contains("twist_min pixel (10, 20)"), "{text}");
        // Sizes: not square, too small, differing.
        paint_table(&dir, "sizes", |_, _| true);
        paint(&dir.join("sizes.stress.png"), 33, |_, _| 0);
        let text = message("sizes");
        assert!(
            text.contains("sizes.stress.png") && text.contains("33×33"),
            "{text}"
        );
        paint(&dir.join("sizes.allowed.png"), 4, |_, _| 255);
        assert!(message("sizes").contains("4×4"), "{}", message("sizes"));
        // Not a PNG.
        paint_table(&dir, "garbage", |_, _| true);
        std::fs::write(dir.join("garbage.twist_max.png"), b"not an image").unwrap();
        let text = message("garbage");
        assert!(
            text.contains("garbage.twist_max.png") && text.contains("PNG"),
            "{text}"
        );
        // A lopsided edge is repaired and reported.
        paint_table(&dir, "edge", |x, y| y == 0 && x < 10 || (x, y) == (32, 32));
        let imported = import_table_images(&dir, "edge", Vec3::Y).unwrap();
        assert!(
            imported
                .warnings
                .iter()
                .any(|w| w.contains("edge.allowed.png")),
            "{:?}",
            imported.warnings
        );
    }

    #[test]
    fn twist_pixels_of_one_direction_are_compared_as_the_table_reads_them() {
        let (side, n) = (9, 8);
        let channel = Channel::TwistMin;
        let mut codes = vec![channel.encode(0.2); side * side];
        let set = |codes: &mut Vec<u16>, (x, y): (usize, usize), value: f32| {
            codes[y * side + x] = channel.encode(value);
        };
        // The corners point opposite the axis, where each keeps its own twist.
        for (corner, value) in [
            ((0, 0), -0.1),
            ((n, 0), 0.05),
            ((0, n), 2.0),
            ((n, n), -3.0),
        ] {
            set(&mut codes, corner, value);
        }
        assert_eq!(fold_mismatch(&codes, side, channel), None);
        // Edge partners a whole turn apart are one range.
        set(&mut codes, (2, 0), 0.2 - TAU);
        assert_eq!(fold_mismatch(&codes, side, channel), None);
        // Partners that differ otherwise are reported, and so are differing corners of a
        // channel with one value there.
        set(&mut codes, (2, 0), 0.5);
        let message = fold_mismatch(&codes, side, channel).expect("a mismatch");
        assert!(
            message.starts_with("1 pair(s)") && message.contains("(2, 0)"),
            "{message}"
        );
        let stress = vec![0u16; side * side];
        let mut corners = stress.clone();
        corners[0] = 1000;
        assert_eq!(fold_mismatch(&stress, side, Channel::Stress), None);
        assert!(fold_mismatch(&corners, side, Channel::Stress).is_some());
    }

    #[test]
    fn see_through_pixels_are_refused_and_opaque_alpha_is_read() {
        let encode = |alpha_at: (usize, usize), alpha: u8| {
            let side = 9;
            let mut pixels = Vec::new();
            for y in 0..side {
                for x in 0..side {
                    let opacity = if (x, y) == alpha_at { alpha } else { 255 };
                    pixels.extend([200, opacity]);
                }
            }
            let mut bytes = Vec::new();
            let mut encoder = png::Encoder::new(&mut bytes, side as u32, side as u32);
            encoder.set_color(png::ColorType::GrayscaleAlpha);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            writer.write_image_data(&pixels).unwrap();
            drop(writer);
            bytes
        };
        let (side, codes) = decode_table_image(&encode((3, 4), 255)).unwrap();
        assert_eq!(side, 9);
        assert!(codes.iter().all(|&c| c == 200 * 257));
        let problem = decode_table_image(&encode((3, 4), 0)).unwrap_err();
        assert!(
            matches!(&problem, ImageProblem::Unusable(m) if m.contains("pixel (3, 4) is see-through")),
            "{problem:?}"
        );
        // A hair from opaque reads so, not as 100%.
        let problem = decode_table_image(&encode((3, 4), 254)).unwrap_err();
        assert!(
            matches!(&problem, ImageProblem::Unusable(m) if m.contains("alpha 99.607%, not 100%")),
            "{problem:?}"
        );
    }
}
