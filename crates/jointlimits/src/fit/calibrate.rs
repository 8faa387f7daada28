//! Calibrated margins: for each joint, the padding under which a chosen share `P` of unseen
//! natural frames is accepted, found by cross-validation over the clips given.
//!
//! The clips are split into folds: each clip held out in turn when there are two or more, else
//! [`TIME_BLOCKS`] contiguous blocks of the one clip. For each fold the joint is fitted on the
//! rest at the base padding, and every held-out frame's violation (its distance to the fitted
//! region in the kind's own metric, 0 inside) is recorded. The margin is the `P`-quantile of those
//! violations: the region grown by it holds a share `P` of frames the fit did not see. Every
//! fitted kind pads by growing outwards by its padding in that same metric (box and k-DOP faces
//! move out, ellipsoid semi-axes grow, twist intervals widen, reach cones and tables grow their
//! angular radius), so the grown region holds each of those frames' nearest points' neighbourhood
//! and the share carries over. The joint is then fitted on every clip with padding
//! `base + margin`, and the folds are fitted again at that padding to report the acceptance
//! actually reached on their held-out frames.
//!
//! Full-space ellipsoids are also grown side by side ([`super::directed_margin`]): the folds'
//! ellipsoids at the base padding are grown by one margin per semi-axis, the smallest-volume
//! margins under which they hold a share `P` of their held-out frames, and the limit fitted on
//! every clip is grown by the same. Of the two, the one accepting fewer random rotations is kept.
//! (Boxes and k-DOPs, with a margin per face, fit their folds too closely: the share falls short
//! on clips the calibration never saw, so they keep the uniform margin.) Tables are grown by one
//! margin for bone directions and another for twists ([`super::swing_twist_margin`]), likewise
//! kept when they accept fewer random rotations. (Swing-twist limits, grown the same way, were
//! 22–29% tighter on the CMU DAZ fixtures but held 98.89% and 98.54% of a left-out clip for
//! ellipsoids and 13-DOPs, against 99.05% and 98.81% uniform: they keep the uniform margin.)
//! A candidate whose folds reach the share always beats one whose folds fall short.

use glam::{Quat, Vec3};

use super::config::{FitConfig, JointChoice};
use super::directed_margin;
use super::limits::{
    FitLimitsError, FitOptions, JointSamples, fit_each_joint, fit_joint_limit, held_frames,
};
use super::swing_twist_margin::SwingTwistPadding;
use crate::contract::RotationLimit;
use crate::measure::tightness::rotation_acceptance;
use crate::region::{FullLimit, LimitRegion};
use crate::shape::Shape;
use crate::{JointFitRecord, JointLimit, Motion, Skeleton, SkeletonLimits};

/// Blocks a single clip is cut into for cross-validation.
pub const TIME_BLOCKS: usize = 4;

/// The multiples of the quantile margin tried, in order, when it falls short.
const MARGIN_FACTORS: [f64; 4] = [1.25, 1.6, 2.5, 4.0];

/// The margin the search starts from when the quantile margin is zero, radians.
const MIN_SEARCHED_MARGIN: f64 = 0.01;

/// Random rotations on which the tightness of a calibrated limit is measured.
const TIGHTNESS_SAMPLES: usize = 20_000;

/// The shares of each joint's frames a calibration tries holding, all first.
const HOLDS_TRIED: [f64; 4] = [1.0, 0.998, 0.995, 0.99];

/// How much tighter (relatively, in random rotations accepted) a fit holding fewer frames must
/// be to be preferred: the measure's sampling noise is well below this.
const TIGHTER_BY: f64 = 0.05;

/// What the calibration of one joint found.
#[derive(Clone, Debug, PartialEq)]
pub struct JointCalibration {
    /// The joint.
    pub joint: String,
    /// The share of unseen frames asked for.
    pub accept: f64,
    /// The padding chosen: the base padding plus the margin, radians.
    pub padding: f64,
    /// Margins grown beyond `padding` side by side, radians ([`super::directed_margin`]): per
    /// ellipsoid semi-axis (largest variance first) or per box face (`−x, +x, −y, +y, −z, +z`),
    /// or a table's margin for bone directions then for twists ([`super::swing_twist_margin`]);
    /// empty when the margin is the uniform one in `padding`.
    pub directed_margins: Vec<f64>,
    /// The share of the frames the limit was fitted to hold (the rest: outliers left out).
    pub hold: f64,
    /// Folds the clips were split into (0 when there were too few frames to validate; then the
    /// padding is the base padding).
    pub folds: usize,
    /// Held-out frames over all folds.
    pub held_out: usize,
    /// The share of held-out frames inside the limits fitted without them at the chosen padding.
    pub validated_acceptance: f64,
    /// The share of Haar-random rotations the final limit accepts (its tightness).
    pub random_acceptance: f64,
}

impl JointCalibration {
    /// Whether the folds accepted the share asked for (or there were too few frames to tell).
    pub fn reaches(&self) -> bool {
        self.validated_acceptance.is_nan() || self.validated_acceptance >= self.accept - 1e-9
    }
}

/// One fold: the clips (or blocks) fitted on, and the rotations held out.
type Fold = (Vec<Vec<Quat>>, Vec<Quat>);

/// The joint being calibrated: what [`fit_joint_limit`] fits it from.
#[derive(Clone, Copy)]
struct Joint<'a> {
    name: &'a str,
    reference: Quat,
    relative: &'a [Vec<Quat>],
    twist_axis: Vec3,
}

impl Joint<'_> {
    /// Its limit fitted to `clips` (all of its clips, or a fold's) with `options`.
    fn fit(&self, clips: &[Vec<Quat>], options: &FitOptions) -> Result<JointLimit, FitLimitsError> {
        fit_joint_limit(self.name, self.reference, clips, self.twist_axis, options)
    }
}

/// A fold's limit fitted at the base padding, its held-out rotations and their limit-space points.
struct FoldFit<'a> {
    limit: JointLimit,
    points: Vec<Vec3>,
    held_out: &'a [Quat],
}

/// The folds of one joint's per-clip rotations (module docs): empty when a single clip has fewer
/// than two frames per block.
fn folds(relative: &[Vec<Quat>]) -> Vec<Fold> {
    let clips: Vec<&Vec<Quat>> = relative.iter().filter(|c| !c.is_empty()).collect();
    if clips.len() >= 2 {
        return (0..clips.len())
            .map(|out| {
                let rest = (0..clips.len())
                    .filter(|&i| i != out)
                    .map(|i| clips[i].clone())
                    .collect();
                (rest, clips[out].clone())
            })
            .collect();
    }
    let Some(clip) = clips.first() else {
        return Vec::new();
    };
    let block = clip.len() / TIME_BLOCKS;
    if block < 2 {
        return Vec::new();
    }
    let bounds = |b: usize| {
        (
            b * block,
            if b + 1 == TIME_BLOCKS {
                clip.len()
            } else {
                (b + 1) * block
            },
        )
    };
    (0..TIME_BLOCKS)
        .map(|out| {
            let (start, end) = bounds(out);
            // The frames before and after the held-out block, each a contiguous run.
            let rest = [&clip[..start], &clip[end..]]
                .into_iter()
                .filter(|run| !run.is_empty())
                .map(<[Quat]>::to_vec)
                .collect();
            (rest, clip[start..end].to_vec())
        })
        .collect()
}

/// The smallest value `m` of `values` with a share of at least `share` of them `≤ m`.
fn quantile(values: &mut [f32], share: f64) -> f32 {
    values.sort_by(f32::total_cmp);
    let rank = ((share * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// `limit`'s answer for a rotation `relative` to `reference` (a fitted limit may measure from a
/// turned reference: the authored swing kinds are centred on their samples).
fn limited_from(limit: &JointLimit, reference: Quat, relative: Quat) -> crate::Limited {
    limit.limit_relative(limit.relative(reference * relative))
}

/// The share of `held_out` rotations (relative to `reference`) `limit` allows.
fn acceptance(limit: &JointLimit, reference: Quat, held_out: &[Quat]) -> (usize, usize) {
    let inside = held_out
        .iter()
        .filter(|&&q| limit.contains(reference * q))
        .count();
    (inside, held_out.len())
}

/// Fits one joint like [`fit_joint_limit`] with its padding calibrated so that a share `accept`
/// (in `(0, 1]`) of unseen frames is accepted (module docs), and reports what was found.
///
/// When `options` hold every frame, the fit is also calibrated holding each share of
/// `HOLDS_TRIED` (leaving out the farthest outliers, [`super::outliers`]), and the tightest
/// limit (fewest random rotations accepted) whose folds reach `accept` is kept: a burst of
/// glitch frames in one clip otherwise grows the region for every frame, while natural motion
/// the held share leaves out is brought back by the margin the folds call for.
pub fn fit_calibrated_joint_limit(
    name: &str,
    reference: Quat,
    relative: &[Vec<Quat>],
    twist_axis: Vec3,
    options: &FitOptions,
    accept: f64,
) -> Result<(JointLimit, JointCalibration), FitLimitsError> {
    let joint = Joint {
        name,
        reference,
        relative,
        twist_axis,
    };
    if options.hold < 1.0 || matches!(options.shape, super::ShapeKind::Authored(_)) {
        // A share the user chose (authored kinds trim by their own rule: `--hold`) is kept.
        return calibrate_holding(joint, options, accept);
    }
    let mut best: Option<(JointLimit, JointCalibration)> = None;
    for hold in HOLDS_TRIED {
        let holding = FitOptions { hold, ..*options };
        let found = calibrate_holding(joint, &holding, accept)?;
        let better = match &best {
            None => true,
            Some((_, kept)) => match (found.1.reaches(), kept.reaches()) {
                (true, false) => true,
                (false, true) => false,
                (true, true) => {
                    found.1.random_acceptance < kept.random_acceptance * (1.0 - TIGHTER_BY) - 1e-9
                }
                // Neither reaches the share: the nearer to it.
                (false, false) => found.1.validated_acceptance > kept.validated_acceptance,
            },
        };
        if better {
            best = Some(found);
        }
    }
    Ok(best.expect("at least one share is tried"))
}

/// [`fit_calibrated_joint_limit`] holding the share `options.hold` of the frames.
fn calibrate_holding(
    joint: Joint,
    options: &FitOptions,
    accept: f64,
) -> Result<(JointLimit, JointCalibration), FitLimitsError> {
    let folds = folds(joint.relative);
    let mut violations = Vec::new();
    // Each fold's limit at the base padding and its held-out frames' limit-space points.
    let mut fold_fits = Vec::with_capacity(folds.len());
    for (rest, held_out) in &folds {
        let limit = joint.fit(rest, options)?;
        let mut points = Vec::with_capacity(held_out.len());
        violations.extend(held_out.iter().map(|&q| {
            let limited = limited_from(&limit, joint.reference, q);
            points.push(limited.measured.truncate());
            if limited.inside {
                0.0
            } else {
                limited.violation
            }
        }));
        fold_fits.push(FoldFit {
            limit,
            points,
            held_out,
        });
    }
    let quantile_margin = if violations.is_empty() {
        0.0
    } else {
        f64::from(quantile(&mut violations, accept))
    };
    // The options at `margin` over the base padding, and the held-out frames the folds fitted
    // with them accept.
    let validate = |margin: f64| -> Result<(FitOptions, usize, usize), FitLimitsError> {
        let padded = FitOptions {
            padding: (options.padding + margin).min(FitOptions::MAX_DISTANCE),
            ..*options
        };
        let (mut inside, mut held) = (0, 0);
        for (rest, held_out) in &folds {
            let limit = joint.fit(rest, &padded)?;
            let (i, n) = acceptance(&limit, joint.reference, held_out);
            (inside, held) = (inside + i, held + n);
        }
        Ok((padded, inside, held))
    };
    let reached = |(_, inside, held): &(FitOptions, usize, usize)| {
        *inside as f64 >= accept * *held as f64 - 1e-9
    };
    let mut best = validate(quantile_margin)?;
    // A kind's padding does not always grow it by the full margin in its own metric (an
    // ellipsoid whose padding scales its semi-axes, a table's cells): where the share falls
    // short, a few larger margins are tried, the first that reaches it kept (each try refits
    // every fold, so the search is short; a shortfall left is reported in the acceptance).
    for factor in MARGIN_FACTORS {
        if reached(&best) {
            break;
        }
        best = validate((quantile_margin * factor).max(MIN_SEARCHED_MARGIN * factor))?;
    }
    let (padded, inside, held) = best;
    let limit = joint.fit(joint.relative, &padded)?;
    let uniform = calibrated(
        joint.name,
        accept,
        limit,
        &padded,
        Vec::new(),
        folds.len(),
        (inside, held),
    );
    let directed = match options.shape {
        super::ShapeKind::Table(resolution) => {
            table_candidate(joint, options, accept, &folds, resolution as usize)
        }
        _ => directed_candidate(joint, options, accept, &fold_fits)?,
    };
    // A candidate that reaches the share beats one that does not; of two that do, the tighter.
    Ok(match directed {
        Some(directed)
            if directed.1.reaches()
                && (!uniform.1.reaches()
                    || directed.1.random_acceptance < uniform.1.random_acceptance) =>
        {
            directed
        }
        _ => uniform,
    })
}

/// The limit grown from the base padding by [`directed_margin`] margins chosen on the folds'
/// held-out points, with its calibration (validated on the folds' limits grown by the same
/// margins); `None` for kinds that take no directed margin.
fn directed_candidate(
    joint: Joint,
    options: &FitOptions,
    accept: f64,
    fold_fits: &[FoldFit],
) -> Result<Option<(JointLimit, JointCalibration)>, FitLimitsError> {
    let search_folds: Option<Vec<directed_margin::Fold>> = fold_fits
        .iter()
        .map(|fit| match &fit.limit.region {
            // Ellipsoids only: with one margin per face, boxes and k-DOPs fit their folds so
            // closely that clips the calibration never saw fall short of the share (measured
            // leaving each CMU DAZ fixture out: 98.1% and 97.1% for `--accept 0.99`).
            LimitRegion::Full(full) if matches!(full.shape(), Shape::Ellipsoid(_)) => {
                Some(directed_margin::Fold {
                    shape: full.shape(),
                    held_out: &fit.points,
                })
            }
            _ => None,
        })
        .collect();
    let Some(margins) = search_folds
        .filter(|f| !f.is_empty())
        .and_then(|f| directed_margin::directed_margins(&f, accept))
    else {
        return Ok(None);
    };
    let grow = |limit: &JointLimit| -> Option<JointLimit> {
        let LimitRegion::Full(full) = &limit.region else {
            return None;
        };
        Some(JointLimit {
            region: LimitRegion::Full(FullLimit::new(directed_margin::grown(
                full.shape(),
                &margins,
            ))),
            ..limit.clone()
        })
    };
    let (mut inside, mut held) = (0, 0);
    for fit in fold_fits {
        let Some(grown) = grow(&fit.limit) else {
            return Ok(None);
        };
        let (i, n) = acceptance(&grown, joint.reference, fit.held_out);
        (inside, held) = (inside + i, held + n);
    }
    let base = joint.fit(joint.relative, options)?;
    let Some(limit) = grow(&base) else {
        return Ok(None);
    };
    Ok(valid_candidate(
        joint.name,
        accept,
        limit,
        options,
        margins,
        fold_fits.len(),
        (inside, held),
    ))
}

/// Random rotations on which swing and twist margins are chosen (fewer than
/// [`TIGHTNESS_SAMPLES`]: a table measures each against every sampled cell).
const SWING_TWIST_SEARCH_SAMPLES: usize = 8_000;

/// Room added to the swing and twist paddings the search chooses, radians: the frame that sets
/// each lies on the boundary, where a table's interpolation (or rounding) may fall either side.
const SWING_TWIST_EDGE: f64 = 0.002;

/// The swing and twist paddings, each at least `floor`, chosen on the held-out frames' `needs`
/// and the random rotations' `random_needs` ([`super::swing_twist_margin`]), with the held-out
/// frames `folds_accept` says the folds' limits grown by them accept.
///
/// Where the folds fall short of the share (a table interpolates its caps and envelope between
/// vertices, so a frame near the boundary can fall either side), a larger share is asked of the
/// search, up to every frame; the last pair tried is returned either way.
fn swing_and_twist_paddings(
    needs: &[SwingTwistPadding],
    random_needs: &[SwingTwistPadding],
    accept: f64,
    floor: f64,
    folds_accept: impl Fn(SwingTwistPadding) -> (usize, usize),
) -> Option<(SwingTwistPadding, usize, usize)> {
    let mut found = None;
    for share in [
        accept,
        accept + 0.25 * (1.0 - accept),
        0.5 * (1.0 + accept),
        1.0,
    ] {
        let chosen =
            super::swing_twist_margin::paddings_holding(needs, random_needs, share, floor)?;
        let padding = SwingTwistPadding {
            swing: chosen.swing + SWING_TWIST_EDGE,
            twist: chosen.twist + SWING_TWIST_EDGE,
        };
        let (inside, held) = folds_accept(padding);
        found = Some((padding, inside, held));
        if inside as f64 >= accept * held as f64 - 1e-9 {
            break;
        }
    }
    found
}

/// A table fitted with its own paddings for directions and twists, chosen on the folds'
/// held-out frames ([`super::swing_twist_margin`]), with its calibration (validated by refitting
/// the folds at those paddings); `None` when there are no folds or a fold has no samples.
fn table_candidate(
    joint: Joint,
    options: &FitOptions,
    accept: f64,
    folds: &[Fold],
    resolution: usize,
) -> Option<(JointLimit, JointCalibration)> {
    use super::table::TableSamples;
    // The frames `fit_joint_limit` would fit a table to.
    let samples_of = |clips: &[Vec<Quat>]| -> Option<TableSamples> {
        let rotations: Vec<Quat> = held_frames(clips, options)
            .iter()
            .flatten()
            .copied()
            .collect();
        TableSamples::gather(&rotations, joint.twist_axis, resolution).ok()
    };
    let fold_samples = folds
        .iter()
        .map(|(rest, _)| samples_of(rest))
        .collect::<Option<Vec<_>>>()
        .filter(|f| !f.is_empty())?;
    let all = samples_of(joint.relative)?;
    let needs: Vec<_> = folds
        .iter()
        .zip(&fold_samples)
        .flat_map(|((_, held_out), samples)| {
            held_out.iter().filter_map(|&q| samples.padding_needed(q))
        })
        .collect();
    let mut random = crate::measure::SeededRandom::new(0x7ab1e);
    let random_needs: Vec<_> = (0..SWING_TWIST_SEARCH_SAMPLES)
        .filter_map(|_| all.padding_needed(random.rotation()))
        .collect();
    let folds_accept = |padding: SwingTwistPadding| {
        let (mut inside, mut held) = (0, 0);
        for ((_, held_out), samples) in folds.iter().zip(&fold_samples) {
            let table = samples.table(padding);
            inside += held_out
                .iter()
                .filter(|&&q| RotationLimit::contains(&table, q, &crate::LimitContext::NONE))
                .count();
            held += held_out.len();
        }
        (inside, held)
    };
    let (padding, inside, held) =
        swing_and_twist_paddings(&needs, &random_needs, accept, options.padding, folds_accept)?;
    let limit = JointLimit {
        joint: joint.name.to_string(),
        reference: joint.reference,
        region: LimitRegion::Table(all.table(padding)),
        softening: options.softening,
    };
    valid_candidate(
        joint.name,
        accept,
        limit,
        options,
        vec![
            padding.swing - options.padding,
            padding.twist - options.padding,
        ],
        folds.len(),
        (inside, held),
    )
}

/// [`calibrated`] for a candidate grown beyond what the fit makes, when it passes the checks a
/// limits file gets (`None` otherwise: the uniform margin stands).
fn valid_candidate(
    name: &str,
    accept: f64,
    limit: JointLimit,
    fitted: &FitOptions,
    directed_margins: Vec<f64>,
    folds: usize,
    counts: (usize, usize),
) -> Option<(JointLimit, JointCalibration)> {
    limit.validate().ok()?;
    Some(calibrated(
        name,
        accept,
        limit,
        fitted,
        directed_margins,
        folds,
        counts,
    ))
}

/// A candidate limit with its calibration record: fitted with `fitted`'s padding and hold, grown
/// by `directed_margins`, its folds accepting `inside` of `held` held-out frames; its tightness
/// is measured here.
fn calibrated(
    name: &str,
    accept: f64,
    limit: JointLimit,
    fitted: &FitOptions,
    directed_margins: Vec<f64>,
    folds: usize,
    (inside, held): (usize, usize),
) -> (JointLimit, JointCalibration) {
    let random_acceptance = rotation_acceptance(&limit.region, TIGHTNESS_SAMPLES, 0x7157);
    let calibration = JointCalibration {
        joint: name.to_string(),
        accept,
        padding: fitted.padding,
        directed_margins,
        hold: fitted.hold,
        folds,
        held_out: held,
        validated_acceptance: if held == 0 {
            f64::NAN
        } else {
            inside as f64 / held as f64
        },
        random_acceptance,
    };
    (limit, calibration)
}

/// Choices beyond [`FitOptions`] for fitting a whole skeleton.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkeletonFitChoices {
    /// Calibrate each joint's margin to accept this share of unseen frames (module docs).
    pub accept: Option<f64>,
    /// Pool each left joint's rotations with its right partner's reflected across the sagittal
    /// plane, and the other way round ([`super::mirror`]).
    pub mirror: bool,
    /// With `mirror`, left/right pairs named by hand (left name, right name), replacing what the
    /// names would give for those joints ([`super::mirror::pairs_with`]).
    pub pairs: Vec<(String, String)>,
    /// Per-joint choices over the options and `accept` above ([`super::config`]); joints it
    /// excludes get no limit.
    pub config: Option<FitConfig>,
}

/// Fits every joint of `skeleton` but the root like [`super::fit_skeleton_limits`], each with
/// its padding calibrated so that a share `accept` of unseen frames is accepted (module docs);
/// returns the limits and each joint's calibration, in the limits' order.
pub fn fit_calibrated_skeleton_limits(
    skeleton: &Skeleton,
    clips: &[&Motion],
    options: &FitOptions,
    accept: f64,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(SkeletonLimits, Vec<JointCalibration>), FitLimitsError> {
    let choices = SkeletonFitChoices {
        accept: Some(accept),
        ..SkeletonFitChoices::default()
    };
    let (limits, calibrations) =
        fit_skeleton_limits_with(skeleton, clips, options, &choices, progress)?;
    Ok((limits, calibrations.unwrap_or_default()))
}

/// One joint's fit: its limit, its calibration (under `--accept`) and the choice it was
/// fitted with; `None` for a joint the configuration excludes.
type FitResult = Option<((JointLimit, Option<JointCalibration>), JointChoice)>;

/// Fits every joint of `skeleton` but the root like [`super::fit_skeleton_limits`], with the
/// `choices`: calibrated margins (then each calibrated joint's calibration is returned too, in the
/// limits' order), left/right mirroring, and per-joint choices (joints the configuration excludes
/// get no limit).
pub fn fit_skeleton_limits_with(
    skeleton: &Skeleton,
    clips: &[&Motion],
    options: &FitOptions,
    choices: &SkeletonFitChoices,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(SkeletonLimits, Option<Vec<JointCalibration>>), FitLimitsError> {
    if let Some(accept) = choices.accept
        && !(accept > 0.0 && accept <= 1.0)
    {
        return Err(FitLimitsError::Option {
            option: "accept",
            problem: format!("{accept}; it is a share of frames in (0, 1]"),
        });
    }
    if choices.mirror && matches!(options.shape, super::ShapeKind::Coupled(_)) {
        return Err(FitLimitsError::Option {
            option: "mirror",
            problem: "coupled limits are fitted from each side's own clips; drop --mirror".into(),
        });
    }
    if !choices.pairs.is_empty() && !choices.mirror {
        return Err(FitLimitsError::Option {
            option: "pair",
            problem: "pairs are for mirroring; add --mirror".into(),
        });
    }
    if let Some(config) = &choices.config {
        config.validate().map_err(|e| FitLimitsError::Option {
            option: "config",
            problem: e.to_string(),
        })?;
    }
    let choice_for = |name: &str| match &choices.config {
        Some(config) => config.choice_for(name, options, choices.accept),
        None => Some(JointChoice {
            options: *options,
            accept: choices.accept,
        }),
    };
    let fit = |joint: JointSamples| {
        let Some(choice) = choice_for(joint.name) else {
            return Ok(None);
        };
        if choices.mirror && matches!(choice.options.shape, super::ShapeKind::Coupled(_)) {
            // Mirrored samples carry no parent state, so a coupled fit would lose its coupling.
            return Err(FitLimitsError::Option {
                option: "mirror",
                problem: format!(
                    "joint {:?}: coupled limits are fitted from each side's own clips; drop --mirror or choose another shape",
                    joint.name
                ),
            });
        }
        let fitted = match choice.accept {
            None => joint.fit(&choice.options).map(|limit| (limit, None)),
            Some(_) if matches!(choice.options.shape, super::ShapeKind::Coupled(_)) => {
                Err(FitLimitsError::Option {
                    option: "accept",
                    problem: format!(
                        "joint {:?}: coupled limits are not calibrated (an acceptance from --accept or a --config rule); give them a padding instead",
                        joint.name
                    ),
                })
            }
            Some(_)
                if matches!(
                    choice.options.shape,
                    super::ShapeKind::Authored(super::authored::AuthoredShape::Hinge)
                ) =>
            {
                // A hinge allows no turn off its axis, and captured frames always have some:
                // no padding of its angle range makes it accept a share of unseen frames.
                Err(FitLimitsError::Option {
                    option: "accept",
                    problem: format!(
                        "joint {:?}: a hinge allows no turn off its axis, so no margin makes it accept a share of unseen frames; give it a padding instead (in a --config rule, `accept = 0` turns calibration off), or calibrate a cone or spherical-ellipse",
                        joint.name
                    ),
                })
            }
            Some(accept) => fit_calibrated_joint_limit(
                joint.name,
                joint.reference,
                &joint.relative,
                joint.twist_axis,
                &choice.options,
                accept,
            )
            .map(|(limit, calibration)| (limit, Some(calibration))),
        }?;
        Ok(Some((fitted, choice)))
    };
    // A right joint fitted with the same choice as its left partner gets the partner's limit
    // mirrored (`crate::mirror_limits::mirrored_limit`): both sides learn from the same pooled
    // samples, but each side's own reference pose and bone axis differ a little from the other's
    // mirror image (3° between a CMU skeleton's ankles, 15° between mean poses), so fitting the
    // right side in its own frame gives limits that are not mirror images. A pair whose limit
    // cannot be reflected (Euler ranges across a tilted plane) is fitted on the right too.
    let from_partner = |left: &FitResult, right: &str, normal: glam::Vec3| -> Option<FitResult> {
        let ((limit, calibration), choice) = left.as_ref()?;
        if choice_for(right)? != *choice {
            return None;
        }
        let mirrored = crate::mirror_limits::mirrored_limit(limit, normal, right).ok()?;
        let calibration = calibration.clone().map(|c| JointCalibration {
            joint: right.to_string(),
            ..c
        });
        Some(Some(((mirrored, calibration), *choice)))
    };
    let mirror = choices.mirror.then_some(choices.pairs.as_slice());
    let fitted = fit_each_joint(
        skeleton,
        clips,
        options,
        mirror,
        progress,
        &fit,
        &from_partner,
    )?;
    let (fitted, joint_choices): (Vec<_>, Vec<_>) = fitted.into_iter().flatten().unzip();
    let (limits, calibrations): (Vec<_>, Vec<_>) = fitted.into_iter().unzip();
    // The file records the options most joints got (the configuration's defaults over the
    // command line's), and each joint fitted otherwise.
    let common = choices
        .config
        .as_ref()
        .map_or(*options, |config| config.defaults_over(options));
    let fitted_joints = fit_records(&limits, &calibrations, &joint_choices, &common);
    if limits.is_empty() && skeleton.len() > 1 {
        return Err(FitLimitsError::Option {
            option: "config",
            problem: "it excludes every joint: nothing would be limited".into(),
        });
    }
    let calibrations: Vec<JointCalibration> = calibrations.into_iter().flatten().collect();
    let mut limits = SkeletonLimits::new(limits, Some(common)).for_skeleton(skeleton);
    limits.fitted_joints = fitted_joints;
    Ok((limits, (!calibrations.is_empty()).then_some(calibrations)))
}

/// What each joint was fitted with, for the joints fitted otherwise than `options` alone says:
/// a configuration's choices, or a calibration's padding, share held and directed margins.
fn fit_records(
    limits: &[JointLimit],
    calibrations: &[Option<JointCalibration>],
    choices: &[JointChoice],
    options: &FitOptions,
) -> Vec<JointFitRecord> {
    limits
        .iter()
        .zip(calibrations)
        .zip(choices)
        .filter_map(|((limit, calibration), choice)| {
            let mut record = JointFitRecord {
                joint: limit.joint.clone(),
                options: choice.options,
                accept: choice.accept,
                directed_margins: Vec::new(),
            };
            if let Some(calibration) = calibration {
                record.options.padding = calibration.padding;
                record.options.hold = calibration.hold;
                record.directed_margins = calibration.directed_margins.clone();
            }
            (record.options != *options || record.accept.is_some()).then_some(record)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_count_from_the_smallest() {
        let mut values = vec![0.3, 0.0, 0.1, 0.2, 0.0];
        assert_eq!(quantile(&mut values, 0.4), 0.0);
        assert_eq!(quantile(&mut values, 0.6), 0.1);
        assert_eq!(quantile(&mut values, 1.0), 0.3);
        assert_eq!(quantile(&mut values, 1e-9), 0.0);
    }

    #[test]
    fn one_clip_is_cut_into_blocks_and_several_are_held_out_in_turn() {
        let clip = |n: usize, angle: f32| vec![Quat::from_rotation_x(angle); n];
        let single = folds(&[clip(40, 0.1)]);
        assert_eq!(single.len(), TIME_BLOCKS);
        for (rest, held_out) in &single {
            assert_eq!(
                rest.iter().map(Vec::len).sum::<usize>() + held_out.len(),
                40
            );
        }
        assert!(folds(&[clip(7, 0.1)]).is_empty());
        let several = folds(&[clip(5, 0.1), Vec::new(), clip(3, 0.2)]);
        assert_eq!(several.len(), 2);
        assert_eq!(several[0].1.len(), 5);
        assert_eq!(several[1].0, vec![clip(5, 0.1)]);
    }
}
