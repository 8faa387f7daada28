//! `jointlimits`: learn joint rotation limits from motion capture and enforce them.

mod apply;
mod bake;
mod bones;
mod check;
mod clips;
mod compare;
mod demo;
mod eval;
mod fit;
mod ik;
mod images;
mod inputs;
mod inspect;
mod lod;
mod memory;
mod mirror;
mod plot;
mod progress;
mod suggest;

use clap::{Parser, Subcommand};
use jointlimits::fit::{FitOptions, ReferenceChoice, ShapeKind};
use jointlimits::{Softening, SpaceKind};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "jointlimits",
    version,
    about = "Learn joint rotation limits from motion capture and enforce them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fit limits to the built-in humanoid's range-of-motion clip, apply them to an exaggerated
    /// clip, and write the clips, limits.json and a report (no input needed).
    Demo {
        /// Folder for the output files (created if missing).
        #[arg(long, default_value = "jointlimits-demo")]
        out: PathBuf,
    },
    /// Print a BVH clip's joint tree, frame count, frame rate and the range of every rotation
    /// channel in degrees.
    Inspect {
        /// The BVH file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Learn joint limits from one or more BVH clips of one skeleton.
    Fit {
        /// The clips.
        #[arg(required = true)]
        clips: Vec<PathBuf>,
        /// The limits file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Limit space: full or swing-twist.
        #[arg(long, default_value = "full", value_parser = fit::parse_space)]
        space: SpaceKind,
        /// Shape: box, obb, ellipsoid, mvee, kdop (= kdop13), kdop3, kdop7, kdop13, hull,
        /// reach-cone (bone direction and swing-dependent twist), table (lookup tables over
        /// the sphere of bone directions), or an authored kind, the smallest of its kind holding
        /// the frames: euler (axis order of least volume), euler-xyz … euler-zyx, hinge, cone,
        /// spherical-ellipse. The space option is ignored for all but the first eight.
        #[arg(long, default_value = "ellipsoid", value_parser = fit::parse_shape)]
        shape: ShapeKind,
        /// Cells per side of a table (`--shape table`, 4 to 2048; default 128) or of a coupled
        /// limit's grid over the parent's directions (`--shape coupled`, 1 to 64; default 4).
        #[arg(long)]
        resolution: Option<u32>,
        /// Room around the data, degrees (0 to 180).
        #[arg(long, default_value_t = 2.0, value_parser = parse_padding, allow_hyphen_values = true)]
        padding: f64,
        /// Frames to skip at the start of every clip (for example a T-pose frame 0).
        #[arg(long, default_value_t = 0)]
        skip_frames: usize,
        /// What rotations are measured from: bind, frame:N or mean.
        #[arg(long, default_value = "bind", value_parser = fit::parse_reference)]
        reference: ReferenceChoice,
        /// Subsampling distance in limit space, radians (0 keeps every sample; at most π).
        #[arg(long, default_value_t = 0.05, value_parser = parse_subsample, allow_hyphen_values = true)]
        subsample: f64,
        /// Calibrate each joint's margin so that this share of unseen natural frames is
        /// accepted (for example 0.99), by cross-validation over the clips (each held out in
        /// turn; a single clip is cut into 4 blocks). The padding becomes the least room;
        /// the validated acceptance and tightness are printed per joint.
        #[arg(long, value_parser = parse_accept)]
        accept: Option<f64>,
        /// Hold only this share of each joint's frames (for example 0.99), leaving out the
        /// outliers (a glitch, a marker swap): for authored kinds those whose removal shrinks
        /// the limit most, for the others those farthest from the joint's robust centre. Every
        /// frame by default; with --accept, the shares 100%, 99.8%, 99.5% and 99% are tried and
        /// the tightest that reaches the acceptance kept.
        #[arg(long, value_parser = parse_hold)]
        hold: Option<f64>,
        /// With --shape coupled: the room, degrees (0 to 180), each parent direction's box gets
        /// beyond the padding, up to the independent box: 0 conditions most tightly on the
        /// recorded parent directions, 180 leaves the independent box.
        #[arg(long, default_value_t = jointlimits::fit::coupled::DEFAULT_COUPLING_MARGIN_DEGREES, value_parser = parse_padding, allow_hyphen_values = true)]
        coupling_margin: f64,
        /// Pool each left joint's rotations with its right partner's, reflected across the
        /// body's sagittal plane, and the other way round: both sides learn from twice the data
        /// and come out mirror images. Partners are found by name (Left/Right, l/r or L/R
        /// before a capital, _L/_R or .L/.R at the end), or named with --pair.
        #[arg(long)]
        mirror: bool,
        /// With --mirror, a left/right pair named by hand, LEFT=RIGHT (repeatable); it replaces
        /// what the names would pair for both joints.
        #[arg(long = "pair", value_parser = mirror::parse_pair)]
        pairs: Vec<(String, String)>,
        /// Per-joint choices (TOML if the name ends in .toml, else JSON): `defaults` and
        /// `joints` rules, each with `match` (a name, `*` and `?` allowed) and any of `shape`,
        /// `space`, `padding` (degrees), `resolution`, `hold` (a share of frames),
        /// `coupling_margin` (degrees), `accept` (0
        /// turns calibration off) and `exclude = true`, applied in order over the options given
        /// here.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Bake limits of any kind into lookup tables (`space: "table"`) and report, per joint, how
    /// far each table disagrees with the original on random directions and rotations.
    Bake {
        /// The limits file.
        limits: PathBuf,
        /// The limits file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Cells per side, 4 to 2048.
        #[arg(long, default_value_t = jointlimits::fit::table::DEFAULT_RESOLUTION, value_parser = clap::value_parser!(u32).range(4..=2048))]
        resolution: u32,
        /// Only these joints (repeatable; all by default); the others are copied unchanged.
        #[arg(long = "joint")]
        joints: Vec<String>,
        /// Random directions and rotations per joint to measure the disagreement on.
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        samples: u64,
    },
    /// Write each table of a limits file as five 16-bit grayscale PNG images (allowed,
    /// twist_min, twist_max, stress, break_margin) to paint in any image editor.
    ExportImages {
        /// The limits file.
        limits: PathBuf,
        /// The folder to write the images into (created if missing).
        #[arg(short, long)]
        out: PathBuf,
        /// Only these joints (repeatable; all tables by default).
        #[arg(long = "joint")]
        joints: Vec<String>,
    },
    /// Read painted table images back (the layout export-images writes; 8- or 16-bit gray) into
    /// the joints that have them, validated, and write the limits file.
    ImportImages {
        /// The limits file the images belong to.
        limits: PathBuf,
        /// The folder holding JOINT.CHANNEL.png images.
        dir: PathBuf,
        /// The limits file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Only these joints (repeatable; by default every joint with images).
        #[arg(long = "joint")]
        joints: Vec<String>,
    },
    /// Coarser levels of detail of lookup tables (half the resolution each): memory, file size
    /// and accuracy lost per level; with --resolution and --out, write the tables at one level.
    Lod {
        /// The limits file holding tables.
        limits: PathBuf,
        /// Only these joints (repeatable; all tables by default).
        #[arg(long = "joint")]
        joints: Vec<String>,
        /// The coarsest level shown, cells per side.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(4..=2048))]
        coarsest: u32,
        /// Random directions and rotations per level to measure the loss on.
        #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        samples: u64,
        /// Resample the tables to this many cells per side and write them (needs --out).
        #[arg(long, requires = "out", value_parser = clap::value_parser!(u32).range(4..=2048))]
        resolution: Option<u32>,
        /// The limits file to write (with --resolution).
        #[arg(short, long, requires = "resolution")]
        out: Option<PathBuf>,
    },
    /// Make the other side's limits from one side's, reflected across the body's sagittal plane
    /// (partners found by name; the plane from their offsets).
    Mirror {
        /// The limits file.
        limits: PathBuf,
        /// The limits file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// The side whose limits are copied: left or right.
        #[arg(long, default_value = "left", value_parser = mirror::parse_side)]
        from: jointlimits::mirror_limits::Side,
        /// A clip of the skeleton, for limits files that record none.
        #[arg(long)]
        skeleton: Option<PathBuf>,
        /// A left/right pair named by hand, LEFT=RIGHT (repeatable); it replaces what the names
        /// would pair for both joints.
        #[arg(long = "pair", value_parser = mirror::parse_pair)]
        pairs: Vec<(String, String)>,
    },
    /// Enforce limits on a clip and write the result.
    Apply {
        /// The limits file.
        limits: PathBuf,
        /// The clip to limit.
        input: PathBuf,
        /// The BVH file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Soften projections: FALLOFF (per radian), RADIUS (radians), for example 1,0.1.
        #[arg(long, value_parser = apply::parse_softening)]
        soften: Option<Softening>,
        /// Use limits made for another skeleton than the clip's (by default refused).
        #[arg(long)]
        allow_other_skeleton: bool,
        /// Tables: stop a bone where its motion from the previous frame first meets the limit,
        /// instead of moving it to the nearest allowed rotation.
        #[arg(long)]
        path_aware: bool,
    },
    /// Move a chain's end onto targets frame by frame, inside the limits (or, with --look-at,
    /// turn the chain to look at the targets), and write the clip.
    Ik {
        /// The limits file.
        limits: PathBuf,
        /// The clip to change.
        input: PathBuf,
        /// The BVH file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// ROOT..TIP: the joints from ROOT down to TIP. For IK, TIP is the end effector and the
        /// joints above it rotate; for --look-at, every joint rotates and TIP aims.
        #[arg(long)]
        chain: String,
        /// X,Y,Z[@FRAME or @FIRST-LAST]: a world-space target (clip units; frames from 0,
        /// inclusive; all frames if none). Repeatable; the last one covering a frame wins.
        #[arg(long = "target", value_parser = ik::parse_target, allow_hyphen_values = true)]
        targets: Vec<ik::TargetSpec>,
        /// A CSV target track, FRAME,X,Y,Z per line.
        #[arg(long)]
        targets_csv: Option<PathBuf>,
        /// Look at the targets instead of reaching them.
        #[arg(long)]
        look_at: bool,
        /// The aim axis in TIP's frame, for --look-at.
        #[arg(long, default_value = "0,0,1", value_parser = ik::parse_vec3)]
        aim: glam::Vec3,
        /// relaxation, fabrik, ccd or two-bone (three joints: upper, lower, end).
        #[arg(long, default_value = "relaxation", value_parser = ik::parse_method)]
        solver: ik::Method,
        /// Most iterations per frame.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        iterations: u32,
        /// Success distance in clip units (default 0.1% of the chain's length).
        #[arg(long, value_parser = parse_ik_tolerance, allow_hyphen_values = true)]
        tolerance: Option<f32>,
        /// X,Y,Z: the world direction a straight chain bends toward (two-bone: the knee or
        /// elbow's side).
        #[arg(long, value_parser = ik::parse_vec3)]
        pole: Option<glam::Vec3>,
        /// Ignore the limits (for comparison).
        #[arg(long)]
        no_limits: bool,
        /// Prefer relaxed poses: after reaching a target, turn the joints toward lower stress
        /// while the end stays on it (limits that store stress: tables); radians per unit of
        /// stress gradient, 0 (default) to 10.
        #[arg(long, default_value_t = 0.0, value_parser = parse_stress_weight)]
        stress_weight: f32,
        /// Use limits made for another skeleton than the clip's (by default refused).
        #[arg(long)]
        allow_other_skeleton: bool,
    },
    /// Report, per joint, the frames outside the limits; exit status 1 if any exceed the tolerance.
    Check {
        /// The limits file.
        limits: PathBuf,
        /// The clips to check.
        #[arg(required = true)]
        clips: Vec<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Violations up to this many degrees count as inside (0 to 360).
        #[arg(long, default_value_t = 0.0, value_parser = parse_tolerance, allow_hyphen_values = true)]
        tolerance: f64,
        /// Use limits made for another skeleton than the clips' (by default refused).
        #[arg(long)]
        allow_other_skeleton: bool,
        /// Write each frame's stress per joint (kinds that store stress: tables) as CSV.
        #[arg(long)]
        stress_csv: Option<PathBuf>,
    },
    /// Measure limits: acceptance of clips, tightness on random rotations and directions,
    /// optimality of projections against a brute force, continuity on slow paths, and cost.
    Eval {
        /// The limits file.
        limits: PathBuf,
        /// Clips to measure acceptance on.
        #[arg(long, num_args = 1..)]
        clips: Vec<PathBuf>,
        /// Only these joints (repeatable; all by default).
        #[arg(long = "joint")]
        joints: Vec<String>,
        /// Random rotations (and directions) per joint for tightness.
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        samples: u64,
        /// Random outside rotations per joint whose projections are checked by brute force.
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
        optimality_inputs: u64,
        /// Random slow paths of each kind per joint.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(0..=10_000))]
        paths: u64,
        /// Seed of every random input: the same seed gives the same numbers.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Leave out timings, the only numbers that differ between runs.
        #[arg(long)]
        no_timing: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Use limits made for another skeleton than the clips' (by default refused).
        #[arg(long)]
        allow_other_skeleton: bool,
    },
    /// Fit every limit kind and space to the clips and compare them on held-out motion
    /// (--holdout clips, or cross-validation), tightness, optimality, continuity and cost.
    Compare {
        /// The clips to fit.
        #[arg(required = true)]
        clips: Vec<PathBuf>,
        /// Clips to measure held-out acceptance on (default: leave-one-clip-out, or time blocks
        /// of a single clip).
        #[arg(long, num_args = 1..)]
        holdout: Vec<PathBuf>,
        /// Only these joints (repeatable; all by default).
        #[arg(long = "joint")]
        joints: Vec<String>,
        /// Frames to skip at the start of every clip.
        #[arg(long, default_value_t = 0)]
        skip_frames: usize,
        /// Room around the data, degrees (0 to 180).
        #[arg(long, default_value_t = 2.0, value_parser = parse_padding, allow_hyphen_values = true)]
        padding: f64,
        /// Calibrate each kind's margins to accept this share of unseen frames (as `fit
        /// --accept`), inside each fold's training clips, so the held-out figures judge it.
        #[arg(long, value_parser = parse_accept)]
        accept: Option<f64>,
        /// Random rotations (and directions) per joint for tightness.
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        samples: u64,
        /// Random outside rotations per joint whose projections are checked by brute force.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
        optimality_inputs: u64,
        /// Random slow paths of each kind per joint.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(0..=10_000))]
        paths: u64,
        /// Seed of every random input: the same seed gives the same numbers.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Leave out timings, the only numbers that differ between runs.
        #[arg(long)]
        no_timing: bool,
        /// Print JSON.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print a Markdown table.
        #[arg(long)]
        markdown: bool,
    },
    /// Draw limits: an overview of every joint, and per joint a swing chart (where the bone can
    /// point, coloured by allowed twist) and the limit space in four views, with the clips'
    /// samples; per clip, a timeline of violations before and after limiting.
    Plot {
        /// The limits file.
        limits: PathBuf,
        /// Clips whose frames to draw as samples (and whose violations to chart).
        #[arg(long = "clip", num_args = 1..)]
        clips: Vec<PathBuf>,
        /// Only these joints in detail (repeatable; all by default; the overview shows all).
        #[arg(long = "joint")]
        joints: Vec<String>,
        /// The folder to write the pictures into (created if missing).
        #[arg(short, long)]
        out: PathBuf,
        /// png, svg or both.
        #[arg(long, default_value = "both", value_parser = plot::parse_formats)]
        format: plot::Formats,
        /// Use limits made for another skeleton than the clips' (by default refused).
        #[arg(long)]
        allow_other_skeleton: bool,
    },
}

/// A finite number from `min` to `max` (in `unit`).
fn number_within(text: &str, min: f64, max: f64, unit: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if value.is_finite() && (min..=max).contains(&value) {
        // `-0` is 0: adding zero clears the sign, so messages never print `-0`.
        Ok(value + 0.0)
    } else {
        Err(format!(
            "expected a finite number of {unit} from {min} to {max}, got {text}"
        ))
    }
}

/// `fit --accept`: a share of frames in (0, 1].
fn parse_accept(text: &str) -> Result<f64, String> {
    let share: f64 = text
        .parse()
        .map_err(|_| format!("expected a share such as 0.99, found {text:?}"))?;
    if share > 0.0 && share <= 1.0 {
        Ok(share)
    } else {
        Err(format!("{text} is not a share of frames in (0, 1]"))
    }
}

/// `fit --hold`: a share of frames in (0, 1].
fn parse_hold(text: &str) -> Result<f64, String> {
    parse_accept(text)
}

/// `check --tolerance`: degrees, 0 to 360.
fn parse_tolerance(text: &str) -> Result<f64, String> {
    number_within(text, 0.0, 360.0, "degrees")
}

/// `fit --padding`: degrees, 0 to 180.
fn parse_padding(text: &str) -> Result<f64, String> {
    number_within(text, 0.0, 180.0, "degrees")
}

/// `ik --tolerance`: clip units, 0 to [`ik::MAX_COORDINATE`].
fn parse_ik_tolerance(text: &str) -> Result<f32, String> {
    number_within(text, 0.0, f64::from(ik::MAX_COORDINATE), "clip units").map(|t| t as f32)
}

/// `ik --stress-weight`: 0 to 10.
fn parse_stress_weight(text: &str) -> Result<f32, String> {
    number_within(text, 0.0, 10.0, "radians per unit of stress").map(|w| w as f32)
}

/// `fit --subsample`: radians, 0 to π.
fn parse_subsample(text: &str) -> Result<f64, String> {
    number_within(text, 0.0, std::f64::consts::PI, "radians")
}

fn main() -> ExitCode {
    progress::mark_start();
    quiet_on_closed_pipe();
    // An interrupted run leaves no temporary file behind (130: the shell's code for Ctrl-C).
    let _ = ctrlc::set_handler(|| {
        jointlimits_io::atomic::remove_pending_temporaries();
        std::process::exit(130);
    });
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { out } => demo::run(&out).map(|()| true),
        Command::Inspect { file, json } => inspect::run(&file, json).map(|()| true),
        Command::Fit {
            clips,
            out,
            space,
            shape,
            padding,
            skip_frames,
            reference,
            subsample,
            resolution,
            accept,
            hold,
            coupling_margin,
            mirror,
            pairs,
            config,
        } => {
            let shape = match (shape, resolution) {
                (ShapeKind::Table(_), Some(cells)) => ShapeKind::Table(cells),
                (ShapeKind::Coupled(_), Some(cells)) => ShapeKind::Coupled(cells),
                (other, Some(_)) if config.is_none() => {
                    eprintln!(
                        "warning: --resolution is for --shape table and --shape coupled; {other} has no grid, so it is ignored"
                    );
                    other
                }
                (other, _) => other,
            };
            if matches!(shape, ShapeKind::Coupled(_)) && hold.is_some() && config.is_none() {
                eprintln!(
                    "warning: coupled limits hold every frame, so --hold applies only to the joints fitted without a parent to couple to (the root's children)"
                );
            }
            let options = FitOptions {
                space,
                shape,
                padding: padding.to_radians(),
                subsample,
                reference,
                skip_frames,
                softening: None,
                hold: hold.unwrap_or(1.0),
                coupling_margin: coupling_margin.to_radians(),
            };
            config
                .as_deref()
                .map(|path| {
                    inputs::ensure_output_is_not_an_input(&out, &[path])?;
                    Ok(jointlimits_io::read_fit_config(path).map_err(fit::with_suggestion)?)
                })
                .transpose()
                .and_then(|read: Option<jointlimits::fit::FitConfig>| {
                    let choices = jointlimits::fit::SkeletonFitChoices {
                        accept,
                        mirror,
                        pairs,
                        config: read,
                    };
                    fit::run(&clips, &out, options, &choices, config.as_deref())
                })
                .map(|()| true)
        }
        Command::Bake {
            limits,
            out,
            resolution,
            joints,
            samples,
        } => bake::run(&bake::BakeRequest {
            limits: &limits,
            out: &out,
            resolution: resolution as usize,
            joints: &joints,
            samples: samples as usize,
        })
        .map(|()| true),
        Command::ExportImages {
            limits,
            out,
            joints,
        } => images::export(&limits, &out, &joints).map(|()| true),
        Command::ImportImages {
            limits,
            dir,
            out,
            joints,
        } => images::import(&limits, &dir, &out, &joints).map(|()| true),
        Command::Lod {
            limits,
            joints,
            coarsest,
            samples,
            resolution,
            out,
        } => lod::run(&lod::LodRequest {
            limits: &limits,
            joints: &joints,
            coarsest: coarsest as usize,
            samples: samples as usize,
            write: resolution.zip(out.as_deref()).map(|(r, o)| (r as usize, o)),
        })
        .map(|()| true),
        Command::Mirror {
            limits,
            out,
            from,
            skeleton,
            pairs,
        } => mirror::run(&mirror::MirrorRequest {
            limits: &limits,
            out: &out,
            from,
            skeleton_clip: skeleton.as_deref(),
            pairs: &pairs,
        })
        .map(|()| true),
        Command::Apply {
            limits,
            input,
            out,
            soften,
            allow_other_skeleton,
            path_aware,
        } => apply::run(
            &limits,
            &input,
            &out,
            soften,
            allow_other_skeleton,
            path_aware,
        )
        .map(|()| true),
        Command::Ik {
            limits,
            input,
            out,
            chain,
            mut targets,
            targets_csv,
            look_at,
            aim,
            solver,
            iterations,
            tolerance,
            pole,
            no_limits,
            stress_weight,
            allow_other_skeleton,
        } => (|| {
            if let Some(csv) = targets_csv {
                targets.extend(ik::read_target_csv(&csv)?);
            }
            if targets.is_empty() {
                anyhow::bail!("give at least one --target or a --targets-csv track");
            }
            let options = jointlimits::ik::IkOptions {
                max_iterations: iterations as usize,
                tolerance: tolerance.unwrap_or(0.0),
                use_limits: !no_limits,
                pole,
                stress_weight,
                ..Default::default()
            };
            ik::run(ik::IkRequest {
                limits: &limits,
                input: &input,
                out: &out,
                chain: &chain,
                targets,
                look_at,
                aim,
                method: solver,
                options,
                allow_other_skeleton,
            })
        })()
        .map(|()| true),
        Command::Check {
            limits,
            clips,
            json,
            tolerance,
            allow_other_skeleton,
            stress_csv,
        } => check::run(
            &limits,
            &clips,
            json,
            tolerance,
            allow_other_skeleton,
            stress_csv.as_deref(),
        ),
        Command::Eval {
            limits,
            clips,
            joints,
            samples,
            optimality_inputs,
            paths,
            seed,
            no_timing,
            json,
            allow_other_skeleton,
        } => eval::run(&eval::EvalRequest {
            limits: &limits,
            clips: &clips,
            joints: &joints,
            options: jointlimits::measure::EvaluationOptions {
                samples: samples as usize,
                optimality_inputs: optimality_inputs as usize,
                paths_per_family: paths as usize,
                seed,
                timing: !no_timing,
            },
            json,
            allow_other_skeleton,
        })
        .map(|()| true),
        Command::Plot {
            limits,
            clips,
            joints,
            out,
            format,
            allow_other_skeleton,
        } => plot::run(&plot::PlotRequest {
            limits: &limits,
            clips: &clips,
            joints: &joints,
            out: &out,
            formats: format,
            allow_other_skeleton,
        })
        .map(|()| true),
        Command::Compare {
            clips,
            holdout,
            joints,
            skip_frames,
            padding,
            accept,
            samples,
            optimality_inputs,
            paths,
            seed,
            no_timing,
            json,
            markdown,
        } => compare::run(&compare::CompareRequest {
            clips: &clips,
            holdout: &holdout,
            joints: &joints,
            skip_frames,
            padding: padding.to_radians(),
            accept,
            evaluation: jointlimits::measure::EvaluationOptions {
                samples: samples as usize,
                optimality_inputs: optimality_inputs as usize,
                paths_per_family: paths as usize,
                seed,
                timing: !no_timing,
            },
            format: if json {
                compare::Format::Json
            } else if markdown {
                compare::Format::Markdown
            } else {
                compare::Format::Text
            },
        })
        .map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {}", error_message(&error));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes joined by `: `, each said once (a message that already quotes its
/// cause does not get it repeated).
fn error_message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// Lets a closed pipe end the program silently, as it does other command-line tools
/// (`jointlimits inspect clip.bvh | head -1`); Rust's default turns it into an error on every
/// write.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
