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
                self.write_joint(out, index, 0, &children)?;
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

    fn write_joint(
        &self,
        out: &mut impl Write,
        index: usize,
        depth: usize,
        children: &[Vec<usize>],
    ) -> io::Result<()> {
        let joint = &self.skeleton.joints()[index];
        let indent = "\t".repeat(depth);
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
        for &child in &children[index] {
            self.write_joint(out, child, depth + 1, children)?;
        }
        if let Some(end) = joint.end_site {
            writeln!(out, "{indent}\tEnd Site")?;
            writeln!(out, "{indent}\t{{")?;
            writeln!(out, "{indent}\t\tOFFSET {} {} {}", end.x, end.y, end.z)?;
            writeln!(out, "{indent}\t}}")?;
        }
        writeln!(out, "{indent}}}")
    }
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
