//! Ellipsoids in a frame, fitted by the principal-axes recipe or as the minimum-volume enclosing
//! ellipsoid, with an exact projection.
//!
//! In the ellipsoid's frame, with semi-axes `a`, the region is `Σ (xᵢ/aᵢ)² ≤ 1`. The nearest
//! surface point to an outside `x` is `yᵢ = aᵢ² xᵢ / (aᵢ² + t)`, where `t > 0` is the unique root of
//!
//! ```text
//! f(t) = Σ (aᵢ xᵢ / (aᵢ² + t))² − 1.
//! ```
//!
//! Newton's method is run on `ψ(t) = S(t)^(−1/2) − 1` with `S(t) = f(t) + 1`. Writing
//! `yᵢ = (aᵢ² + t)/(aᵢ|xᵢ|)`, which is affine in `t`, `S^(−1/2) = (Σ yᵢ⁻²)^(−1/2)` is a power mean of
//! exponent −2 of the `yᵢ`, hence concave and increasing in `t`; so Newton started at any `t₀` with
//! `ψ(t₀) ≤ 0` climbs monotonically to the root without overshooting, and for a sphere (all `yᵢ`
//! equal, `ψ` affine) it lands on the root in one step. Two lower bounds give such a start: each
//! term of `S` must be ≤ 1 at the root, so `t ≥ aᵢ|xᵢ| − aᵢ²`; and replacing every `aᵢ² + t` by the
//! largest, `t ≥ |a∘x| − a_max²`. Points on the axes (some `xᵢ = 0`) and flat or needle ellipsoids
//! need no special case: the zero terms simply vanish.

use glam::{DMat3, DMat4, DVec3, DVec4, Vec3, Vec3A};
use serde::{Deserialize, Serialize};

use super::{Frame, LimitShape, Projection, frame_is_finite};
use crate::fit::{FitError, symmetric_eigen};
use crate::validation::{self, InvalidField};

/// The smallest semi-axis a fitted ellipsoid gets, in radians, so flat data (a joint that never
/// moves about one axis) still gives a solid with a well-conditioned projection.
pub const MIN_SEMI_AXIS: f64 = 1e-4;

/// How an ellipsoid is fitted to samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EllipsoidFit {
    /// Holden's recipe: axes from the PCA frame, semi-axes from the largest extent along each axis,
    /// then scaled uniformly until every sample is inside.
    #[default]
    Principal,
    /// The minimum-volume enclosing ellipsoid (Khachiyan's algorithm) of the core samples, then
    /// scaled uniformly until every sample is inside: tighter for skewed data.
    MinimumVolume,
}

/// An ellipsoid `Σ (xᵢ/aᵢ)² ≤ 1` in frame coordinates `x = frameᵀ(p − c)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EllipsoidShape {
    /// The ellipsoid's centre and axes.
    pub frame: Frame,
    /// The semi-axis lengths along the frame's axes, radians (all positive).
    pub semi_axes: Vec3,
}

impl EllipsoidShape {
    /// How far above 1 the normalised radius `|x/a|²` may be and still count as inside: f32
    /// rounding of the frame change.
    pub(crate) const INSIDE_SLACK: f32 = 1e-5;

    /// The most Newton steps a projection takes (it stops far earlier: the climb is monotone and
    /// quadratic near the root).
    pub(crate) const MAX_NEWTON_STEPS: usize = 40;

    /// Fits an ellipsoid holding every one of `samples`.
    ///
    /// `core` (usually the subsampled samples) decides the shape: the PCA frame for
    /// [`EllipsoidFit::Principal`], the enclosing ellipsoid for [`EllipsoidFit::MinimumVolume`].
    /// The result is then scaled up, if needed, until all `samples` are inside, and every semi-axis
    /// is lengthened by `padding`.
    pub fn fit(
        core: &[DVec3],
        samples: &[DVec3],
        method: EllipsoidFit,
        padding: f64,
    ) -> Result<EllipsoidShape, FitError> {
        if core.is_empty() || samples.is_empty() {
            return Err(FitError::NoSamples);
        }
        let (frame, mut semi_axes) = match method {
            EllipsoidFit::Principal => principal_axes(core, samples),
            EllipsoidFit::MinimumVolume => {
                let (frame, axes) = minimum_volume(core);
                if frame_is_finite(&frame) && axes.is_finite() {
                    (frame, axes)
                } else {
                    principal_axes(core, samples)
                }
            }
        };
        // Each semi-axis reaches at least as far as the samples do along it: the uniform scale
        // below is then at most √3. An axis the core leaves flat (a few nearly collinear core
        // points, with the other samples a little off their line) would otherwise scale the
        // long axes without bound.
        let local = frame.local_samples(samples);
        let reach = local.iter().fold(DVec3::ZERO, |m, x| m.max(x.abs()));
        semi_axes = semi_axes.max(reach).max(DVec3::splat(MIN_SEMI_AXIS));
        // Uniform scale so that every sample is inside.
        let radius = local
            .iter()
            .map(|x| (*x / semi_axes).length())
            .fold(0.0, f64::max);
        semi_axes *= radius.max(1.0);
        semi_axes += DVec3::splat(padding.max(0.0));
        Ok(EllipsoidShape {
            frame,
            semi_axes: semi_axes.as_vec3(),
        })
    }

    /// A valid frame and semi-axes in `[MIN_SEMI_AXIS, MAX_COORDINATE]` (see
    /// [`crate::validation`]).
    pub fn validate(&self) -> Result<(), InvalidField> {
        self.frame.validate()?;
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            let field = format!("semi_axes.{name}");
            let value = self.semi_axes[axis];
            validation::bounded(&field, value)?;
            validation::require(value >= validation::MIN_SEMI_AXIS, &field, || {
                format!(
                    "{value} is below the smallest semi-axis, {}",
                    validation::MIN_SEMI_AXIS
                )
            })?;
        }
        Ok(())
    }

    /// Whether the frame-coordinate point `x` is inside, up to [`Self::INSIDE_SLACK`]: the test
    /// every path makes, so that one-at-a-time and lane results agree bit for bit.
    #[inline(always)]
    pub(crate) fn holds_local(&self, x: Vec3) -> bool {
        // In four lanes whose fourth repeats the third: a `Vec3` division may be packed with
        // whatever the register's spare lanes hold, and a subnormal there stalls the divider
        // (it made a swing-twist ellipsoid's inside test 1.7 times slower). Same operations,
        // same bits.
        let scaled = Vec3A::from(x) / Vec3A::from(self.semi_axes);
        scaled.length_squared() <= 1.0 + Self::INSIDE_SLACK
    }

    /// The nearest point of the ellipsoid's surface to the frame-coordinate point `x`, which must
    /// be outside.
    #[inline]
    pub(crate) fn project_local_outside(&self, x: Vec3) -> Vec3 {
        let a2 = self.semi_axes * self.semi_axes;
        let ax2 = squared_scaled(self.semi_axes, x);
        let mut t = newton_start(self.semi_axes, x);
        for _ in 0..Self::MAX_NEWTON_STEPS {
            let next = newton_step(a2, ax2.x, ax2.y, ax2.z, t);
            let climbing = still_climbing(t, next, a2.min_element());
            if !climbing || !next.is_finite() {
                if next > t && next.is_finite() {
                    t = next;
                }
                break;
            }
            t = next;
        }
        surface_point(a2, x, t)
    }
}

/// `(aᵢxᵢ)²`, the squares Newton's steps weigh.
#[inline(always)]
pub(crate) fn squared_scaled(a: Vec3, x: Vec3) -> Vec3 {
    let ax = a * x;
    ax * ax
}

/// Where Newton's climb starts: the larger of the two lower bounds on the root (module docs),
/// `max(aᵢ|xᵢ| − aᵢ²)` and `|a∘x| − a_max²`, and at least 0.
#[inline(always)]
pub(crate) fn newton_start(a: Vec3, x: Vec3) -> f32 {
    let a2 = a * a;
    let lower_per_axis = (a * x.abs() - a2).max_element();
    let lower_joint = (a * x).length() - a2.max_element();
    lower_per_axis.max(lower_joint).max(0.0)
}

/// The surface point `aᵢ²xᵢ/(aᵢ² + t)` of the root `t`.
#[inline(always)]
pub(crate) fn surface_point(a2: Vec3, x: Vec3, t: f32) -> Vec3 {
    // Four lanes, the fourth repeating the third, as in `holds_local`.
    let a2 = Vec3A::from(a2);
    Vec3::from(a2 * Vec3A::from(x) / (a2 + t))
}

/// Whether a Newton step from `t` to `next` is large enough to need another: the climb is
/// monotone and quadratic near the root, so once a step moves the surface point `a²x/(a² + t)` by
/// less than 1e-4 of itself the next would move it by about 1e-8, below f32 resolution. (Stopping
/// on a stall instead lets rounding creep up one ulp at a time.)
#[inline(always)]
pub(crate) fn still_climbing(t: f32, next: f32, smallest_a2: f32) -> bool {
    next - t > 1e-4 * (t + smallest_a2)
}

/// One Newton step on `ψ(t) = S(t)^(−1/2) − 1` (see the module docs), for squared semi-axes `a2`
/// and the squares `ax2ᵢ = (aᵢxᵢ)²`: `t + S(√S − 1)/T` with `S = Σ ax2ᵢ/(a2ᵢ + t)²` and
/// `T = Σ ax2ᵢ/(a2ᵢ + t)³`.
#[inline(always)]
pub(crate) fn newton_step(a2: Vec3, ax2_x: f32, ax2_y: f32, ax2_z: f32, t: f32) -> f32 {
    // The three reciprocals from one division: divisions are what a step's time is. (Validated
    // semi-axes, 1e-5 to 64π, keep the product of the three factors well within f32's range.)
    let (dx, dy, dz) = (a2.x + t, a2.y + t, a2.z + t);
    let (dxy, dyz) = (dx * dy, dy * dz);
    let inverse = (dxy * dz).recip();
    let (ix, iy, iz) = (dyz * inverse, dx * dz * inverse, dxy * inverse);
    let (sx, sy, sz) = (ax2_x * ix * ix, ax2_y * iy * iy, ax2_z * iz * iz);
    let s = sx + sy + sz;
    let cubic = sx * ix + sy * iy + sz * iz;
    // The division and the square root do not wait for each other.
    t + s / cubic * (s.sqrt() - 1.0)
}

impl LimitShape for EllipsoidShape {
    #[inline]
    fn project(&self, p: Vec3) -> Projection {
        let x = self.frame.to_local(p);
        if self.holds_local(x) {
            return Projection::unchanged(p);
        }
        Projection::moved(p, self.frame.to_world(self.project_local_outside(x)))
    }

    #[inline]
    fn contains(&self, p: Vec3) -> bool {
        self.holds_local(self.frame.to_local(p))
    }
}

/// PCA frame of `core`, semi-axes from the largest extent of `samples` along each axis.
fn principal_axes(core: &[DVec3], samples: &[DVec3]) -> (Frame, DVec3) {
    let frame = Frame::principal(core);
    let extent = frame
        .local_samples(samples)
        .iter()
        .fold(DVec3::ZERO, |m, x| m.max(x.abs()));
    (frame, extent)
}

/// Khachiyan's minimum-volume enclosing ellipsoid of `points`, in the subspace they span.
///
/// Works in the PCA frame; axes along which the points have no extent are left out of the
/// iteration (the lifted matrix gets an identity block there) and come back with semi-axis 0.
fn minimum_volume(points: &[DVec3]) -> (Frame, DVec3) {
    let pca = Frame::principal(points);
    let local = pca.local_samples(points);
    let extent = local.iter().fold(DVec3::ZERO, |m, x| m.max(x.abs()));
    // Axes with no extent beyond the f32 rounding of the frame's centre are left out.
    let resolution = 1e-6 * (1.0 + f64::from(pca.center.length()));
    let active: [bool; 3] = std::array::from_fn(|i| extent[i] > resolution);
    let dims = active.iter().filter(|&&a| a).count();
    if dims == 0 {
        return (pca, DVec3::ZERO);
    }
    let mask = DVec3::new(
        f64::from(u8::from(active[0])),
        f64::from(u8::from(active[1])),
        f64::from(u8::from(active[2])),
    );
    let inactive_block = DMat4::from_diagonal((DVec3::ONE - mask).extend(0.0));
    let lifted: Vec<DVec4> = local.iter().map(|x| (*x * mask).extend(1.0)).collect();
    let n = lifted.len();
    let d = dims as f64;
    let mut weights = vec![1.0 / n as f64; n];
    for _ in 0..20_000 {
        let mut x = inactive_block;
        for (q, &u) in lifted.iter().zip(&weights) {
            x += outer4(*q, *q * u);
        }
        let x_inv = x.inverse();
        let (best, m) = lifted.iter().map(|q| q.dot(x_inv * *q)).enumerate().fold(
            (0, f64::NEG_INFINITY),
            |b, (i, m)| if m > b.1 { (i, m) } else { b },
        );
        let step = (m - d - 1.0) / ((d + 1.0) * (m - 1.0));
        if step.is_nan() || step <= 1e-7 {
            break;
        }
        for u in &mut weights {
            *u *= 1.0 - step;
        }
        weights[best] += step;
    }
    let center: DVec3 = local
        .iter()
        .zip(&weights)
        .map(|(x, &u)| *x * mask * u)
        .sum();
    let mut scatter = DMat3::ZERO;
    for (x, &u) in local.iter().zip(&weights) {
        let xm = *x * mask;
        scatter += DMat3::from_cols(xm * (xm.x * u), xm * (xm.y * u), xm * (xm.z * u));
    }
    scatter -= DMat3::from_cols(center * center.x, center * center.y, center * center.z);
    // shape matrix A = (scatter · d)⁻¹ on the active axes; the inactive ones get a huge weight
    // so their semi-axis comes out as 0.
    let inactive = DMat3::from_diagonal((DVec3::ONE - mask) * 1e-30);
    let shape = ((scatter * d) + inactive).inverse();
    let eigen = symmetric_eigen(shape);
    let semi_axes = DVec3::new(
        axis_from_eigenvalue(eigen.values.x),
        axis_from_eigenvalue(eigen.values.y),
        axis_from_eigenvalue(eigen.values.z),
    );
    let rotation = pca.rotation.as_dmat3() * eigen.vectors;
    let frame = Frame {
        center: (pca.center.as_dvec3() + pca.rotation.as_dmat3() * center).as_vec3(),
        rotation: rotation.as_mat3(),
    };
    (frame, semi_axes)
}

fn axis_from_eigenvalue(value: f64) -> f64 {
    if value.is_finite() && value > 0.0 {
        let axis = 1.0 / value.sqrt();
        if axis.is_finite() { axis } else { 0.0 }
    } else {
        0.0
    }
}

fn outer4(a: DVec4, b: DVec4) -> DMat4 {
    DMat4::from_cols(b * a.x, b * a.y, b * a.z, b * a.w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_left_flat_does_not_blow_up_the_minimum_volume_fit() {
        // A shoulder's core from a six-frame clip: the rest pose and three nearly collinear
        // points (off their line by rounding only), with the other samples a little off it.
        let core = [
            DVec3::ZERO,
            DVec3::new(0.857_225, -0.312_005, -1.5e-7),
            DVec3::new(0.781_348, -0.284_387, -3.8e-7),
            DVec3::new(0.704_150, -0.256_289, 6.1e-7),
        ];
        let mut samples = core.to_vec();
        samples.extend([
            DVec3::new(0.82, -0.30, 0.004),
            DVec3::new(0.74, -0.27, -0.003),
            DVec3::new(0.3, -0.1, 0.002),
        ]);
        let reach = samples.iter().map(|s| s.length()).fold(0.0, f64::max);
        let fitted =
            EllipsoidShape::fit(&core, &samples, EllipsoidFit::MinimumVolume, 0.0).expect("a fit");
        assert!(
            fitted.semi_axes.max_element() < 2.0 * reach as f32,
            "semi-axes {} for samples within {reach} of the origin",
            fitted.semi_axes
        );
        for sample in &samples {
            assert!(fitted.contains(sample.as_vec3()), "{sample} outside");
        }
        assert!(fitted.validate().is_ok());
    }
}
