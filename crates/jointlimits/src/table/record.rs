//! How a table is kept in a limits file: each channel's 16-bit codes ([`Channel`]), row by row
//! as differences from the previous code (smooth tables become runs of small numbers), deflated
//! and written as base64 text, with a CRC-32 of the codes so that a damaged or hand-edited table
//! is refused rather than used.
//!
//! ```json
//! { "space": "table", "twist_axis": [0, 1, 0], "resolution": 64,
//!   "encoding": "u16-delta-deflate-base64", "crc32": "1c291ca3",
//!   "allowed": "eJzt…", "twist_min": "…", "twist_max": "…", "stress": "…", "break_margin": "…" }
//! ```

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::channels::Channel;
use super::grid::VertexGrid;
use super::limit::{RESOLUTIONS, TableLimit};
use super::swing_set::{edge_fold_pairs, fold_pairs};

/// The one encoding written and read.
pub const ENCODING: &str = "u16-delta-deflate-base64";

/// A table as stored in a limits file (module docs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRecord {
    /// The bone axis the grid is centred on.
    pub twist_axis: Vec3,
    /// Cells per side (the grids have `resolution + 1` vertices per side).
    pub resolution: usize,
    /// How the channels are encoded: [`ENCODING`].
    pub encoding: String,
    /// CRC-32 (IEEE) of every channel's codes, little-endian, in [`Channel::ALL`]'s order, as
    /// eight hex digits.
    pub crc32: String,
    /// Signed distance to the boundary of allowed directions.
    pub allowed: String,
    /// Smallest allowed twist.
    pub twist_min: String,
    /// Largest allowed twist.
    pub twist_max: String,
    /// Stress.
    pub stress: String,
    /// Break margin.
    pub break_margin: String,
}

impl From<TableLimit> for TableRecord {
    fn from(table: TableLimit) -> TableRecord {
        let codes = codes_of(&table);
        let [allowed, twist_min, twist_max, stress, break_margin] =
            codes.each_ref().map(|c| encode_channel(c));
        TableRecord {
            twist_axis: table.twist_axis,
            resolution: table.resolution(),
            encoding: ENCODING.into(),
            crc32: format!("{:08x}", checksum(&codes)),
            allowed,
            twist_min,
            twist_max,
            stress,
            break_margin,
        }
    }
}

impl TryFrom<TableRecord> for TableLimit {
    type Error = String;

    fn try_from(record: TableRecord) -> Result<TableLimit, String> {
        if record.encoding != ENCODING {
            return Err(format!(
                "table encoding {:?} is not the one this version reads ({ENCODING:?})",
                record.encoding
            ));
        }
        let n = record.resolution;
        if !RESOLUTIONS.contains(&n) {
            return Err(format!(
                "table resolution {n}: a table has {} to {} cells per side",
                RESOLUTIONS.start(),
                RESOLUTIONS.end()
            ));
        }
        let count = (n + 1) * (n + 1);
        let texts = [
            &record.allowed,
            &record.twist_min,
            &record.twist_max,
            &record.stress,
            &record.break_margin,
        ];
        let mut codes: [Vec<u16>; 5] = Default::default();
        for ((slot, text), channel) in codes.iter_mut().zip(texts).zip(Channel::ALL) {
            *slot = decode_channel(text, count)
                .map_err(|problem| format!("table channel {}: {problem}", channel.name()))?;
        }
        let found = format!("{:08x}", checksum(&codes));
        if !found.eq_ignore_ascii_case(record.crc32.trim()) {
            return Err(format!(
                "table checksum: the file says {}, the data give {found}: {DAMAGED}",
                record.crc32
            ));
        }
        for (channel_codes, channel) in codes.iter().zip(Channel::ALL) {
            fold_agreement(channel_codes, channel, n)
                .map_err(|problem| format!("table channel {}: {problem}", channel.name()))?;
        }
        let grids = codes
            .iter()
            .zip(Channel::ALL)
            .map(|(codes, channel)| VertexGrid {
                resolution: n,
                values: codes.iter().map(|&c| channel.decode(c)).collect(),
            })
            .collect::<Vec<_>>();
        let grids: [VertexGrid; 5] = grids.try_into().expect("five channels");
        Ok(TableLimit::from_grids(record.twist_axis, grids))
    }
}

/// Vertices that are one direction of the sphere (fold partners on the square's outer edges, and
/// the four corners) hold one code, as every table this program writes does; twist limits hold
/// one value modulo whole turns, within a code (a turn is 32767.5 codes), and the corners' are
/// free (see [`super::swing_set::fold_consistent_twist`]). A table that disagrees there was made
/// elsewhere and would be averaged silently; it is refused instead, naming the first two
/// vertices (row, column) that disagree.
fn fold_agreement(codes: &[u16], channel: Channel, resolution: usize) -> Result<(), String> {
    let side = resolution + 1;
    let disagreeing = if matches!(channel, Channel::TwistMin | Channel::TwistMax) {
        let turn = f64::from(u16::MAX) / 2.0;
        edge_fold_pairs(resolution).find(|&(a, b)| {
            let apart = f64::from(codes[a]) - f64::from(codes[b]);
            (apart - turn * (apart / turn).round()).abs() > 1.0
        })
    } else {
        fold_pairs(resolution).find(|&(a, b)| codes[a] != codes[b])
    };
    let Some((a, b)) = disagreeing else {
        return Ok(());
    };
    Err(format!(
        "vertices (row {}, column {}) and (row {}, column {}) are one direction, folded onto two \
         edges of the square, but hold codes {} and {}; a table agrees across its folds",
        a / side,
        a % side,
        b / side,
        b % side,
        codes[a],
        codes[b]
    ))
}

/// Every channel's codes, in [`Channel::ALL`]'s order.
pub fn codes_of(table: &TableLimit) -> [Vec<u16>; 5] {
    let grids = table.grids();
    std::array::from_fn(|k| {
        grids[k]
            .values
            .iter()
            .map(|&v| Channel::ALL[k].encode(v))
            .collect()
    })
}

/// The CRC-32 of the codes (module docs).
fn checksum(codes: &[Vec<u16>; 5]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for channel in codes {
        for code in channel {
            hasher.update(&code.to_le_bytes());
        }
    }
    hasher.finalize()
}

/// Differences, little-endian bytes, deflated, base64.
fn encode_channel(codes: &[u16]) -> String {
    let mut bytes = Vec::with_capacity(2 * codes.len());
    let mut previous = 0u16;
    for &code in codes {
        bytes.extend_from_slice(&code.wrapping_sub(previous).to_le_bytes());
        previous = code;
    }
    base64_encode(&miniz_oxide::deflate::compress_to_vec(&bytes, 9))
}

/// What a table that fails to decode says of itself.
const DAMAGED: &str = "the table was damaged or edited by hand; fit or write it again";

/// The inverse of [`encode_channel`], refusing anything but exactly `count` codes.
fn decode_channel(text: &str, count: usize) -> Result<Vec<u16>, String> {
    let deflated = base64_decode(text)?;
    let too_many =
        || format!("decodes to more than the {count} values its resolution gives: {DAMAGED}");
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, 2 * count + 1)
        .map_err(|e| match e.status {
            // The limit stops a table larger than its resolution says (or a deflate bomb).
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => too_many(),
            status => format!("is not valid deflate data ({status:?}): {DAMAGED}"),
        })?;
    if bytes.len() > 2 * count {
        return Err(too_many());
    }
    if bytes.len() % 2 == 1 {
        return Err(format!(
            "decodes to {} bytes, not a whole number of 16-bit values: {DAMAGED}",
            bytes.len()
        ));
    }
    if bytes.len() != 2 * count {
        return Err(format!(
            "holds {} values; the grid has {count}: {DAMAGED}",
            bytes.len() / 2
        ));
    }
    let mut previous = 0u16;
    Ok(bytes
        .chunks_exact(2)
        .map(|pair| {
            previous = previous.wrapping_add(u16::from_le_bytes([pair[0], pair[1]]));
            previous
        })
        .collect())
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64, padding optional, whitespace ignored.
fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0);
    for (index, c) in text.bytes().enumerate() {
        if c.is_ascii_whitespace() || c == b'=' {
            continue;
        }
        let Some(value) = ALPHABET.iter().position(|&a| a == c) else {
            return Err(format!(
                "not valid base64: character {:?} at {index}",
                c as char
            ));
        };
        buffer = buffer << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::RotationLimit;

    /// A channel whose deflated data decode to a byte count that is not its grid's is refused
    /// saying the table was damaged: an outside check flipped one byte of a channel, which then
    /// decoded to 2,179 bytes for a grid of 1,089 values and read "holds 1089 values; the grid
    /// has 1089".
    #[test]
    fn a_channel_of_the_wrong_length_is_refused_as_damaged() {
        let count = 1089;
        let deflated = |length: usize| {
            base64_encode(&miniz_oxide::deflate::compress_to_vec(
                &vec![7u8; length],
                9,
            ))
        };
        assert!(decode_channel(&deflated(2 * count), count).is_ok());
        for (length, says) in [
            (2 * count + 1, "more than the 1089 values"),
            (2 * count + 2, "more than the 1089 values"),
            (
                2 * count - 1,
                "2177 bytes, not a whole number of 16-bit values",
            ),
            (2 * count - 2, "holds 1088 values; the grid has 1089"),
        ] {
            let problem = decode_channel(&deflated(length), count).unwrap_err();
            assert!(problem.contains(says), "{length} bytes: {problem}");
            assert!(problem.contains("damaged"), "{length} bytes: {problem}");
        }
    }

    #[test]
    fn base64_round_trips() {
        for length in 0..20 {
            let bytes: Vec<u8> = (0..length).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64_encode(b"Man"), "TWFu");
        assert_eq!(base64_encode(b"Ma"), "TWE=");
    }

    #[test]
    fn a_table_written_and_read_is_the_same_table() {
        for table in TableLimit::examples() {
            let record = TableRecord::from(table.clone());
            let back = TableLimit::try_from(record).unwrap();
            assert_eq!(back, table);
        }
    }

    #[test]
    fn damage_is_refused_with_a_reason() {
        let table = TableLimit::examples().remove(0);
        let record = TableRecord::from(table);
        let mut changed = record.clone();
        changed.crc32 = "00000000".into();
        assert!(
            TableLimit::try_from(changed)
                .unwrap_err()
                .contains("checksum")
        );
        let mut short = record.clone();
        short.resolution += 1;
        assert!(TableLimit::try_from(short).unwrap_err().contains("allowed"));
        // A resolution below the data's names the mismatch, not the compression.
        let mut long = record.clone();
        long.resolution /= 2;
        let error = TableLimit::try_from(long).unwrap_err();
        assert!(
            error.contains("allowed") && error.contains("more than"),
            "{error}"
        );
        let mut garbage = record.clone();
        garbage.stress = "!!".into();
        assert!(
            TableLimit::try_from(garbage)
                .unwrap_err()
                .contains("stress")
        );
    }

    #[test]
    fn a_table_disagreeing_across_its_folds_is_refused_naming_the_vertices() {
        let table = TableLimit::examples().remove(0);
        let n = table.resolution();
        let mut codes = codes_of(&table);
        // Vertex (row 0, column 1) and (row 0, column n − 1) are one direction.
        codes[3][1] = codes[3][1].wrapping_add(7);
        let mut record = TableRecord::from(table);
        record.stress = encode_channel(&codes[3]);
        record.crc32 = format!("{:08x}", checksum(&codes));
        let problem = TableLimit::try_from(record).unwrap_err();
        assert!(problem.starts_with("table channel stress:"), "{problem}");
        assert!(
            problem.contains(&format!("(row 0, column 1) and (row 0, column {})", n - 1)),
            "{problem}"
        );
    }
}
