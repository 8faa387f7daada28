//! Fitting joint limits from motion: samples → limit space → subsample → shape.

use glam::{DVec3, Vec3};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::authored::{AuthoredShape, fit_authored_holding};
use super::reach_cone::fit_reach_cone;
use super::samples::{ReferenceChoice, SampleError, reference_rotation, relative_rotations};
use super::subsample;
use crate::joint_limit::{JointLimit, LimitRegion, TwistRange, swing_basis, swing_plane_point};
use crate::motion::Motion;
use crate::region::{FullLimit, SwingTwistLimit};
use crate::shape::{
    BoxShape, EllipsoidFit, EllipsoidShape, Frame, HullShape, KdopDirections, KdopShape, Shape,
};
use crate::skeleton::Skeleton;
use crate::soften::Softening;
use crate::space::{SpaceKind, full_point, swing_twist_point};

/// Which shape to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// Axis-aligned box.
    Box,
    /// Box in the PCA frame.
    Obb,
    /// Ellipsoid by the principal-axes recipe.
    #[default]
    Ellipsoid,
    /// Minimum-volume enclosing ellipsoid.
    MinimumVolumeEllipsoid,
    /// k-DOP with 3, 7 or 13 directions in the PCA frame.
    Kdop(KdopDirections),
    /// Convex hull of the samples.
    Hull,
    /// A reach cone for the bone direction with swing-dependent twist limits (whatever the
    /// space option says).
    ReachCone,
    /// Lookup tables over the sphere of bone directions with this many cells per side (whatever
    /// the space option says).
    Table(u32),
    /// An authored kind (Euler ranges, hinge, cone, spherical ellipse), the smallest of its kind
    /// holding the samples (whatever the space option says).
    Authored(AuthoredShape),
    /// A box over the joint's full limit space whose bounds follow its parent bone's direction,
    /// on a grid of this many cells per side ([`crate::coupled`]); for a joint whose parent is
    /// the root, the box alone (whatever the space option says).
    Coupled(u32),
}

impl ShapeKind {
    /// Every kind, in the order the command line lists them.
    pub const ALL: [ShapeKind; 14] = [
        ShapeKind::Box,
        ShapeKind::Obb,
        ShapeKind::Ellipsoid,
        ShapeKind::MinimumVolumeEllipsoid,
        ShapeKind::Kdop(KdopDirections::Three),
        ShapeKind::Kdop(KdopDirections::Seven),
        ShapeKind::Kdop(KdopDirections::Thirteen),
        ShapeKind::Hull,
        ShapeKind::ReachCone,
        ShapeKind::Table(super::table::DEFAULT_RESOLUTION),
        ShapeKind::Authored(AuthoredShape::Euler(None)),
        ShapeKind::Authored(AuthoredShape::Hinge),
        ShapeKind::Authored(AuthoredShape::Cone),
        ShapeKind::Authored(AuthoredShape::SphericalEllipse),
    ];

    /// Whether it is a kind of its own rather than a shape in a limit space, so that the space
    /// option does not apply: the reach cone and tables, which measure the bone's direction and
    /// twist, and the authored kinds, which have their own parameters.
    pub fn ignores_space(self) -> bool {
        matches!(
            self,
            ShapeKind::ReachCone
                | ShapeKind::Table(_)
                | ShapeKind::Authored(_)
                | ShapeKind::Coupled(_)
        )
    }

    /// Whether a margin can be calibrated to accept a share of unseen frames (`--accept`): not
    /// for hinges, which allow no turn off their axis, nor for coupled limits.
    pub fn can_be_calibrated(self) -> bool {
        !matches!(
            self,
            ShapeKind::Authored(AuthoredShape::Hinge) | ShapeKind::Coupled(_)
        )
    }
}

impl std::fmt::Display for ShapeKind {
    /// The name [`ShapeKind::from_str`](std::str::FromStr) reads back (`table64` for tables,
    /// with their resolution).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeKind::Box => write!(f, "box"),
            ShapeKind::Obb => write!(f, "obb"),
            ShapeKind::Ellipsoid => write!(f, "ellipsoid"),
            ShapeKind::MinimumVolumeEllipsoid => write!(f, "mvee"),
            ShapeKind::Kdop(directions) => write!(f, "kdop{}", directions.count()),
            ShapeKind::Hull => write!(f, "hull"),
            ShapeKind::ReachCone => write!(f, "reach-cone"),
            ShapeKind::Table(resolution) => write!(f, "table{resolution}"),
            ShapeKind::Authored(AuthoredShape::Euler(None)) => write!(f, "euler"),
            ShapeKind::Authored(AuthoredShape::Euler(Some(order))) => {
                write!(f, "euler-{}", order.to_string().to_lowercase())
            }
            ShapeKind::Authored(AuthoredShape::Hinge) => write!(f, "hinge"),
            ShapeKind::Authored(AuthoredShape::Cone) => write!(f, "cone"),
            ShapeKind::Authored(AuthoredShape::SphericalEllipse) => {
                write!(f, "spherical-ellipse")
            }
            ShapeKind::Coupled(_) => write!(f, "coupled"),
        }
    }
}

impl std::str::FromStr for ShapeKind {
    type Err = String;

    /// Parses `box`, `obb`, `ellipsoid`, `mvee`, `kdop` (13 directions), `kdop3`, `kdop7`,
    /// `kdop13`, `hull`, `reach-cone`, `table` (at the default resolution), `euler` (the order
    /// of least volume), `euler-xyz` … `euler-zyx`, `hinge`, `cone`, `spherical-ellipse` or
    /// `coupled` (at the default resolution).
    fn from_str(text: &str) -> Result<ShapeKind, String> {
        if let Some(order) = text.strip_prefix("euler-") {
            let order = crate::euler::EulerOrder::ALL
                .into_iter()
                .find(|o| o.to_string().eq_ignore_ascii_case(order))
                .ok_or_else(|| {
                    format!(
                        "unknown Euler order {order:?}: expected xyz, xzy, yxz, yzx, zxy or zyx"
                    )
                })?;
            return Ok(ShapeKind::Authored(AuthoredShape::Euler(Some(order))));
        }
        Ok(match text {
            "euler" => ShapeKind::Authored(AuthoredShape::Euler(None)),
            "coupled" => ShapeKind::Coupled(super::coupled::DEFAULT_COUPLING_RESOLUTION as u32),
            "hinge" => ShapeKind::Authored(AuthoredShape::Hinge),
            "cone" => ShapeKind::Authored(AuthoredShape::Cone),
            "spherical-ellipse" | "spherical_ellipse" => {
                ShapeKind::Authored(AuthoredShape::SphericalEllipse)
            }
            "box" => ShapeKind::Box,
            "obb" => ShapeKind::Obb,
            "ellipsoid" => ShapeKind::Ellipsoid,
            "mvee" => ShapeKind::MinimumVolumeEllipsoid,
            "kdop" | "kdop13" => ShapeKind::Kdop(KdopDirections::Thirteen),
            "kdop7" => ShapeKind::Kdop(KdopDirections::Seven),
            "kdop3" => ShapeKind::Kdop(KdopDirections::Three),
            "hull" => ShapeKind::Hull,
            "reach-cone" | "reach_cone" => ShapeKind::ReachCone,
            "table" => ShapeKind::Table(super::table::DEFAULT_RESOLUTION),
            _ => {
                return Err(format!(
                    "unknown shape {text:?}: expected box, obb, ellipsoid, mvee, kdop, kdop3, kdop7, kdop13, hull, reach-cone, table, euler, euler-xyz (any order), hinge, cone, spherical-ellipse or coupled"
                ));
            }
        })
    }
}

/// Everything that decides how limits are fitted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// Full or swing-twist limit space.
    pub space: SpaceKind,
    /// The shape fitted in that space (to the swing, in swing-twist space).
    pub shape: ShapeKind,
    /// Extra room around the data, radians (also widens the twist interval).
    pub padding: f64,
    /// Subsampling distance in limit space, radians: kept samples are at least this far apart
    /// (0 keeps every sample). It decides the PCA frame and the hull's points; bounds always
    /// come from every sample.
    pub subsample: f64,
    /// What rotations are measured from.
    pub reference: ReferenceChoice,
    /// Frames skipped at the start of every clip (synthetic T-pose frames).
    pub skip_frames: usize,
    /// Softening stored with every fitted limit.
    pub softening: Option<Softening>,
    /// The share of each joint's samples a fitted limit must hold, in (0, 1] (`fit --hold`):
    /// below 1 an authored kind leaves out the outliers whose removal shrinks it most, every
    /// other kind those farthest from the joint's robust centre ([`super::outliers`]).
    #[serde(default = "hold_everything")]
    pub hold: f64,
    /// A coupled limit's room beyond the padding for each parent direction's box, radians, in
    /// `[0, π]` (`fit --coupling-margin`; [`super::coupled::fit_coupled`]); other kinds ignore it.
    #[serde(default = "default_coupling_margin")]
    pub coupling_margin: f64,
}

/// Every sample: the default share held.
fn hold_everything() -> f64 {
    1.0
}

/// [`super::coupled::DEFAULT_COUPLING_MARGIN_DEGREES`] in radians.
fn default_coupling_margin() -> f64 {
    super::coupled::DEFAULT_COUPLING_MARGIN_DEGREES.to_radians()
}

impl FitOptions {
    /// The largest padding and subsampling distance accepted, radians: half a turn already
    /// allows every direction.
    pub const MAX_DISTANCE: f64 = std::f64::consts::PI;

    /// Refuses options that cannot be honoured: a padding or subsampling distance that is not a
    /// finite number in `[0, π]`, a table resolution out of range, or an invalid softening.
    pub fn validate(&self) -> Result<(), FitLimitsError> {
        if let ShapeKind::Table(resolution) = self.shape {
            let range = crate::table::limit::RESOLUTIONS;
            if !range.contains(&(resolution as usize)) {
                return Err(FitLimitsError::Option {
                    option: "resolution",
                    problem: format!(
                        "{resolution} cells per side; a table has {} to {}",
                        range.start(),
                        range.end()
                    ),
                });
            }
        }
        if let ShapeKind::Coupled(resolution) = self.shape {
            let range = crate::coupled::RESOLUTIONS;
            if !range.contains(&(resolution as usize)) {
                return Err(FitLimitsError::Option {
                    option: "resolution",
                    problem: format!(
                        "{resolution} cells per side; a coupled limit has {} to {}",
                        range.start(),
                        range.end()
                    ),
                });
            }
        }
        for (option, value) in [
            ("padding", self.padding),
            ("subsample", self.subsample),
            ("coupling_margin", self.coupling_margin),
        ] {
            if !(value.is_finite() && (0.0..=Self::MAX_DISTANCE).contains(&value)) {
                return Err(FitLimitsError::Option {
                    option,
                    problem: format!(
                        "{} rad ({}°) is not a finite distance from 0 to π rad (180°)",
                        crate::validation::readable(value),
                        crate::validation::readable(value.to_degrees())
                    ),
                });
            }
        }
        if !(self.hold > 0.0 && self.hold <= 1.0) {
            return Err(FitLimitsError::Option {
                option: "hold",
                problem: format!(
                    "{} is not a share in (0, 1]",
                    crate::validation::readable(self.hold)
                ),
            });
        }
        if let Some(softening) = self.softening.filter(|s| !s.is_valid()) {
            return Err(FitLimitsError::Option {
                option: "softening",
                problem: format!(
                    "falloff {} and radius {} must be finite and not negative",
                    softening.falloff, softening.radius
                ),
            });
        }
        Ok(())
    }
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            space: SpaceKind::Full,
            shape: ShapeKind::Ellipsoid,
            padding: 0.05,
            subsample: 0.05,
            reference: ReferenceChoice::Bind,
            skip_frames: 0,
            softening: None,
            hold: 1.0,
            coupling_margin: default_coupling_margin(),
        }
    }
}

/// Why limits could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitLimitsError {
    /// Sample preparation failed.
    #[error(transparent)]
    Samples(#[from] SampleError),
    /// A shape could not be fitted to a joint's samples.
    #[error("joint {joint:?}: {source}")]
    Shape {
        /// The joint.
        joint: String,
        /// What went wrong.
        source: super::FitError,
    },
    /// A non-finite rotation in the input.
    #[error("joint {joint:?}: a rotation is not finite")]
    NonFinite {
        /// The joint.
        joint: String,
    },
    /// An option that cannot be honoured.
    #[error("--{option}: {problem}")]
    Option {
        /// The option's name.
        option: &'static str,
        /// What is wrong with its value.
        problem: String,
    },
    /// A fitted limit that would not load (a guard: fitting should never produce one).
    #[error("joint {joint:?}: the fitted limit is unusable: {source}")]
    Invalid {
        /// The joint.
        joint: String,
        /// The field and the problem.
        source: crate::validation::InvalidField,
    },
}

/// Fits one shape of kind `kind` to `samples`, with `core` its subsampled part.
pub fn fit_shape(
    kind: ShapeKind,
    core: &[DVec3],
    samples: &[DVec3],
    options: &FitOptions,
) -> Result<Shape, super::FitError> {
    let padding = options.padding;
    Ok(match kind {
        ShapeKind::Box => Shape::Box(BoxShape::fit(samples, Frame::axis_aligned(), padding)?),
        ShapeKind::Obb => Shape::Box(BoxShape::fit(samples, Frame::principal(core), padding)?),
        ShapeKind::Ellipsoid => Shape::Ellipsoid(EllipsoidShape::fit(
            core,
            samples,
            EllipsoidFit::Principal,
            padding,
        )?),
        ShapeKind::MinimumVolumeEllipsoid => Shape::Ellipsoid(EllipsoidShape::fit(
            core,
            samples,
            EllipsoidFit::MinimumVolume,
            padding,
        )?),
        ShapeKind::Kdop(directions) => {
            Shape::Kdop(KdopShape::fit(core, samples, directions, padding)?)
        }
        ShapeKind::Hull => Shape::Hull(HullShape::fit(core, padding, options.subsample)?),
        ShapeKind::ReachCone => return Err(super::FitError::NotAShape("a reach cone")),
        ShapeKind::Table(_) => return Err(super::FitError::NotAShape("a table")),
        ShapeKind::Authored(_) => return Err(super::FitError::NotAShape("an authored kind")),
        // Without the parent's rotations, the box alone.
        ShapeKind::Coupled(_) => {
            Shape::Box(BoxShape::fit(samples, Frame::principal(core), padding)?)
        }
    })
}

/// The kept subset of `samples` (spacing `d`), or all of them when `d` is 0.
fn core_samples(samples: &[DVec3], d: f64) -> Vec<DVec3> {
    if d > 0.0 {
        subsample(samples, d)
            .into_iter()
            .map(|i| samples[i])
            .collect()
    } else {
        samples.to_vec()
    }
}

/// Fits the limit of one joint from its reference-relative, unrolled rotations (one vector per
/// clip), with the joint's twist axis for swing-twist space.
pub fn fit_joint_limit(
    name: &str,
    reference: glam::Quat,
    relative: &[Vec<glam::Quat>],
    twist_axis: Vec3,
    options: &FitOptions,
) -> Result<JointLimit, FitLimitsError> {
    let held = held_frames(relative, options);
    let relative: &[Vec<glam::Quat>] = &held;
    let all = relative.iter().flatten();
    if relative.iter().flatten().any(|q| !q.is_finite()) {
        return Err(FitLimitsError::NonFinite {
            joint: name.to_string(),
        });
    }
    let shape_error = |source| FitLimitsError::Shape {
        joint: name.to_string(),
        source,
    };
    if let ShapeKind::Table(resolution) = options.shape {
        let rotations: Vec<glam::Quat> = all.copied().collect();
        let limit =
            super::table::fit_table(&rotations, twist_axis, options.padding, resolution as usize)
                .map_err(shape_error)?;
        return checked(JointLimit {
            joint: name.to_string(),
            reference,
            region: LimitRegion::Table(limit),
            softening: options.softening,
        });
    }
    if let ShapeKind::Authored(shape) = options.shape {
        let rotations: Vec<glam::Quat> = all.copied().collect();
        let fitted =
            fit_authored_holding(shape, &rotations, twist_axis, options.padding, options.hold)
                .map_err(shape_error)?;
        return checked(JointLimit {
            joint: name.to_string(),
            reference: (reference * fitted.recentre).normalize(),
            region: fitted.region,
            softening: options.softening,
        });
    }
    if options.shape == ShapeKind::ReachCone {
        let rotations: Vec<glam::Quat> = all.copied().collect();
        let limit = fit_reach_cone(&rotations, twist_axis, options.padding, options.subsample)
            .map_err(shape_error)?;
        return checked(JointLimit {
            joint: name.to_string(),
            reference,
            region: LimitRegion::ReachCone(limit),
            softening: options.softening,
        });
    }
    let space = match options.shape {
        ShapeKind::Coupled(_) => SpaceKind::Full,
        _ => options.space,
    };
    let region = match space {
        SpaceKind::Full => {
            let samples: Vec<DVec3> = all.map(|&q| full_point(q).as_dvec3()).collect();
            let core = core_samples(&samples, options.subsample);
            let shape = fit_shape(options.shape, &core, &samples, options).map_err(shape_error)?;
            LimitRegion::Full(FullLimit::new(shape))
        }
        SpaceKind::SwingTwist => {
            let basis = swing_basis(twist_axis);
            let mut swings = Vec::new();
            let (mut twist_min, mut twist_max) = (f64::INFINITY, f64::NEG_INFINITY);
            for &q in all {
                let point = swing_twist_point(q, twist_axis);
                swings.push(swing_plane_point(&basis, point.swing).as_dvec3());
                twist_min = twist_min.min(f64::from(point.twist));
                twist_max = twist_max.max(f64::from(point.twist));
            }
            let core = core_samples(&swings, options.subsample);
            let swing = fit_shape(options.shape, &core, &swings, options).map_err(shape_error)?;
            let pad = options.padding.max(0.0);
            LimitRegion::SwingTwist(SwingTwistLimit::new(
                twist_axis,
                basis,
                swing,
                TwistRange {
                    min: (twist_min - pad) as f32,
                    max: (twist_max + pad) as f32,
                },
            ))
        }
    };
    checked(JointLimit {
        joint: name.to_string(),
        reference,
        region,
        softening: options.softening,
    })
}

/// The per-clip rotations a fit with `options` fits to: all of them, or for `options.hold < 1`
/// the share held. Authored kinds leave out the outliers that shrink them most, by their own rule
/// when fitted; every other kind the frames farthest from the joint's robust centre, here.
pub(super) fn held_frames<'a>(
    relative: &'a [Vec<glam::Quat>],
    options: &FitOptions,
) -> std::borrow::Cow<'a, [Vec<glam::Quat>]> {
    if options.hold < 1.0 && !matches!(options.shape, ShapeKind::Authored(_)) {
        std::borrow::Cow::Owned(super::outliers::hold_share(relative, options.hold))
    } else {
        std::borrow::Cow::Borrowed(relative)
    }
}

/// `limit` when it passes the checks a limits file gets when read.
fn checked(limit: JointLimit) -> Result<JointLimit, FitLimitsError> {
    match limit.validate() {
        Ok(()) => Ok(limit),
        Err(source) => Err(FitLimitsError::Invalid {
            joint: limit.joint,
            source,
        }),
    }
}

/// Fits limits for every joint of `skeleton` except the root (whose rotation is the character's
/// heading, not a joint angle), from all `clips`, in parallel over joints. `progress` is called
/// once per finished joint.
pub fn fit_skeleton_limits(
    skeleton: &Skeleton,
    clips: &[&Motion],
    options: &FitOptions,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<crate::SkeletonLimits, FitLimitsError> {
    let choices = super::SkeletonFitChoices::default();
    super::fit_skeleton_limits_with(skeleton, clips, options, &choices, progress)
        .map(|(limits, _)| limits)
}

/// What fitting one joint starts from.
pub(crate) struct JointSamples<'a> {
    /// The joint's name.
    pub name: &'a str,
    /// The rotation its samples are measured from.
    pub reference: glam::Quat,
    /// Its reference-relative, unrolled rotations, one vector per clip.
    pub relative: Vec<Vec<glam::Quat>>,
    /// Its twist axis.
    pub twist_axis: Vec3,
    /// Its parent's, when the parent is not the root and mirroring is off.
    pub parent: Option<ParentSamples<'a>>,
}

/// What a limit coupled to the joint's parent is fitted from.
pub(crate) struct ParentSamples<'a> {
    /// The parent's reference rotation.
    pub reference: glam::Quat,
    /// The parent's twist (bone) axis.
    pub twist_axis: Vec3,
    /// The parent's index in the skeleton.
    pub joint: usize,
    /// The clips the joint's samples come from.
    pub clips: &'a [&'a Motion],
    /// The frames skipped at the start of each clip.
    pub skip_frames: usize,
}

impl ParentSamples<'_> {
    /// The parent's local rotations in the same frames as the joint's samples, clip after
    /// clip (gathered only when a coupled limit is fitted).
    fn local(&self) -> Vec<glam::Quat> {
        self.clips
            .iter()
            .flat_map(|clip| {
                (self.skip_frames..clip.frame_count()).map(|f| clip.frame_rotations(f)[self.joint])
            })
            .collect()
    }
}

impl JointSamples<'_> {
    /// [`fit_joint_limit`] on these samples; a coupled limit when `options` ask for one and the
    /// parent can condition it ([`super::coupled`]), else for a coupled kind the independent box.
    pub(crate) fn fit(&self, options: &FitOptions) -> Result<JointLimit, FitLimitsError> {
        if let (ShapeKind::Coupled(resolution), Some(parent)) = (options.shape, &self.parent) {
            let child: Vec<glam::Quat> = self.relative.iter().flatten().copied().collect();
            let parent_local = parent.local();
            let limit = super::coupled::fit_coupled(
                &child,
                &parent_local,
                parent.reference,
                parent.twist_axis,
                options.padding,
                options.coupling_margin,
                resolution as usize,
            )
            .map_err(|source| FitLimitsError::Shape {
                joint: self.name.to_string(),
                source,
            })?;
            return checked(JointLimit {
                joint: self.name.to_string(),
                reference: self.reference,
                region: LimitRegion::Coupled(limit),
                softening: options.softening,
            });
        }
        fit_joint_limit(
            self.name,
            self.reference,
            &self.relative,
            self.twist_axis,
            options,
        )
    }
}

/// Checks the clips against `skeleton` and `options`, then runs `fit` on every joint but the
/// root, in parallel, in skeleton order; `progress` is called once per finished joint. With
/// `mirror` (the pairs named by hand, [`super::mirror::pairs_with`]), each joint with a partner
/// on the other side ([`super::mirror`]) also gets the
/// partner's rotations reflected across the sagittal plane, as more clips: after its own on the
/// left side, before them on the right, so that the right side's samples are exactly the left
/// side's reflected. The right side is then fitted after the left, and `from_partner` may make
/// a right joint's result from its partner's (its name and the plane's normal given) instead of
/// fitting the same samples a second time; where it returns `None` the joint is fitted.
pub(crate) fn fit_each_joint<T: Send + Sync>(
    skeleton: &Skeleton,
    clips: &[&Motion],
    options: &FitOptions,
    mirror: Option<&[(String, String)]>,
    progress: &(dyn Fn(&str) + Sync),
    fit: &(dyn Fn(JointSamples) -> Result<T, FitLimitsError> + Sync),
    from_partner: &(dyn Fn(&T, &str, Vec3) -> Option<T> + Sync),
) -> Result<Vec<T>, FitLimitsError> {
    options.validate()?;
    for (clip, motion) in clips.iter().enumerate() {
        if motion.joint_count != skeleton.len() {
            return Err(SampleError::JointCount {
                clip,
                found: motion.joint_count,
                expected: skeleton.len(),
            }
            .into());
        }
    }
    let frames: usize = clips
        .iter()
        .map(|c| c.frame_count().saturating_sub(options.skip_frames))
        .sum();
    if frames == 0 {
        return Err(SampleError::NoFrames {
            skip: options.skip_frames,
        }
        .into());
    }
    let twist_axes = skeleton.twist_axes(Vec3::X);
    let partners = match mirror {
        Some(overrides) => {
            super::mirror::partners(skeleton, overrides).map_err(|e| FitLimitsError::Option {
                option: "pair",
                problem: e.to_string(),
            })?
        }
        None => vec![None; skeleton.len()],
    };
    let reference_of = |j: usize| {
        reference_rotation(
            options.reference,
            j,
            skeleton.joints()[j].reference_rotation,
            clips,
            options.skip_frames,
        )
    };
    let joints: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.joints()[j].parent.is_some())
        .collect();
    let fit_joint = |j: usize| -> Result<T, FitLimitsError> {
        let joint = &skeleton.joints()[j];
        let reference = reference_of(j)?;
        let mut relative = relative_rotations(j, reference, clips, options.skip_frames);
        if let Some(partner) = partners[j] {
            let theirs = reference_of(partner.joint)?;
            let back = reference.conjugate();
            let mirrored: Vec<Vec<glam::Quat>> =
                relative_rotations(partner.joint, theirs, clips, options.skip_frames)
                    .into_iter()
                    .map(|clip| {
                        clip.into_iter()
                            .map(|q| back * super::mirror::reflect(theirs * q, partner.normal))
                            .collect()
                    })
                    .collect();
            relative = if partner.left {
                relative.into_iter().chain(mirrored).collect()
            } else {
                mirrored.into_iter().chain(relative).collect()
            };
        }
        // A parent that is itself not the root (whose rotation is the heading) can condition
        // its child's limit; its rotations are those of the joint's own clips.
        let parent = joint
            .parent
            .filter(|&p| skeleton.joints()[p].parent.is_some() && mirror.is_none())
            .map(|p| -> Result<ParentSamples, FitLimitsError> {
                Ok(ParentSamples {
                    reference: reference_of(p)?,
                    twist_axis: twist_axes[p],
                    joint: p,
                    clips,
                    skip_frames: options.skip_frames,
                })
            })
            .transpose()?;
        let fitted = fit(JointSamples {
            name: &joint.name,
            reference,
            relative,
            twist_axis: twist_axes[j],
            parent,
        });
        progress(&joint.name);
        fitted
    };
    // Right joints with a left partner wait for it: their samples are its samples reflected.
    let waits = |j: usize| partners[j].is_some_and(|partner| !partner.left);
    let mut results: Vec<Option<Result<T, FitLimitsError>>> =
        (0..skeleton.len()).map(|_| None).collect();
    let first: Vec<(usize, Result<T, FitLimitsError>)> = joints
        .par_iter()
        .filter(|&&j| !waits(j))
        .map(|&j| (j, fit_joint(j)))
        .collect();
    for (j, result) in first {
        results[j] = Some(result);
    }
    let second: Vec<(usize, Result<T, FitLimitsError>)> = joints
        .par_iter()
        .filter(|&&j| waits(j))
        .map(|&j| {
            let partner = partners[j].expect("a waiting joint has a partner");
            let name = &skeleton.joints()[j].name;
            let made = match &results[partner.joint] {
                Some(Ok(theirs)) => from_partner(theirs, name, partner.normal),
                _ => None,
            };
            match made {
                Some(result) => {
                    progress(name);
                    (j, Ok(result))
                }
                None => (j, fit_joint(j)),
            }
        })
        .collect();
    for (j, result) in second {
        results[j] = Some(result);
    }
    joints
        .iter()
        .map(|&j| results[j].take().expect("every joint fitted"))
        .collect()
}
