//! The motion values as they were written in the file that was read, so that a value nobody
//! changed is written back with the very same text (`0.000000` stays `0.000000`, not `0`): graph
//! editors, diffs and version control then see only what a command really changed.
//!
//! The record keeps the file's own bytes and where each motion line starts (4 bytes a frame), not a
//! copy of the tokens: reading a file then costs little more than the file itself.

use super::parse::channel_value;

/// The file a clip was read from, and where each frame's motion line starts in it.
#[derive(Debug)]
pub(super) struct SourceValues {
    /// The whole file, as read.
    text: Vec<u8>,
    /// The byte offset in `text` of each frame's motion line.
    line_starts: Vec<u32>,
}

/// The line terminator `text` starts with, if any: `\r\n`, `\n` or a bare `\r`.
fn terminator_at(text: &[u8]) -> Option<&'static str> {
    if text.starts_with(b"\r\n") {
        Some("\r\n")
    } else if text.starts_with(b"\n") {
        Some("\n")
    } else if text.starts_with(b"\r") {
        Some("\r")
    } else {
        None
    }
}

impl SourceValues {
    /// The record of `text`, whose motion lines start at `line_starts`.
    pub(super) fn new(text: Vec<u8>, line_starts: Vec<u32>) -> SourceValues {
        SourceValues { text, line_starts }
    }

    /// The line ending the file uses: its first line's (`\n`, `\r\n` or a bare `\r`), or `\n`.
    pub(super) fn line_ending(&self) -> &'static str {
        let end = self
            .text
            .iter()
            .position(|b| matches!(b, b'\r' | b'\n'))
            .unwrap_or(self.text.len());
        terminator_at(&self.text[end..]).unwrap_or("\n")
    }

    /// Frame `frame`'s motion line as read: its text, and its terminator (empty for a last line
    /// that has none).
    pub(super) fn frame_line(&self, frame: usize) -> (&str, &str) {
        let start = self
            .line_starts
            .get(frame)
            .map_or(self.text.len(), |&s| s as usize);
        let rest = self.text.get(start..).unwrap_or_default();
        let end = rest
            .iter()
            .position(|b| matches!(b, b'\r' | b'\n'))
            .unwrap_or(rest.len());
        let terminator = terminator_at(&rest[end..]).unwrap_or("");
        (
            std::str::from_utf8(&rest[..end]).unwrap_or_default(),
            terminator,
        )
    }

    /// How many motion lines the file had.
    pub(super) fn frame_count(&self) -> usize {
        self.line_starts.len()
    }

    /// What the file held between frame `frame − 1`'s line (terminator included) and frame
    /// `frame`'s: blank lines the reader skipped. For `frame` = [`Self::frame_count`], what
    /// followed the last motion line. Empty for frame 0, whose line follows the header.
    pub(super) fn gap_before(&self, frame: usize) -> &[u8] {
        let Some(previous) = frame.checked_sub(1) else {
            return &[];
        };
        let (text, terminator) = self.frame_line(previous);
        let start = self.line_starts[previous] as usize + text.len() + terminator.len();
        let end = self
            .line_starts
            .get(frame)
            .map_or(self.text.len(), |&s| s as usize);
        self.text.get(start..end).unwrap_or_default()
    }

    /// Frame `frame`'s value tokens, in channel order, as the reader split them.
    pub(super) fn frame_tokens(&self, frame: usize) -> impl Iterator<Item = &str> {
        split_tokens(self.frame_line(frame).0)
    }
}

/// The value tokens of a motion line.
fn split_tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split([' ', '\t']).filter(|token| !token.is_empty())
}

/// `token` when it reads as exactly `value` (as a rotation channel's angle when `angle`), so
/// writing it keeps the value.
pub(super) fn unchanged(token: Option<&str>, value: f32, angle: bool) -> Option<&str> {
    let token = token?;
    let original = channel_value(token, angle).ok()?;
    (original.to_bits() == value.to_bits()).then_some(token)
}
