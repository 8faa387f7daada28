//! The BVH writer: tab-indented hierarchy, one frame per line, the line endings of the file that
//! was read (LF for a new clip). A motion line whose values are all still what they were read as
//! is written byte for byte as it was read; in any other line, a value still what it was read as
//! is written with its source text, and any other number in the shortest form that reads back to
//! the same f32. Around the motion lines the file read is kept too: each line's own terminator
//! (none for a last line that had none), and blank lines between and after them.
//!
//! Readers disagree on position channels: most (Blender's importer, the common Python readers,
//! this one) take a channel's value as the coordinate itself, three.js's `BVHLoader` adds it to
//! the joint's `OFFSET`. The writer therefore writes 0 for every `OFFSET` component that a
//! position channel animates, which every convention reads the same way.

use super::{Bvh, BvhError, Channel, source};
use crate::atomic::write_atomically;
use std::io::{self, Write};
use std::path::Path;

impl Bvh {
    /// Writes the file to `out`.
    ///
    /// # Errors
    /// Those of `out`, and [`io::ErrorKind::InvalidData`] (before anything is written) for a
    /// value that is not finite, which no reader accepts.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        self.check_finite()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
        let eol = self.source.as_ref().map_or("\n", |s| s.line_ending());
        let children = self.skeleton.children();
        write!(out, "HIERARCHY{eol}")?;
        for (index, joint) in self.skeleton.joints().iter().enumerate() {
            if joint.parent.is_none() {
                self.write_joint(out, index, &children, eol)?;
            }
        }
        write!(out, "MOTION{eol}")?;
        write!(out, "Frames: {}{eol}", self.frame_count())?;
        write!(out, "Frame Time: {}{eol}", self.frame_time)?;
        // The file read, when it holds these frames: its blank lines and each line's own
        // terminator (a last line without one stays without) are then written as read.
        let layout = self
            .source
            .as_deref()
            .filter(|s| s.frame_count() == self.frame_count());
        let mut line = String::new();
        let channel_count = self.channel_count().max(1);
        let angles = super::parse::angle_channels(&self.channels);
        for (frame_index, frame) in self.values.chunks_exact(channel_count).enumerate() {
            if let Some(source) = layout {
                out.write_all(source.gap_before(frame_index))?;
            }
            let terminator = layout.map_or(eol, |s| s.frame_line(frame_index).1);
            if let Some((text, _)) = self.unchanged_line(frame_index, frame, &angles) {
                out.write_all(text.as_bytes())?;
                out.write_all(terminator.as_bytes())?;
                continue;
            }
            line.clear();
            let mut tokens = self.source.as_ref().map(|s| s.frame_tokens(frame_index));
            for (i, &value) in frame.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                let token = tokens.as_mut().and_then(Iterator::next);
                match source::unchanged(token, value, angles.get(i).copied().unwrap_or(false)) {
                    Some(token) => line.push_str(token),
                    None => {
                        // Display prints the shortest decimal that parses back to the same f32.
                        use std::fmt::Write as _;
                        let _ = write!(line, "{value}");
                    }
                }
            }
            line.push_str(terminator);
            out.write_all(line.as_bytes())?;
        }
        if let Some(source) = layout.filter(|s| s.frame_count() > 0) {
            out.write_all(source.gap_before(source.frame_count()))?;
        }
        Ok(())
    }

    /// Frame `frame_index`'s motion line as read (text and terminator) when it holds exactly
    /// the values `frame`, each read from its own token (`angles` says which are rotations), and
    /// nothing else.
    fn unchanged_line(
        &self,
        frame_index: usize,
        frame: &[f32],
        angles: &[bool],
    ) -> Option<(&str, &str)> {
        let source = self.source.as_ref()?;
        let mut tokens = source.frame_tokens(frame_index);
        let all_kept = frame.iter().enumerate().all(|(i, &value)| {
            let angle = angles.get(i).copied().unwrap_or(false);
            source::unchanged(tokens.next(), value, angle).is_some()
        });
        (all_kept && tokens.next().is_none()).then(|| source.frame_line(frame_index))
    }

    /// Writes one root's subtree. Iterative, so a hierarchy of any depth cannot exhaust the stack.
    fn write_joint(
        &self,
        out: &mut impl Write,
        root: usize,
        children: &[Vec<usize>],
        eol: &str,
    ) -> io::Result<()> {
        enum Step {
            Open(usize, usize),
            Close(usize, usize),
        }
        let mut steps = vec![Step::Open(root, 0)];
        while let Some(step) = steps.pop() {
            match step {
                Step::Open(index, depth) => {
                    let joint = &self.skeleton.joints()[index];
                    let indent = indentation(depth);
                    let keyword = if joint.parent.is_none() {
                        "ROOT"
                    } else {
                        "JOINT"
                    };
                    write!(out, "{indent}{keyword} {}{eol}", joint.name)?;
                    write!(out, "{indent}{{{eol}")?;
                    let channels = &self.channels[index];
                    let o = self.written_offset(index);
                    write!(out, "{indent}\tOFFSET {} {} {}{eol}", o.x, o.y, o.z)?;
                    write!(out, "{indent}\tCHANNELS {}", channels.len())?;
                    for channel in channels {
                        write!(out, " {channel}")?;
                    }
                    write!(out, "{eol}")?;
                    // Children come out in order, then the end site and the closing brace.
                    steps.push(Step::Close(index, depth));
                    for &child in children[index].iter().rev() {
                        steps.push(Step::Open(child, depth + 1));
                    }
                }
                Step::Close(index, depth) => {
                    let indent = indentation(depth);
                    if let Some(end) = self.skeleton.joints()[index].end_site {
                        write!(out, "{indent}\tEnd Site{eol}")?;
                        write!(out, "{indent}\t{{{eol}")?;
                        write!(out, "{indent}\t\tOFFSET {} {} {}{eol}", end.x, end.y, end.z)?;
                        write!(out, "{indent}\t}}{eol}")?;
                    }
                    write!(out, "{indent}}}{eol}")?;
                }
            }
        }
        Ok(())
    }
}

impl Bvh {
    /// Joint `joint`'s offset as the writer writes it: 0 in every component a position channel
    /// animates (see the module documentation).
    fn written_offset(&self, joint: usize) -> glam::Vec3 {
        let mut offset = self.skeleton.joints()[joint].offset;
        for channel in &self.channels[joint] {
            if let Channel::Position(axis) = channel {
                offset[axis.index()] = 0.0;
            }
        }
        offset
    }

    /// The skeleton as a written file holds it (offsets as [`Bvh::write`] writes them), which
    /// reads the same from this clip and from any file written from it: what a limits file
    /// records as the skeleton it was made for.
    pub fn skeleton_as_written(&self) -> jointlimits::Skeleton {
        let joints = (0..self.skeleton.len())
            .map(|j| jointlimits::Joint {
                offset: self.written_offset(j),
                ..self.skeleton.joints()[j].clone()
            })
            .collect();
        jointlimits::Skeleton::new(joints).expect("the same hierarchy with finite offsets")
    }

    /// Every offset, end site and motion value is finite; otherwise an error naming the joint and,
    /// for a motion value, the frame and channel.
    pub fn check_finite(&self) -> Result<(), BvhError> {
        for joint in self.skeleton.joints() {
            let end = joint.end_site.unwrap_or_default();
            if !joint.offset.is_finite() || !end.is_finite() {
                return Err(BvhError::NotRepresentable {
                    joint: joint.name.clone(),
                    frame: 0,
                    problem: "its offset is not finite".to_string(),
                });
            }
        }
        let channel_count = self.channel_count().max(1);
        let Some(index) = self.values.iter().position(|v| !v.is_finite()) else {
            return Ok(());
        };
        let (frame, within) = (index / channel_count, index % channel_count);
        let first = self.first_channels();
        let joint = first.partition_point(|&f| f <= within).saturating_sub(1);
        Err(BvhError::NotRepresentable {
            joint: self.skeleton.joints()[joint].name.clone(),
            frame,
            problem: format!(
                "{} is {}, which cannot be written",
                self.channels[joint][within - first[joint]],
                self.values[index]
            ),
        })
    }
}

/// Tabs for a nesting depth, capped so that output stays linear in size for absurdly deep trees.
fn indentation(depth: usize) -> String {
    const MAX_INDENT: usize = 32;
    "\t".repeat(depth.min(MAX_INDENT))
}

/// Writes `bvh` to `path` atomically: a crash never leaves a half-written file or destroys the
/// previous one.
pub fn write_bvh_file(path: impl AsRef<Path>, bvh: &Bvh) -> Result<(), BvhError> {
    let path = path.as_ref();
    bvh.check_finite()?;
    write_atomically(path, |out| bvh.write(out)).map_err(|source| BvhError::Io {
        path: path.to_path_buf(),
        source,
    })
}
