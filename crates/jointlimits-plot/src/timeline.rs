//! A clip's violations over time: for the chosen joints or those that stray farthest, the distance of each frame
//! from the nearest allowed rotation, before limiting and after (streamed as `apply` streams).

use jointlimits::{Limiter, Motion};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::figure::Figure;
use crate::style::{self, INK};

/// Joints drawn: the ones with the largest violations.
pub const TIMELINE_JOINTS: usize = 6;

/// One joint's violations, degrees per frame.
#[derive(Clone, Debug, PartialEq)]
pub struct JointViolations {
    /// The joint.
    pub name: String,
    /// Before limiting.
    pub before: Vec<f32>,
    /// After limiting.
    pub after: Vec<f32>,
}

/// A clip's violation timeline (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// The heading.
    pub title: String,
    /// Frames per second, for the time axis.
    pub frame_rate: f64,
    /// The joints drawn, largest violation first.
    pub joints: Vec<JointViolations>,
    /// Frames in the clip.
    pub frames: usize,
}

const WIDTH: u32 = 900;
const HEIGHT: u32 = 640;

impl Timeline {
    /// Measures `motion` against `limiter` (a fresh one bound to the clip's skeleton) before and
    /// after limiting; `names` are the skeleton's joint names. Draws the joints named in `only`
    /// (at most `TIMELINE_JOINTS`), or, when it is empty, the ones with the largest violations.
    pub fn new(
        title: &str,
        mut limiter: Limiter,
        names: &[String],
        motion: &Motion,
        only: &[String],
    ) -> Timeline {
        let count = limiter.joint_count().min(motion.joint_count);
        let frames = motion.frame_count();
        let mut before = vec![Vec::with_capacity(frames); count];
        let mut after = vec![Vec::with_capacity(frames); count];
        let mut pose = Vec::with_capacity(count);
        for frame in 0..frames {
            pose.clear();
            pose.extend_from_slice(&motion.frame_rotations(frame)[..count]);
            for (joint, &local) in pose.iter().enumerate() {
                before[joint].push(violation_degrees(&limiter, joint, local));
            }
            limiter.limit_pose(&mut pose);
            for (joint, &local) in pose.iter().enumerate() {
                after[joint].push(violation_degrees(&limiter, joint, local));
            }
        }
        let mut joints: Vec<JointViolations> = (0..count)
            .filter(|&j| limiter.joint_limit(j).is_some())
            .filter(|&j| only.is_empty() || names.get(j).is_some_and(|n| only.contains(n)))
            .map(|j| JointViolations {
                name: names
                    .get(j)
                    .cloned()
                    .unwrap_or_else(|| format!("joint {j}")),
                before: std::mem::take(&mut before[j]),
                after: std::mem::take(&mut after[j]),
            })
            .collect();
        let peak = |j: &JointViolations| j.before.iter().copied().fold(0.0f32, f32::max);
        joints.sort_by(|a, b| peak(b).total_cmp(&peak(a)));
        joints.truncate(TIMELINE_JOINTS);
        Timeline {
            title: title.to_string(),
            frame_rate: motion.frame_rate(),
            joints,
            frames,
        }
    }
}

fn violation_degrees(limiter: &Limiter, joint: usize, local: glam::Quat) -> f32 {
    limiter
        .joint_limit(joint)
        .map_or(0.0, |limit| limit.violation(local).to_degrees())
}

impl Figure for Timeline {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.draw(&Text::new(self.title.as_str(), (20, 10), style::text(18.0)))?;
        let body = root.margin(40, 10, 10, 10);
        let panels = body.split_evenly((2, 1));
        let seconds = |frame: usize| {
            if self.frame_rate > 0.0 {
                frame as f64 / self.frame_rate
            } else {
                frame as f64
            }
        };
        let end = seconds(self.frames.max(2) - 1);
        let peak = self
            .joints
            .iter()
            .flat_map(|j| j.before.iter())
            .copied()
            .fold(0.0f32, f32::max)
            .max(1.0) as f64
            * 1.1;
        for (panel, after) in panels.iter().zip([false, true]) {
            let caption = if after {
                "after limiting: violation (degrees)"
            } else {
                "before limiting: violation (degrees)"
            };
            let mut chart = ChartBuilder::on(panel)
                .caption(caption, style::text(14.0))
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0.0..end, 0.0..peak)?;
            chart
                .configure_mesh()
                .x_desc(if self.frame_rate > 0.0 {
                    "seconds"
                } else {
                    "frame"
                })
                .label_style(style::text(11.0))
                .axis_desc_style(style::text(12.0))
                .light_line_style(INK.mix(0.08))
                .draw()?;
            for (index, joint) in self.joints.iter().enumerate() {
                let colour = Palette99::pick(index).to_rgba();
                let values = if after { &joint.after } else { &joint.before };
                chart
                    .draw_series(LineSeries::new(
                        values
                            .iter()
                            .enumerate()
                            .map(|(frame, &v)| (seconds(frame), f64::from(v))),
                        colour.stroke_width(2),
                    ))?
                    .label(joint.name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                    });
            }
            if !self.joints.is_empty() {
                chart
                    .configure_series_labels()
                    .label_font(style::text(11.0))
                    .background_style(WHITE.mix(0.85))
                    .border_style(INK)
                    .draw()?;
            }
        }
        Ok(())
    }
}
