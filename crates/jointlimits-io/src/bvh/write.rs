//! The BVH writer: tab-indented hierarchy, one frame per line, LF line endings, numbers in the
//! shortest form that reads back to the same f32.

use super::{Bvh, BvhError};
use crate::atomic::write_atomically;
use std::io::{self, Write};
use std::path::Path;

impl Bvh {
    /// Writes the file to `out`.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let children = self.skeleton.children();
        writeln!(out, "HIERARCHY")?;
        for (index, joint) in self.skeleton.joints().iter().enumerate() {
            if joint.parent.is_none() {
                self.write_joint(out, index, &children)?;
            }
        }
        writeln!(out, "MOTION")?;
        writeln!(out, "Frames: {}", self.frame_count())?;
        writeln!(out, "Frame Time: {}", self.frame_time)?;
        let mut line = String::new();
        for frame in self.values.chunks_exact(self.channel_count().max(1)) {
            line.clear();
            for (i, value) in frame.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                // Display prints the shortest decimal that parses back to the same f32.
                use std::fmt::Write as _;
                let _ = write!(line, "{value}");
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// Writes one root's subtree. Iterative, so a hierarchy of any depth cannot exhaust the stack.
    fn write_joint(
        &self,
        out: &mut impl Write,
        root: usize,
        children: &[Vec<usize>],
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
                    writeln!(out, "{indent}{keyword} {}", joint.name)?;
                    writeln!(out, "{indent}{{")?;
                    let o = joint.offset;
                    writeln!(out, "{indent}\tOFFSET {} {} {}", o.x, o.y, o.z)?;
                    let channels = &self.channels[index];
                    write!(out, "{indent}\tCHANNELS {}", channels.len())?;
                    for channel in channels {
                        write!(out, " {channel}")?;
                    }
                    writeln!(out)?;
                    // Children come out in order, then the end site and the closing brace.
                    steps.push(Step::Close(index, depth));
                    for &child in children[index].iter().rev() {
                        steps.push(Step::Open(child, depth + 1));
                    }
                }
                Step::Close(index, depth) => {
                    let indent = indentation(depth);
                    if let Some(end) = self.skeleton.joints()[index].end_site {
                        writeln!(out, "{indent}\tEnd Site")?;
                        writeln!(out, "{indent}\t{{")?;
                        writeln!(out, "{indent}\t\tOFFSET {} {} {}", end.x, end.y, end.z)?;
                        writeln!(out, "{indent}\t}}")?;
                    }
                    writeln!(out, "{indent}}}")?;
                }
            }
        }
        Ok(())
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
    write_atomically(path, |out| bvh.write(out)).map_err(|source| BvhError::Io {
        path: path.to_path_buf(),
        source,
    })
}
