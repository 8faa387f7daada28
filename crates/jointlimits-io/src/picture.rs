//! Pictures: an RGB canvas with anti-aliasing-free strokes and discs, saved as PNG.
//!
//! The PNG writer is deliberately small: 8-bit RGB, no filtering, and zlib "stored" (uncompressed)
//! deflate blocks, which every PNG reader accepts. Pictures of a few hundred pixels a side stay
//! well under a megabyte.

use std::io::{self, Write};
use std::path::Path;

use crate::atomic::write_atomically;

/// An RGB colour.
pub type Rgb = [u8; 3];

/// A raster of RGB pixels with drawing in a user coordinate frame (y up).
#[derive(Clone, Debug, PartialEq)]
pub struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<Rgb>,
    /// User units to pixels.
    scale: f32,
    /// The user point at the picture's centre.
    centre: [f32; 2],
}

impl Canvas {
    /// A `width × height` canvas filled with `background`, showing user coordinates around
    /// `centre` at `scale` pixels per unit.
    pub fn new(
        width: usize,
        height: usize,
        background: Rgb,
        centre: [f32; 2],
        scale: f32,
    ) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![background; width * height],
            scale,
            centre,
        }
    }

    /// The width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The pixel at column `x`, row `y` (row 0 at the top).
    pub fn pixel(&self, x: usize, y: usize) -> Rgb {
        self.pixels[y * self.width + x]
    }

    /// A user point in pixel coordinates (x right, y down).
    pub fn to_pixels(&self, point: [f32; 2]) -> [f32; 2] {
        [
            self.width as f32 / 2.0 + (point[0] - self.centre[0]) * self.scale,
            self.height as f32 / 2.0 - (point[1] - self.centre[1]) * self.scale,
        ]
    }

    /// A filled disc of `radius` pixels at a user point.
    pub fn disc(&mut self, centre: [f32; 2], radius: f32, colour: Rgb) {
        let [cx, cy] = self.to_pixels(centre);
        self.fill_where(
            cx - radius,
            cy - radius,
            cx + radius,
            cy + radius,
            colour,
            |x, y| (x - cx).powi(2) + (y - cy).powi(2) <= radius * radius,
        );
    }

    /// A stroke `thickness` pixels wide between two user points, with round ends.
    pub fn line(&mut self, from: [f32; 2], to: [f32; 2], thickness: f32, colour: Rgb) {
        let ([ax, ay], [bx, by]) = (self.to_pixels(from), self.to_pixels(to));
        let half = thickness / 2.0;
        let (dx, dy) = (bx - ax, by - ay);
        let length_squared = (dx * dx + dy * dy).max(1e-12);
        self.fill_where(
            ax.min(bx) - half,
            ay.min(by) - half,
            ax.max(bx) + half,
            ay.max(by) + half,
            colour,
            |x, y| {
                let t = (((x - ax) * dx + (y - ay) * dy) / length_squared).clamp(0.0, 1.0);
                (x - ax - t * dx).powi(2) + (y - ay - t * dy).powi(2) <= half * half
            },
        );
    }

    /// A dashed stroke: dashes and gaps of `dash` pixels.
    pub fn dashed_line(
        &mut self,
        from: [f32; 2],
        to: [f32; 2],
        thickness: f32,
        dash: f32,
        colour: Rgb,
    ) {
        let ([ax, ay], [bx, by]) = (self.to_pixels(from), self.to_pixels(to));
        let length = ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt();
        let pieces = (length / dash).ceil().max(1.0) as usize;
        for piece in (0..pieces).step_by(2) {
            let t0 = piece as f32 / pieces as f32;
            let t1 = ((piece + 1) as f32 / pieces as f32).min(1.0);
            let at = |t: f32| {
                [
                    from[0] + (to[0] - from[0]) * t,
                    from[1] + (to[1] - from[1]) * t,
                ]
            };
            self.line(at(t0), at(t1), thickness, colour);
        }
    }

    /// Paints the pixels of the box `[x0, x1] × [y0, y1]` (pixel coordinates) whose centres pass
    /// `inside`.
    fn fill_where(
        &mut self,
        x0: f32,
        y0: f32,
        x1: f32,
        y1: f32,
        colour: Rgb,
        inside: impl Fn(f32, f32) -> bool,
    ) {
        if !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite()) {
            return;
        }
        let clamp_x = |v: f32| (v.max(0.0) as usize).min(self.width);
        let clamp_y = |v: f32| (v.max(0.0) as usize).min(self.height);
        for y in clamp_y(y0.floor())..clamp_y(y1.ceil() + 1.0) {
            for x in clamp_x(x0.floor())..clamp_x(x1.ceil() + 1.0) {
                if inside(x as f32 + 0.5, y as f32 + 0.5) {
                    self.pixels[y * self.width + x] = colour;
                }
            }
        }
    }

    /// The picture as PNG bytes.
    pub fn to_png(&self) -> Vec<u8> {
        let mut raw = Vec::with_capacity(self.height * (1 + 3 * self.width));
        for row in self.pixels.chunks(self.width.max(1)) {
            raw.push(0); // filter type: none
            for pixel in row {
                raw.extend_from_slice(pixel);
            }
        }
        let mut header = Vec::with_capacity(13);
        header.extend_from_slice(&(self.width as u32).to_be_bytes());
        header.extend_from_slice(&(self.height as u32).to_be_bytes());
        header.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter, no interlace
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        chunk(&mut png, b"IHDR", &header);
        chunk(&mut png, b"IDAT", &zlib_stored(&raw));
        chunk(&mut png, b"IEND", &[]);
        png
    }

    /// Writes the picture as a PNG file, atomically (an existing file is replaced whole or kept).
    pub fn write_png_file(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let bytes = self.to_png();
        write_atomically(path.as_ref(), |out| out.write_all(&bytes))
    }
}

/// Appends a PNG chunk: length, type, data, CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored deflate blocks (at most 65,535 bytes each) with its Adler-32.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = if data.is_empty() {
        vec![&[][..]]
    } else {
        data.chunks(65_535).collect()
    };
    for (index, block) in blocks.iter().enumerate() {
        out.push(u8::from(index + 1 == blocks.len())); // BFINAL, BTYPE = stored
        let length = block.len() as u16;
        out.extend_from_slice(&length.to_le_bytes());
        out.extend_from_slice(&(!length).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

/// CRC-32 (IEEE, reflected), bit by bit over a nibble table.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 16] = {
        let mut table = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 4 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &byte in bytes {
        crc = TABLE[((crc ^ u32::from(byte)) & 0xF) as usize] ^ (crc >> 4);
        crc = TABLE[((crc ^ (u32::from(byte) >> 4)) & 0xF) as usize] ^ (crc >> 4);
    }
    !crc
}

/// Adler-32 of `bytes`.
pub(crate) fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for block in bytes.chunks(5552) {
        for &byte in block {
            a += u32::from(byte);
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_known_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn png_has_valid_chunks_and_round_trips_its_pixels() {
        let mut canvas = Canvas::new(300, 260, [255, 255, 255], [0.0, 0.0], 100.0);
        canvas.line([-1.0, 0.0], [1.0, 0.5], 4.0, [200, 0, 0]);
        canvas.disc([0.0, 0.0], 5.0, [0, 0, 255]);
        assert_eq!(canvas.pixel(150, 130), [0, 0, 255]);
        let png = canvas.to_png();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Walk the chunks, checking every CRC and collecting the image data.
        let (mut at, mut data, mut kinds) = (8, Vec::new(), Vec::new());
        while at < png.len() {
            let length = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let body = &png[at + 4..at + 8 + length];
            let crc =
                u32::from_be_bytes(png[at + 8 + length..at + 12 + length].try_into().unwrap());
            assert_eq!(crc32(body), crc);
            kinds.push(String::from_utf8_lossy(&body[..4]).into_owned());
            if &body[..4] == b"IDAT" {
                data.extend_from_slice(&body[4..]);
            }
            at += 12 + length;
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
        // Undo the stored blocks and compare with the pixels.
        let (mut raw, mut at) = (Vec::new(), 2);
        loop {
            let last = data[at] & 1 == 1;
            let length = u16::from_le_bytes([data[at + 1], data[at + 2]]) as usize;
            let check = u16::from_le_bytes([data[at + 3], data[at + 4]]);
            assert_eq!(check, !(length as u16));
            raw.extend_from_slice(&data[at + 5..at + 5 + length]);
            at += 5 + length;
            if last {
                break;
            }
        }
        assert_eq!(
            u32::from_be_bytes(data[at..at + 4].try_into().unwrap()),
            adler32(&raw)
        );
        assert_eq!(raw.len(), 260 * (1 + 300 * 3));
        let row = 130 * (1 + 300 * 3);
        assert_eq!(raw[row], 0);
        assert_eq!(&raw[row + 1 + 150 * 3..row + 4 + 150 * 3], &[0, 0, 255]);
    }
}
