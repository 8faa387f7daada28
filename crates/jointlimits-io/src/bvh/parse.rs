//! The BVH reader: a line-oriented parser that accepts the variations found in real files (CRLF or
//! LF, tabs, any indentation, keywords in any letter case, `.0083333`, exponents, mixed rotation
//! orders, position channels on any joint) and reports anything else with line and column.

use super::angles::FOLLOWED_DEGREES;
use super::source::SourceValues;
use super::{Bvh, BvhError, Channel, Problem};
use glam::{Quat, Vec3};
use jointlimits::{Joint, Skeleton};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Reads and parses a BVH file. Errors name the file, line and column.
pub fn read_bvh_file(path: impl AsRef<Path>) -> Result<Bvh, BvhError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| BvhError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_owned(bytes, &path.display().to_string())
}

/// Parses BVH text. Errors name `<input>` as the source.
pub fn parse_bvh(text: &str) -> Result<Bvh, BvhError> {
    parse_bvh_named(text.as_bytes(), "<input>")
}

/// Parses BVH bytes; `source_name` (usually the file name) is used in error messages.
pub fn parse_bvh_named(bytes: &[u8], source_name: &str) -> Result<Bvh, BvhError> {
    parse_owned(bytes.to_vec(), source_name)
}

/// Parses a file's bytes and keeps them as the record of the motion values' text.
fn parse_owned(bytes: Vec<u8>, source_name: &str) -> Result<Bvh, BvhError> {
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let before = &bytes[..e.valid_up_to()];
        // Lines end at `\n`, `\r\n` or a bare `\r` (classic Mac OS), as `Lines` reads them.
        let bare_returns = before
            .windows(2)
            .filter(|pair| pair[0] == b'\r' && pair[1] != b'\n')
            .count()
            + usize::from(before.last() == Some(&b'\r'));
        let line = before.iter().filter(|&&b| b == b'\n').count() + bare_returns + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1);
        BvhError::Syntax {
            source_name: source_name.to_string(),
            line,
            column: e.valid_up_to() - line_start + 1,
            problem: Problem::NotText,
        }
    })?;
    let (mut bvh, starts) = Parser {
        source_name,
        base: text.as_ptr() as usize,
        lines: Lines::new(text),
    }
    .parse()?;
    bvh.source = starts.map(|starts| Arc::new(SourceValues::new(bytes, starts)));
    Ok(bvh)
}

/// The lines of a text, with their 1-based numbers and without line terminators (`\n`, `\r\n`,
/// or a bare `\r` as classic Mac OS wrote).
struct Lines<'a> {
    rest: &'a str,
    number: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        Lines {
            rest: text,
            number: 0,
        }
    }

    /// The next line, `None` at the end of the text.
    fn next_line(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        self.number += 1;
        let (line, rest) = crate::text_lines::split_line(self.rest);
        self.rest = rest;
        Some(line)
    }

    /// The next line with something other than whitespace on it.
    fn next_statement(&mut self) -> Option<&'a str> {
        std::iter::from_fn(|| self.next_line()).find(|line| !line.trim().is_empty())
    }

    /// An upper bound on the bytes left, for sizing buffers.
    fn remaining_len(&self) -> usize {
        self.rest.len()
    }
}

/// The whitespace-separated words of a line, each with its 1-based column.
fn words(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.split([' ', '\t'])
        .filter(|word| !word.is_empty())
        .map(move |word| (column_of(line, word), word))
}

/// The first word of a line (empty for a blank line).
fn first_word(line: &str) -> &str {
    words(line).next().map_or("", |(_, word)| word)
}

/// The 1-based column of `part` within `line`; just past the end if `part` is not a sub-slice.
fn column_of(line: &str, part: &str) -> usize {
    let start = line.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    if (start..=start + line.len()).contains(&at) {
        at - start + 1
    } else {
        line.len() + 1
    }
}

/// A joint whose block is open: its index and whether its OFFSET has been read.
struct OpenJoint {
    index: usize,
    has_offset: bool,
}

/// What the last statement requires of the next one.
enum Awaiting {
    Nothing,
    OpenBrace,
    EndSiteOpenBrace,
}

struct Parser<'a> {
    source_name: &'a str,
    /// The address of the text's first byte, to turn tokens into offsets.
    base: usize,
    lines: Lines<'a>,
}

impl<'a> Parser<'a> {
    fn error(&self, line: &str, at: &str, problem: Problem) -> BvhError {
        BvhError::Syntax {
            source_name: self.source_name.to_string(),
            line: self.lines.number,
            column: column_of(line, at),
            problem,
        }
    }

    fn error_at_column(&self, column: usize, problem: Problem) -> BvhError {
        BvhError::Syntax {
            source_name: self.source_name.to_string(),
            line: self.lines.number,
            column,
            problem,
        }
    }

    fn expected(&self, line: &str, at: &str, expected: &'static str) -> BvhError {
        let found = if at.is_empty() {
            "end of line".to_string()
        } else {
            format!("{at:?}")
        };
        self.error(line, at, Problem::Expected { expected, found })
    }

    fn end_of_file(&self, expected: &'static str) -> BvhError {
        BvhError::Syntax {
            source_name: self.source_name.to_string(),
            line: self.lines.number + 1,
            column: 1,
            problem: Problem::Expected {
                expected,
                found: "end of file".to_string(),
            },
        }
    }

    /// The clip (without its source record) and where each motion value's token starts.
    fn parse(mut self) -> Result<(Bvh, Option<Vec<u32>>), BvhError> {
        let (skeleton, channels) = self.parse_hierarchy()?;
        let angles = angle_channels(&channels);
        let (frames, frame_time) = self.parse_motion_header()?;
        let (values, starts) = self.parse_motion_values(frames, &angles)?;
        let bvh = Bvh {
            skeleton,
            channels,
            frame_time,
            values,
            source: None,
        };
        Ok((bvh, starts))
    }

    fn parse_hierarchy(&mut self) -> Result<(Skeleton, Vec<Vec<Channel>>), BvhError> {
        let line = self
            .lines
            .next_statement()
            .ok_or_else(|| self.end_of_file("HIERARCHY"))?;
        let first = first_word(line);
        if !first.eq_ignore_ascii_case("HIERARCHY") {
            return Err(self.expected(line, first, "HIERARCHY"));
        }

        let mut joints: Vec<Joint> = Vec::new();
        let mut channels: Vec<Vec<Channel>> = Vec::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut open: Vec<OpenJoint> = Vec::new();
        let mut in_end_site = false;
        let mut end_site_has_offset = false;
        let mut awaiting = Awaiting::Nothing;

        loop {
            let line = self.lines.next_statement().ok_or_else(|| {
                self.end_of_file(if open.is_empty() {
                    "ROOT or MOTION"
                } else {
                    "}"
                })
            })?;
            let mut line_words = words(line);
            let (_, keyword) = line_words.next().unwrap_or((1, ""));

            match awaiting {
                Awaiting::OpenBrace | Awaiting::EndSiteOpenBrace if keyword != "{" => {
                    return Err(self.expected(line, keyword, "{"));
                }
                Awaiting::OpenBrace => {
                    awaiting = Awaiting::Nothing;
                    self.expect_line_end(line, line_words)?;
                    continue;
                }
                Awaiting::EndSiteOpenBrace => {
                    awaiting = Awaiting::Nothing;
                    in_end_site = true;
                    end_site_has_offset = false;
                    self.expect_line_end(line, line_words)?;
                    continue;
                }
                Awaiting::Nothing => {}
            }

            let upper = keyword.to_ascii_uppercase();
            match upper.as_str() {
                "ROOT" | "JOINT" if !in_end_site => {
                    let is_root = upper == "ROOT";
                    if is_root != open.is_empty() {
                        let expected = if open.is_empty() {
                            "ROOT or MOTION"
                        } else {
                            "JOINT, End Site, OFFSET, CHANNELS or }"
                        };
                        return Err(self.expected(line, keyword, expected));
                    }
                    let (name, brace_on_line) = joint_name(line, keyword);
                    if name.is_empty() {
                        return Err(self.expected(line, name, "a joint name"));
                    }
                    if let Some(brace) = name.find(['{', '}']) {
                        let problem = Problem::BraceInName {
                            name: name.to_string(),
                        };
                        return Err(self.error(line, &name[brace..], problem));
                    }
                    if names.contains_key(name) {
                        return Err(self.error(
                            line,
                            name,
                            Problem::DuplicateJoint {
                                name: name.to_string(),
                            },
                        ));
                    }
                    let index = joints.len();
                    names.insert(name.to_string(), index);
                    joints.push(Joint {
                        name: name.to_string(),
                        parent: open.last().map(|joint| joint.index),
                        offset: Vec3::ZERO,
                        end_site: None,
                        reference_rotation: Quat::IDENTITY,
                    });
                    channels.push(Vec::new());
                    open.push(OpenJoint {
                        index,
                        has_offset: false,
                    });
                    if !brace_on_line {
                        awaiting = Awaiting::OpenBrace;
                    }
                }
                "END" if !in_end_site && !open.is_empty() => {
                    let (site, brace_on_line) = joint_name(line, keyword);
                    if !site.eq_ignore_ascii_case("site") {
                        return Err(self.expected(line, site, "Site after End"));
                    }
                    let parent = open.last().map_or(0, |joint| joint.index);
                    if joints[parent].end_site.is_some() {
                        return Err(self.expected(line, keyword, "one End Site per joint"));
                    }
                    if brace_on_line {
                        in_end_site = true;
                        end_site_has_offset = false;
                    } else {
                        awaiting = Awaiting::EndSiteOpenBrace;
                    }
                }
                "OFFSET" if !open.is_empty() => {
                    let offset = self.parse_offset(line, &mut line_words)?;
                    let Some(current) = open.last_mut() else {
                        unreachable!("guarded by the match arm")
                    };
                    if in_end_site {
                        joints[current.index].end_site = Some(offset);
                        end_site_has_offset = true;
                    } else {
                        joints[current.index].offset = offset;
                        current.has_offset = true;
                    }
                }
                "CHANNELS" if !open.is_empty() && !in_end_site => {
                    let index = open.last().map_or(0, |joint| joint.index);
                    channels[index] =
                        self.parse_channels(line, line_words, keyword, &joints[index].name)?;
                }
                "}" => {
                    self.expect_line_end(line, line_words)?;
                    if in_end_site {
                        if !end_site_has_offset {
                            return Err(self.expected(line, keyword, "OFFSET in End Site"));
                        }
                        in_end_site = false;
                    } else {
                        match open.pop() {
                            Some(joint) if !joint.has_offset => {
                                return Err(self.expected(line, keyword, "OFFSET before }"));
                            }
                            Some(_) => {}
                            None => return Err(self.expected(line, keyword, "ROOT or MOTION")),
                        }
                    }
                }
                "MOTION" if open.is_empty() => {
                    if joints.is_empty() {
                        return Err(self.expected(line, keyword, "ROOT"));
                    }
                    self.expect_line_end(line, line_words)?;
                    break;
                }
                _ => {
                    let expected = if in_end_site {
                        "OFFSET or } in End Site"
                    } else if open.is_empty() {
                        "ROOT or MOTION"
                    } else {
                        "JOINT, End Site, OFFSET, CHANNELS or }"
                    };
                    return Err(self.expected(line, keyword, expected));
                }
            }
        }

        let skeleton = Skeleton::new(joints).map_err(|e| {
            // Names, parent order and finiteness were checked while reading; keep a clear message
            // should the library add a rule.
            self.error_at_column(
                1,
                Problem::Expected {
                    expected: "a valid skeleton",
                    found: e.to_string(),
                },
            )
        })?;
        if channels.iter().all(Vec::is_empty) {
            return Err(self.error_at_column(
                1,
                Problem::Expected {
                    expected: "at least one CHANNELS entry in the hierarchy",
                    found: "none".to_string(),
                },
            ));
        }
        Ok((skeleton, channels))
    }

    fn expect_line_end<'w>(
        &self,
        line: &str,
        mut rest: impl Iterator<Item = (usize, &'w str)>,
    ) -> Result<(), BvhError> {
        match rest.next() {
            None => Ok(()),
            Some((_, word)) => Err(self.expected(line, word, "end of line")),
        }
    }

    fn parse_offset<'w>(
        &self,
        line: &'w str,
        line_words: &mut impl Iterator<Item = (usize, &'w str)>,
    ) -> Result<Vec3, BvhError> {
        let mut offset = [0.0f32; 3];
        for component in &mut offset {
            let (_, word) = line_words
                .next()
                .ok_or_else(|| self.expected(line, "", "three numbers after OFFSET"))?;
            *component = self.number(line, word)?;
        }
        self.expect_line_end(line, line_words)?;
        Ok(Vec3::from_array(offset))
    }

    fn parse_channels<'w>(
        &self,
        line: &'w str,
        mut line_words: impl Iterator<Item = (usize, &'w str)>,
        keyword: &'w str,
        joint: &str,
    ) -> Result<Vec<Channel>, BvhError> {
        let (_, count_word) = line_words
            .next()
            .ok_or_else(|| self.expected(line, "", "the number of channels after CHANNELS"))?;
        let declared: usize = count_word.parse().map_err(|_| {
            self.error(
                line,
                count_word,
                Problem::NotANumber {
                    text: count_word.to_string(),
                },
            )
        })?;
        let mut channels = Vec::with_capacity(declared.min(6));
        for (_, name) in line_words {
            let channel = Channel::from_name(name).ok_or_else(|| {
                self.error(
                    line,
                    name,
                    Problem::UnknownChannel {
                        name: name.to_string(),
                    },
                )
            })?;
            if matches!(channel, Channel::Rotation(_)) && channels.contains(&channel) {
                return Err(self.error(
                    line,
                    name,
                    Problem::RepeatedRotationAxis {
                        joint: joint.to_string(),
                    },
                ));
            }
            channels.push(channel);
        }
        if channels.len() != declared {
            return Err(self.error(
                line,
                keyword,
                Problem::ChannelCount {
                    declared,
                    listed: channels.len(),
                },
            ));
        }
        Ok(channels)
    }

    fn number(&self, line: &str, word: &str) -> Result<f32, BvhError> {
        parse_number(word).map_err(|problem| self.error(line, word, problem))
    }

    /// Reads `Frames: N` and `Frame Time: T`.
    fn parse_motion_header(&mut self) -> Result<(usize, f64), BvhError> {
        let (line, frames_text) =
            self.labelled_line("frames", "Frames: followed by the frame count")?;
        let frames: usize = frames_text.parse().map_err(|_| {
            let text = frames_text.to_string();
            self.error(line, frames_text, Problem::NotANumber { text })
        })?;
        let (line, time_text) =
            self.labelled_line("frame time", "Frame Time: followed by seconds per frame")?;
        let frame_time = time_text
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t > 0.0)
            .ok_or_else(|| {
                let text = time_text.to_string();
                self.error(line, time_text, Problem::BadFrameTime { text })
            })?;
        Ok((frames, frame_time))
    }

    /// The next statement, which must be `Label: value`; returns the line and the value.
    fn labelled_line(
        &mut self,
        label: &str,
        expected: &'static str,
    ) -> Result<(&'a str, &'a str), BvhError> {
        let line = self
            .lines
            .next_statement()
            .ok_or_else(|| self.end_of_file(expected))?;
        let value = labelled_value(line, label)
            .ok_or_else(|| self.expected(line, first_word(line), expected))?;
        Ok((line, value))
    }

    /// Reads `frames` motion lines of one number per channel (`angles` says which channels are
    /// rotations): the values, and where each line starts in the text (unless the text is too
    /// large to index with `u32`).
    fn parse_motion_values(
        &mut self,
        frames: usize,
        angles: &[bool],
    ) -> Result<(Vec<f32>, Option<Vec<u32>>), BvhError> {
        let channel_count = angles.len();
        // Never trust the header for the allocation: every value takes at least two bytes.
        let capacity = frames
            .saturating_mul(channel_count)
            .min(self.lines.remaining_len() / 2 + channel_count);
        let mut values = Vec::with_capacity(capacity);
        let mut starts = Some(Vec::with_capacity(frames.min(capacity)));
        for frame in 0..frames {
            let Some(line) = self.lines.next_statement() else {
                return Err(BvhError::Syntax {
                    source_name: self.source_name.to_string(),
                    line: self.lines.number + 1,
                    column: 1,
                    problem: Problem::MissingFrames {
                        declared: frames,
                        found: frame,
                    },
                });
            };
            self.parse_motion_line(line, frame, angles, &mut values)?;
            if let Some(record) = &mut starts {
                match u32::try_from(line.as_ptr() as usize - self.base) {
                    Ok(start) => record.push(start),
                    Err(_) => starts = None,
                }
            }
        }
        if let Some(line) = self.lines.next_statement() {
            let problem = Problem::ExtraFrames { declared: frames };
            return Err(self.error(line, first_word(line), problem));
        }
        Ok((values, starts))
    }

    fn parse_motion_line(
        &self,
        line: &str,
        frame: usize,
        angles: &[bool],
        values: &mut Vec<f32>,
    ) -> Result<(), BvhError> {
        let channel_count = angles.len();
        let bytes = line.as_bytes();
        let is_space = |b: u8| b == b' ' || b == b'\t';
        let mut position = 0;
        let mut found = 0;
        loop {
            while position < bytes.len() && is_space(bytes[position]) {
                position += 1;
            }
            if position == bytes.len() {
                break;
            }
            let start = position;
            while position < bytes.len() && !is_space(bytes[position]) {
                position += 1;
            }
            let word = &line[start..position];
            if found == channel_count {
                return Err(self.error(
                    line,
                    word,
                    Problem::ExtraValues {
                        frame,
                        expected: channel_count,
                    },
                ));
            }
            let value = channel_value(word, angles[found])
                .map_err(|problem| self.error(line, word, problem))?;
            values.push(value);
            found += 1;
        }
        if found < channel_count {
            return Err(self.error_at_column(
                line.len() + 1,
                Problem::MissingValues {
                    frame,
                    expected: channel_count,
                    found,
                },
            ));
        }
        Ok(())
    }
}

/// A finite number, or what is wrong with the word.
pub(super) fn parse_number(word: &str) -> Result<f32, Problem> {
    match word.parse::<f32>() {
        Ok(value) if value.is_finite() => Ok(value),
        Ok(_) => Err(Problem::NonFinite {
            text: word.to_string(),
        }),
        Err(_) => Err(Problem::NotANumber {
            text: word.to_string(),
        }),
    }
}

/// Whether each channel, in file order over every joint, is a rotation.
pub(super) fn angle_channels(channels: &[Vec<Channel>]) -> Vec<bool> {
    channels
        .iter()
        .flatten()
        .map(|channel| matches!(channel, Channel::Rotation(_)))
        .collect()
}

/// A channel's value: [`parse_number`] for a position; for a rotation (degrees), read in f64 and,
/// beyond [`FOLLOWED_DEGREES`], taken modulo a turn exactly as written
/// ([`super::turns::degrees_modulo_turn`]) before rounding to f32, which would otherwise change
/// the angle by whole degrees (1e15 reads as 999999986991104, 64° away modulo a turn).
pub(super) fn channel_value(word: &str, angle: bool) -> Result<f32, Problem> {
    if !angle {
        return parse_number(word);
    }
    match word.parse::<f64>() {
        Ok(degrees) if degrees.is_finite() => {
            let followed = if degrees.abs() <= FOLLOWED_DEGREES {
                degrees
            } else {
                super::turns::degrees_modulo_turn(word, degrees)
            };
            Ok(followed as f32)
        }
        Ok(_) => Err(Problem::NonFinite {
            text: word.to_string(),
        }),
        Err(_) => Err(Problem::NotANumber {
            text: word.to_string(),
        }),
    }
}

/// The name after a `ROOT`/`JOINT`/`End` keyword (the rest of the line, so names with spaces
/// survive), and whether an opening brace ends the line.
fn joint_name<'w>(line: &'w str, keyword: &'w str) -> (&'w str, bool) {
    let after = &line[column_of(line, keyword) - 1 + keyword.len()..];
    let trimmed = after.trim();
    match trimmed.strip_suffix('{') {
        Some(name) => (name.trim_end(), true),
        None => (trimmed, false),
    }
}

/// For a line `Label: value`, the value, if the label matches `label` ignoring case and spacing.
fn labelled_value<'w>(line: &'w str, label: &str) -> Option<&'w str> {
    let (name, value) = line.split_once(':')?;
    let name_words = name.split_whitespace();
    let label_words = label.split_whitespace();
    let same = name_words
        .map(str::to_ascii_lowercase)
        .eq(label_words.map(str::to_string));
    let value = value.trim();
    (same && !value.is_empty()).then_some(value)
}
