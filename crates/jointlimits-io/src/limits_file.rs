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

/// A syntax error, named by the field where it lies (the path the reader had reached) and, where
/// the text there is a NaN or an infinity written as a word, saying so: JSON has no such
/// numbers, and "expected value" alone leaves a user to guess. Such a word is read as 0 to
/// find the name of the joint it belongs to.
fn syntax_error(name: &str, text: &str, error: serde_json::Error) -> LimitsFileError {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let place = serde_path_to_error::deserialize::<_, serde_json::Value>(&mut deserializer)
        .err()
        .map(|located| located.path().to_string())
        .filter(|path| path != "." && path != "?");
    // Where the error lies, as a byte offset (serde_json counts columns in bytes), moved back
    // to the start of the word there (`nan` fails as `null` at its second letter).
    let in_word = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let at = text
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + error.column().saturating_sub(1);
    let before = text.get(..at.min(text.len())).unwrap_or("");
    let offset = before.trim_end_matches(in_word).len();
    let word: String = text
        .get(offset..)
        .unwrap_or("")
        .chars()
        .take_while(|&c| in_word(c))
        .collect();
    let not_a_number = NOT_NUMBERS.contains(&word.to_ascii_lowercase().as_str());
    let message = if not_a_number {
        format!("{word} is not a number JSON can hold: write a finite number")
    } else {
        serde_message(&error)
    };
    let read_as_zero = || format!("{}0{}", &text[..offset], &text[offset + word.len()..]);
    let located = match place {
        Some(path) => match joint_field(&read_as_zero(), &path).filter(|_| not_a_number) {
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
    let place = match joint_field(text, &path) {
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

/// Parses and validates limits from JSON text; `name` labels errors.
///
/// The format name and version are checked before the rest, so a newer file gets a version error
/// rather than a confusing field error.
pub fn parse_limits(text: &str, name: &str) -> Result<SkeletonLimits, LimitsFileError> {
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
        found => {
            return Err(invalid(LimitsError::UnsupportedVersion {
                found: found.unwrap_or(0),
            }));
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let limits: SkeletonLimits = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| field_error(name, text, e))?;
    deserializer.end().map_err(|e| json_error(name, e))?;
    limits.validate().map_err(invalid)?;
    Ok(limits)
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
