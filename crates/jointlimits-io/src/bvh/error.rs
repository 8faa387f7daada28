//! Errors of the BVH reader and writer, each naming where and what.

use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// Something wrong with BVH input, or a failure to read or write a BVH file.
#[derive(Debug, Error)]
pub enum BvhError {
    /// The file could not be read or written.
    #[error("cannot access {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The text is not valid BVH.
    #[error("{source_name}:{line}:{column}: {problem}")]
    Syntax {
        /// The file name, or `<input>` for text given directly.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// 1-based column (in bytes) on that line.
        column: usize,
        /// What was wrong.
        problem: Problem,
    },
    /// The skeleton, channel lists and motion given to the writer have different joint counts.
    #[error(
        "skeleton has {skeleton} joints, but there are {channels} channel lists and the motion has {motion} joints"
    )]
    JointCountMismatch {
        /// Joints in the skeleton.
        skeleton: usize,
        /// Channel lists given.
        channels: usize,
        /// Joints per frame in the motion.
        motion: usize,
    },
    /// A motion cannot be written with the given channels without losing information.
    #[error("joint {joint:?}, frame {frame}: {problem}")]
    NotRepresentable {
        /// The joint's name.
        joint: String,
        /// The 0-based frame index.
        frame: usize,
        /// Why the channels cannot hold the value.
        problem: String,
    },
}

/// What was wrong at a place in BVH text.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// A different token was expected.
    Expected {
        /// What the grammar wanted here.
        expected: &'static str,
        /// What the text has instead (`end of file` at the end).
        found: String,
    },
    /// A token that should be a number is not one.
    NotANumber {
        /// The token.
        text: String,
    },
    /// A number is infinite, NaN, or too large for f32.
    NonFinite {
        /// The token.
        text: String,
    },
    /// A channel name that BVH does not define.
    UnknownChannel {
        /// The token.
        name: String,
    },
    /// The same rotation axis twice in one joint's channels.
    RepeatedRotationAxis {
        /// The joint's name.
        joint: String,
    },
    /// `CHANNELS n` followed by a different number of names.
    ChannelCount {
        /// The declared count.
        declared: usize,
        /// The number of names listed.
        listed: usize,
    },
    /// A joint name with a brace in it, which a BVH file cannot hold unambiguously.
    BraceInName {
        /// The name as read.
        name: String,
    },
    /// A joint name used twice.
    DuplicateJoint {
        /// The name.
        name: String,
    },
    /// A motion line with fewer values than the channels need.
    MissingValues {
        /// The 0-based frame index.
        frame: usize,
        /// Values per frame.
        expected: usize,
        /// Values on the line.
        found: usize,
    },
    /// A motion line with more values than the channels need.
    ExtraValues {
        /// The 0-based frame index.
        frame: usize,
        /// Values per frame.
        expected: usize,
    },
    /// Fewer motion lines than `Frames:` announced.
    MissingFrames {
        /// The announced frame count.
        declared: usize,
        /// The motion lines found.
        found: usize,
    },
    /// More non-empty motion lines than `Frames:` announced.
    ExtraFrames {
        /// The announced frame count.
        declared: usize,
    },
    /// A frame time that is not a positive number.
    BadFrameTime {
        /// The token.
        text: String,
    },
    /// The file is not UTF-8 text.
    NotText,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            Problem::NotANumber { text } => write!(f, "expected a number, found {text:?}"),
            Problem::NonFinite { text } => write!(
                f,
                "number {text:?} is not finite or is beyond the range of f32 (about ±3.4e38)"
            ),
            Problem::UnknownChannel { name } => write!(
                f,
                "unknown channel {name:?} (expected X/Y/Z followed by position or rotation)"
            ),
            Problem::RepeatedRotationAxis { joint } => {
                write!(f, "joint {joint:?} lists the same rotation axis twice")
            }
            Problem::ChannelCount { declared, listed } => write!(
                f,
                "CHANNELS declares {declared} channels but lists {listed}"
            ),
            Problem::BraceInName { name } => write!(
                f,
                "joint name {name:?} has a brace, which BVH uses to open and close blocks"
            ),
            Problem::DuplicateJoint { name } => write!(f, "joint name {name:?} is used twice"),
            Problem::MissingValues {
                frame,
                expected,
                found,
            } => write!(
                f,
                "frame {frame} has {found} values, expected {expected} (one per channel)"
            ),
            Problem::ExtraValues { frame, expected } => write!(
                f,
                "frame {frame} has more than the {expected} values the channels need"
            ),
            Problem::MissingFrames { declared, found } => write!(
                f,
                "file ends after {found} motion lines, but Frames: says {declared}"
            ),
            Problem::ExtraFrames { declared } => write!(
                f,
                "more motion lines than the {declared} that Frames: announced"
            ),
            Problem::BadFrameTime { text } => {
                write!(f, "frame time must be a positive number, found {text:?}")
            }
            Problem::NotText => write!(f, "file is not UTF-8 text"),
        }
    }
}
