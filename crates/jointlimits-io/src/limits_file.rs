//! The limits file: [`SkeletonLimits`] as pretty JSON with a format name and version, written
//! atomically and validated when read.

use std::io::Write;
use std::path::{Path, PathBuf};

use jointlimits::skeleton_limits::{FORMAT_NAME, FORMAT_VERSION, LimitsError, SkeletonLimits};
use serde::Deserialize;

use crate::atomic::write_atomically;

/// Why a limits file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LimitsFileError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The JSON is malformed or has a field of the wrong type or a number out of range.
    #[error("{name}:{line}:{column}: {message}")]
    Json {
        /// The file (or source) name.
        name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde_json reported.
        message: String,
    },
    /// The content is well-formed but unusable.
    #[error("{name}: {source}")]
    Invalid {
        /// The file (or source) name.
        name: String,
        /// The problem.
        source: LimitsError,
    },
}

#[derive(Deserialize)]
struct Header {
    format: Option<String>,
    version: Option<u32>,
}

fn json_error(name: &str, error: serde_json::Error) -> LimitsFileError {
    LimitsFileError::Json {
        name: name.to_string(),
        line: error.line(),
        column: error.column(),
        message: serde_message(&error),
    }
}

/// Words some writers put where JSON has no number (Python's `json.dump` of a NaN or an
/// infinity, JavaScript's `String(NaN)`), lowest case.
const NOT_NUMBERS: [&str; 4] = ["nan", "infinity", "-infinity", "inf"];

/// The token (a word or a number) at or just before line `line`, column `column` (1-based;
/// serde_json counts columns in bytes) of `text`, as a byte range: `nan` fails as `null` at its
/// second letter, and a number out of range is reported at its end.
fn token_at(text: &str, line: usize, column: usize) -> std::ops::Range<usize> {
    let in_token = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.');
    let at = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + column.saturating_sub(1);
    let at = at.min(text.len());
    let (Some(before), Some(after)) = (text.get(..at), text.get(at..)) else {
        return at..at;
    };
    let start = before.trim_end_matches(in_token).len();
    let end = at + (after.len() - after.trim_start_matches(in_token).len());
    start..end
}

/// The joint and field of `path` (see [`joint_field`]) in `text`, or where JSON cannot read
/// `text` (a NaN word, a number out of range), in `text` with the token `token` read as 0.
fn joint_field_reading_zero(
    text: &str,
    path: &str,
    token: std::ops::Range<usize>,
) -> Option<(String, String)> {
    joint_field(text, path).or_else(|| {
        let patched = format!("{}0{}", text.get(..token.start)?, text.get(token.end..)?);
        joint_field(&patched, path)
    })
}

/// A syntax error, named by the field where it lies (the path the reader had reached) and, where
/// the text there is a NaN or an infinity written as a word, saying so: JSON has no such
/// numbers, and "expected value" alone leaves a user to guess.
fn syntax_error(name: &str, text: &str, error: serde_json::Error) -> LimitsFileError {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let place = serde_path_to_error::deserialize::<_, serde_json::Value>(&mut deserializer)
        .err()
        .map(|located| located.path().to_string())
        .filter(|path| path != "." && path != "?");
    let token = token_at(text, error.line(), error.column());
    let word = text.get(token.clone()).unwrap_or("");
    let not_a_number = NOT_NUMBERS.contains(&word.to_ascii_lowercase().as_str());
    let message = if not_a_number {
        format!("{word} is not a number JSON can hold: write a finite number")
    } else {
        serde_message(&error)
    };
    let located = match place {
        Some(path) => match joint_field_reading_zero(text, &path, token).filter(|_| not_a_number) {
            Some((joint, field)) => format!("joint {joint:?}: {field}: {message}"),
            None => format!("{path}: {message}"),
        },
        None => message,
    };
    LimitsFileError::Json {
        name: name.to_string(),
        line: error.line(),
        column: error.column(),
        message: located,
    }
}

/// serde_json's message without its ` at line L column C` (the error says where itself).
fn serde_message(error: &serde_json::Error) -> String {
    error
        .to_string()
        .split(" at line ")
        .next()
        .unwrap_or("")
        .to_string()
}

/// A malformed field, named as the validation names fields: `joint "lShin": region.shape.…`
/// for a field of a joint's limit, else its path from the top of the file.
fn field_error(
    name: &str,
    text: &str,
    error: serde_path_to_error::Error<serde_json::Error>,
) -> LimitsFileError {
    let path = error.path().to_string();
    let inner = error.into_inner();
    let token = token_at(text, inner.line(), inner.column());
    let place = match joint_field_reading_zero(text, &path, token) {
        Some((joint, field)) if field.is_empty() => format!("joint {joint:?}"),
        Some((joint, field)) => format!("joint {joint:?}: {field}"),
        None => path,
    };
    LimitsFileError::Json {
        name: name.to_string(),
        line: inner.line(),
        column: inner.column(),
        message: format!("{place}: {}", serde_message(&inner)),
    }
}

/// For a path `joints[i].rest`: joint `i`'s name (when it has one) and `rest`.
fn joint_field(text: &str, path: &str) -> Option<(String, String)> {
    let rest = path.strip_prefix("joints[")?;
    let (index, field) = rest.split_once(']')?;
    let index: usize = index.parse().ok()?;
    let document: serde_json::Value = serde_json::from_str(text).ok()?;
    let joint = document["joints"][index]["joint"].as_str()?.to_string();
    Some((joint, field.trim_start_matches('.').to_string()))
}

/// Parses and validates limits from JSON text (a leading byte-order mark is skipped); `name`
/// labels errors.
///
/// The format name and version are checked before the rest, so a newer file gets a version error
/// rather than a confusing field error.
pub fn parse_limits(text: &str, name: &str) -> Result<SkeletonLimits, LimitsFileError> {
    // A byte-order mark, which some editors on Windows write, is not JSON but says nothing
    // wrong about the text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    expect_object(text, name)?;
    let header: Header = serde_json::from_str(text).map_err(|e| syntax_error(name, text, e))?;
    let invalid = |source| LimitsFileError::Invalid {
        name: name.to_string(),
        source,
    };
    let format = header.format.unwrap_or_default();
    if format != FORMAT_NAME {
        return Err(invalid(LimitsError::WrongFormat { found: format }));
    }
    match header.version {
        Some(FORMAT_VERSION) => {}
        None => return Err(invalid(LimitsError::NoVersion)),
        Some(found) => return Err(invalid(LimitsError::UnsupportedVersion { found })),
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let limits: SkeletonLimits = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| field_error(name, text, e))?;
    deserializer.end().map_err(|e| json_error(name, e))?;
    limits.validate().map_err(invalid)?;
    Ok(limits)
}

/// A limits file is a JSON object: other JSON (an array, a number, a string) is refused where it
/// starts, saying so (a struct read from an array would name its first field's type instead).
fn expect_object(text: &str, name: &str) -> Result<(), LimitsFileError> {
    let Some((at, first)) = text.char_indices().find(|(_, c)| !c.is_whitespace()) else {
        return Ok(());
    };
    if first == '{' {
        return Ok(());
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = at - before.rfind('\n').map_or(0, |newline| newline + 1) + 1;
    Err(LimitsFileError::Json {
        name: name.to_string(),
        line,
        column,
        message: format!(
            "a limits file is a JSON object ({{\"format\": \"{FORMAT_NAME}\", \"version\": \
             {FORMAT_VERSION}, \"joints\": [...]}}); this text starts with {first:?}"
        ),
    })
}

/// Reads and validates a limits file.
pub fn read_limits_file(path: &Path) -> Result<SkeletonLimits, LimitsFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| LimitsFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_limits(&text, &path.display().to_string())
}

/// Writes limits as pretty JSON, atomically (the old file survives any failure).
pub fn write_limits_file(path: &Path, limits: &SkeletonLimits) -> Result<(), LimitsFileError> {
    let text = serde_json::to_string_pretty(limits).map_err(|e| LimitsFileError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    write_atomically(path, |out| {
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")
    })
    .map_err(|source| LimitsFileError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_a_json_object_is_refused_where_it_starts() {
        for (text, place, first) in [
            ("\n  [1, 2, 3]", "limits.json:2:3:", "'['"),
            ("42", "limits.json:1:1:", "'4'"),
            ("\u{feff}\"joints\"", "limits.json:1:1:", "'\"'"),
        ] {
            let message = parse_limits(text, "limits.json").unwrap_err().to_string();
            assert!(
                message.starts_with(place)
                    && message.contains("a limits file is a JSON object")
                    && message.ends_with(&format!("starts with {first}")),
                "{message}"
            );
        }
    }

    #[test]
    fn a_word_or_number_json_cannot_read_never_panics_the_reader_wherever_it_lies() {
        // Names with letters of two and three bytes before and after every insertion point.
        let text = r#"{"format": "jointlimits", "version": 1, "joints": [{"joint": "Ωmega→", "reference": [0, 0, 0, 1]}], "note": "é"}"#;
        for at in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
            for word in ["NaN", "nan", "-Infinity", "1e999", "é"] {
                let hostile = format!("{}{word}{}", &text[..at], &text[at..]);
                assert!(parse_limits(&hostile, "hostile.json").is_err(), "{hostile}");
            }
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_a_missing_version_is_named() {
        let text = serde_json::to_string(&SkeletonLimits::new(Vec::new(), None)).unwrap();
        assert!(parse_limits(&format!("\u{feff}{text}"), "bom.json").is_ok());
        let unversioned = text.replace(&format!("\"version\":{FORMAT_VERSION},"), "");
        assert_ne!(unversioned, text);
        let error = parse_limits(&unversioned, "old.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("old.json: no `version` field"), "{error}");
    }

    #[test]
    fn the_token_at_an_error_spans_the_whole_word_or_number() {
        let text = "[1,\n nan, 1e999]";
        assert_eq!(&text[token_at(text, 2, 3)], "nan");
        assert_eq!(&text[token_at(text, 2, 12)], "1e999");
        assert_eq!(token_at(text, 9, 99), text.len()..text.len());
    }
}
