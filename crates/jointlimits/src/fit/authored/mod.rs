//! The authored kinds fitted from data: the smallest Euler ranges, hinge, swing cone or
//! spherical ellipse of its kind that holds a joint's samples, so that fitted limits can leave
//! this program for the engines and tools that use those kinds.
//!
//! Each fit takes the reference-relative rotations of one joint and returns the region and the
//! rotation `recentre` that the reference is turned by, `reference′ = reference · recentre`
//! (identity for Euler ranges and hinges, whose frames are the joint's own):
//! - **Euler ranges**: per channel, the shortest arc holding the channel's angles
//!   ([`covering_arc`]); the axis order is the one given, or of the six the one whose box of
//!   ranges has the least volume.
//! - **Hinge**: the axis along which the rotations' scaled angle-axis vectors spread most (least
//!   squares: it leaves the smallest off-axis part), and the shortest arc of hinge angles about it.
//!   A hinge allows no rotation off its axis, so a sample's off-axis part is what limiting it
//!   removes.
//! - **Cone**: the smallest cap holding the bone's directions ([`smallest_cap`]) becomes the cone,
//!   with the reference turned so that its centre is the bone's rest direction, and the shortest
//!   arc of twists measured from there.
//! - **Spherical ellipse**: recentred the same way, the smallest ellipse centred at the rest
//!   direction holding the swings in the swing plane ([`smallest_centred_ellipse`]), and the
//!   shortest arc of twists.
//!
//! Padding widens every range and radius by its angle afterwards (a cone's and an ellipse's radii
//! stop at π).
//!
//! Asked to hold only a share of the samples ([`fit_authored_holding`]), each fit first leaves
//! out the samples whose removal shrinks its region most (`trim`'s module docs), then fits the
//! rest as above.

mod arc;
mod cap;
mod centred_ellipse;
mod trim;

pub use arc::covering_arc;
pub use cap::{Cap, smallest_cap};
pub use centred_ellipse::{CentredEllipse, smallest_centred_ellipse};
pub use trim::shortest_arc_holding;

use std::f64::consts::{PI, TAU};

use glam::{DQuat, DVec2, DVec3, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::FitError;
use super::eigen::symmetric_eigen;
use crate::authored::{ConeLimit, EulerLimit, HingeLimit, SphericalEllipseLimit};
use crate::euler::EulerOrder;
use crate::joint_limit::{LimitRegion, TwistRange};

/// Which authored kind to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthoredShape {
    /// Euler-angle ranges in this order, or in the order with the least volume when `None`.
    Euler(Option<EulerOrder>),
    /// A hinge.
    Hinge,
    /// A circular swing cone with a twist interval.
    Cone,
    /// A spherical ellipse with a twist interval.
    SphericalEllipse,
}

/// A fitted authored region and the rotation the reference is turned by for it.
#[derive(Clone, Debug, PartialEq)]
pub struct AuthoredFit {
    /// The region, over rotations relative to `reference · recentre`.
    pub region: LimitRegion,
    /// The turn of the reference: the samples the region holds are `recentre⁻¹ · relative`.
    pub recentre: Quat,
}

/// Fits `shape` to a joint's reference-relative `rotations` (either cover), with `twist_axis`
/// its bone's axis, padded by `padding` radians.
pub fn fit_authored(
    shape: AuthoredShape,
    rotations: &[Quat],
    twist_axis: Vec3,
    padding: f64,
) -> Result<AuthoredFit, FitError> {
    fit_authored_holding(shape, rotations, twist_axis, padding, 1.0)
}

/// [`fit_authored`] holding at least the share `hold` (in (0, 1]) of the rotations: the
/// samples whose removal shrinks the region most are left out first (module docs).
///
/// ```
/// use glam::{Quat, Vec3};
/// use jointlimits::fit::authored::{AuthoredShape, fit_authored_holding};
/// use jointlimits::{LimitContext, RotationLimit};
/// // A knee bending 0°…60°, and one glitched frame at 150°.
/// let mut frames: Vec<Quat> = (0..=60)
///     .map(|d| Quat::from_rotation_x((d as f32).to_radians()))
///     .collect();
/// frames.push(Quat::from_rotation_x(150f32.to_radians()));
/// let all = fit_authored_holding(AuthoredShape::Hinge, &frames, Vec3::Y, 0.0, 1.0).unwrap();
/// let most = fit_authored_holding(AuthoredShape::Hinge, &frames, Vec3::Y, 0.0, 0.98).unwrap();
/// let glitch = frames[61];
/// assert!(all.region.contains(glitch, &LimitContext::NONE));
/// assert!(!most.region.contains(glitch, &LimitContext::NONE));
/// assert!(frames[..61].iter().all(|&q| most.region.contains(q, &LimitContext::NONE)));
/// ```
pub fn fit_authored_holding(
    shape: AuthoredShape,
    rotations: &[Quat],
    twist_axis: Vec3,
    padding: f64,
    hold: f64,
) -> Result<AuthoredFit, FitError> {
    if rotations.is_empty() {
        return Err(FitError::NoSamples);
    }
    if let Some(index) = rotations.iter().position(|q| !q.is_finite()) {
        return Err(FitError::NonFinite { index });
    }
    let rotations: Vec<DQuat> = rotations.iter().map(|q| q.as_dquat().normalize()).collect();
    let drop = trim::droppable(rotations.len(), hold.clamp(0.0, 1.0));
    let rotations = if drop == 0 {
        rotations
    } else {
        let axis = twist_axis.as_dvec3().normalize();
        let kept = match shape {
            AuthoredShape::Euler(order) => {
                let (_, triples) = euler_triples(&rotations, order, padding);
                trim::peel(
                    rotations.len(),
                    drop,
                    &mut EulerPeel::new(&triples, padding),
                )
            }
            AuthoredShape::Hinge => {
                return Ok(AuthoredFit {
                    region: fit_hinge_holding(&rotations, padding, rotations.len() - drop).into(),
                    recentre: Quat::IDENTITY,
                });
            }
            // An ellipse is trimmed as a cone is (its centred fit follows no single rim
            // point as an outlier is removed), then fitted to what is kept.
            AuthoredShape::Cone | AuthoredShape::SphericalEllipse => trim::peel(
                rotations.len(),
                drop,
                &mut SwingPeel::new(&rotations, axis, padding),
            ),
        };
        rotations
            .iter()
            .zip(&kept)
            .filter(|(_, keep)| **keep)
            .map(|(q, _)| *q)
            .collect()
    };
    let unturned = |region: LimitRegion| AuthoredFit {
        region,
        recentre: Quat::IDENTITY,
    };
    Ok(match shape {
        AuthoredShape::Euler(order) => unturned(fit_euler(&rotations, order, padding).into()),
        AuthoredShape::Hinge => unturned(fit_hinge(&rotations, padding).into()),
        AuthoredShape::Cone | AuthoredShape::SphericalEllipse => fit_swing(
            shape,
            &rotations,
            twist_axis.as_dvec3().normalize(),
            padding,
        ),
    })
}

/// `[min − padding, max + padding]` as f32.
fn padded((min, max): (f64, f64), padding: f64) -> (f32, f32) {
    ((min - padding) as f32, (max + padding) as f32)
}

/// `radii` (of the ellipse turned by `angle`) with a radius capped at π made up for: where the
/// padded smallest ellipse would need a radius past π, the other radius grows until every swing
/// is held again (at most to π, a disc that holds every swing).
fn held_within_half_turn(radii: DVec2, angle: f64, swings: &[DVec2]) -> DVec2 {
    let (sin, cos) = angle.sin_cos();
    let local = |s: &DVec2| DVec2::new(cos * s.x + sin * s.y, -sin * s.x + cos * s.y);
    let level = |r: DVec2| {
        swings
            .iter()
            .map(|s| (local(s) / r).length_squared())
            .fold(0.0, f64::max)
    };
    let pi = std::f64::consts::PI;
    // f32 rounding of an uncapped radius is within the limit's own tolerance.
    let capped = radii.x >= pi - 1e-6 || radii.y >= pi - 1e-6;
    if !capped || level(radii) <= 1.0 + 1e-9 {
        return radii;
    }
    // One radius is at π (or both): the other must reach every swing the first cannot.
    let needed = |along: fn(DVec2) -> (f64, f64)| {
        swings
            .iter()
            .map(|s| {
                let (capped, other) = along(local(s));
                let room = 1.0 - (capped / pi).powi(2);
                if room <= 1e-12 {
                    pi
                } else {
                    other.abs() / room.sqrt()
                }
            })
            .fold(0.0, f64::max)
    };
    let grown = if radii.x >= pi {
        DVec2::new(pi, radii.y.max(needed(|p| (p.x, p.y))))
    } else {
        DVec2::new(radii.x.max(needed(|p| (p.y, p.x))), pi)
    };
    grown.min(DVec2::splat(pi))
}

/// Each rotation has two Euler triples, `(a, b, c)` and `(a + π, π − b, c + π)`; `primary`
/// holds the first (middle angle within ±90°). Where the motion carries the middle angle past
/// ±90°, the first jumps while the second continues: this keeps, frame by frame, the triple
/// nearer the one kept before (each angle compared modulo a turn), so that such motion gives
/// narrow ranges instead of ranges spanning the jump.
fn continued_triples(primary: &[DVec3]) -> Vec<DVec3> {
    let wrapped = |d: f64| (d + PI).rem_euclid(TAU) - PI;
    let apart = |a: DVec3, b: DVec3| (0..3).map(|k| wrapped(a[k] - b[k]).powi(2)).sum::<f64>();
    let mut kept: Vec<DVec3> = Vec::with_capacity(primary.len());
    for &t in primary {
        let other = DVec3::new(t.x + PI, PI - t.y, t.z + PI);
        let chosen = match kept.last() {
            Some(&before) if apart(other, before) < apart(t, before) => other,
            _ => t,
        };
        kept.push(chosen);
    }
    kept
}

/// The Euler triples of the rotations in `order` (or of the six the one) and form (first or
/// continued, [`continued_triples`]) whose box of shortest arcs, padded, has the least volume.
fn euler_triples(
    rotations: &[DQuat],
    order: Option<EulerOrder>,
    padding: f64,
) -> (EulerOrder, Vec<DVec3>) {
    let orders = order.map_or(EulerOrder::ALL.to_vec(), |order| vec![order]);
    let fitted = orders.into_iter().flat_map(|order| {
        let primary: Vec<DVec3> = rotations.iter().map(|&q| order.from_dquat(q)).collect();
        [continued_triples(&primary), primary].map(|triples| (order, triples))
    });
    fitted
        .map(|(order, triples)| {
            let volume: f64 = (0..3)
                .map(|channel| {
                    let (min, max) = covering_arc(triples.iter().map(|t| t[channel]))
                        .expect("finite, not empty");
                    max - min + 2.0 * padding
                })
                .product();
            (volume, order, triples)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, order, triples)| (order, triples))
        .expect("at least one order")
}

/// Euler ranges: the shortest arc per channel, in `order` or the order of least volume
/// ([`euler_triples`]).
fn fit_euler(rotations: &[DQuat], order: Option<EulerOrder>, padding: f64) -> EulerLimit {
    let (order, triples) = euler_triples(rotations, order, padding);
    let (min, max): (Vec<f32>, Vec<f32>) = (0..3)
        .map(|channel| {
            let arc = covering_arc(triples.iter().map(|t| t[channel])).expect("finite, not empty");
            padded(arc, padding)
        })
        .unzip();
    EulerLimit {
        order,
        min: Vec3::from_slice(&min),
        max: Vec3::from_slice(&max),
    }
}

/// Peeling Euler ranges: the samples at the ends of the three channels' arcs are on the box's
/// boundary; its size is the padded volume.
struct EulerPeel {
    channels: [trim::ShrinkingArc; 3],
    padding: f64,
}

impl EulerPeel {
    fn new(triples: &[DVec3], padding: f64) -> EulerPeel {
        let channel =
            |c: usize| trim::ShrinkingArc::new(&triples.iter().map(|t| t[c]).collect::<Vec<f64>>());
        EulerPeel {
            channels: [channel(0), channel(1), channel(2)],
            padding,
        }
    }
}

impl trim::Peelable for EulerPeel {
    fn boundary(&self) -> Vec<Vec<usize>> {
        let mut ends: Vec<usize> = self.channels.iter().flat_map(|c| c.ends()).collect();
        ends.sort_unstable();
        ends.dedup();
        ends.into_iter().map(|s| vec![s]).collect()
    }

    fn size(&self) -> f64 {
        self.channels
            .iter()
            .map(|c| c.width() + 2.0 * self.padding)
            .product()
    }

    fn size_without(&self, group: &[usize], kept: &[bool]) -> f64 {
        self.channels
            .iter()
            .map(|c| c.width_without(group, kept) + 2.0 * self.padding)
            .product()
    }

    fn dropped(&mut self, kept: &[bool]) {
        for channel in &mut self.channels {
            channel.settle(kept);
        }
    }
}

/// A hinge holding `count` of the rotations: the principal axis of all of them and the shortest
/// arc of angles about it holding `count` (exact for that axis).
fn fit_hinge_holding(rotations: &[DQuat], padding: f64, count: usize) -> HingeLimit {
    let axis = hinge_axis(rotations);
    let angles: Vec<f64> = rotations.iter().map(|&q| angle_about(q, axis)).collect();
    let arc = shortest_arc_holding(&angles, count).expect("finite, not empty");
    let (min, max) = padded(arc, padding);
    HingeLimit {
        axis: axis.as_vec3().normalize(),
        min,
        max,
    }
}

/// Peeling a cone (and a spherical ellipse): the samples on the smallest cap's rim (recomputed,
/// with its centre, for every candidate) and at the ends of the twist arc are on the boundary;
/// the size is the cap's solid angle times the padded twist range.
struct SwingPeel {
    directions: Vec<DVec3>,
    axis: DVec3,
    twist: trim::ShrinkingArc,
    padding: f64,
    /// The swing bound's size and rim samples for the kept samples.
    current: (f64, Vec<usize>),
}

impl SwingPeel {
    fn new(rotations: &[DQuat], axis: DVec3, padding: f64) -> SwingPeel {
        let directions: Vec<DVec3> = rotations.iter().map(|&q| q * axis).collect();
        let centre = smallest_cap(&directions).map_or(axis, |cap| cap.centre);
        let recentre = DQuat::from_rotation_arc(axis, centre);
        let twists: Vec<f64> = rotations
            .iter()
            .map(|&q| angle_about(recentre.conjugate() * q, axis))
            .collect();
        let mut peel = SwingPeel {
            directions,
            axis,
            twist: trim::ShrinkingArc::new(&twists),
            padding,
            current: (0.0, Vec::new()),
        };
        peel.current = peel.swing_bound(&vec![true; rotations.len()], &[]);
        peel
    }

    /// The smallest cap of the kept samples other than `without`: its padded solid angle (over
    /// 2π) and the samples on its rim.
    fn swing_bound(&self, kept: &[bool], without: &[usize]) -> (f64, Vec<usize>) {
        let held: Vec<usize> = (0..self.directions.len())
            .filter(|&i| kept[i] && !without.contains(&i))
            .collect();
        let directions: Vec<DVec3> = held.iter().map(|&i| self.directions[i]).collect();
        // Past a hemisphere (outliers all around) there is no smallest cap yet: measure from
        // the mean direction, which the few outliers barely move, so that they are the rim.
        let centre = smallest_cap(&directions).map_or_else(
            || {
                directions
                    .iter()
                    .sum::<DVec3>()
                    .try_normalize()
                    .unwrap_or(self.axis)
            },
            |cap| cap.centre,
        );
        let pi = std::f64::consts::PI;
        let padded = |r: f64| (r + self.padding).min(pi);
        let angles: Vec<f64> = directions
            .iter()
            .map(|d| d.dot(centre).clamp(-1.0, 1.0).acos())
            .collect();
        let widest = angles.iter().copied().fold(0.0, f64::max);
        let rim = held
            .iter()
            .zip(&angles)
            .filter(|(_, a)| **a >= widest - 1e-9)
            .map(|(i, _)| *i)
            .collect();
        (1.0 - padded(widest).cos(), rim)
    }
}

impl trim::Peelable for SwingPeel {
    fn boundary(&self) -> Vec<Vec<usize>> {
        let rim = &self.current.1;
        let mut groups: Vec<Vec<usize>> = rim.iter().map(|&s| vec![s]).collect();
        // Two or three outliers can hold the rim between them: none alone shrinks it.
        for (k, &a) in rim.iter().enumerate().take(RIM_PAIRS) {
            groups.extend(rim[k + 1..].iter().take(RIM_PAIRS).map(|&b| vec![a, b]));
        }
        if (3..=RIM_PAIRS).contains(&rim.len()) {
            groups.push(rim.clone());
        }
        groups.extend(self.twist.ends().map(|s| vec![s]));
        groups
    }

    fn size(&self) -> f64 {
        self.current.0 * (self.twist.width() + 2.0 * self.padding)
    }

    fn size_without(&self, group: &[usize], kept: &[bool]) -> f64 {
        let swing = if group.iter().any(|s| self.current.1.contains(s)) {
            self.swing_bound(kept, group).0
        } else {
            self.current.0
        };
        swing * (self.twist.width_without(group, kept) + 2.0 * self.padding)
    }

    fn dropped(&mut self, kept: &[bool]) {
        self.twist.settle(kept);
        self.current = self.swing_bound(kept, &[]);
    }
}

/// Rim samples paired with each other, or dropped all together, when peeling a swing bound (the
/// rim of a cap has two or three; more only by rounding).
const RIM_PAIRS: usize = 4;

/// The angle of `q`'s rotation about the unit `axis` (its twist about it), radians.
fn angle_about(q: DQuat, axis: DVec3) -> f64 {
    2.0 * DVec3::new(q.x, q.y, q.z).dot(axis).atan2(q.w)
}

/// A hinge: the principal axis of the short-way scaled angle-axis vectors ([`hinge_axis`]) and
/// the shortest arc of hinge angles about it.
fn fit_hinge(rotations: &[DQuat], padding: f64) -> HingeLimit {
    let axis = hinge_axis(rotations);
    let arc = covering_arc(rotations.iter().map(|&q| angle_about(q, axis))).expect("finite");
    let (min, max) = padded(arc, padding);
    HingeLimit {
        axis: axis.as_vec3().normalize(),
        min,
        max,
    }
}

/// The principal axis of the rotations' short-way scaled angle-axis vectors (least squares: it
/// leaves the smallest off-axis part), pointed so that most of the motion has positive angles.
fn hinge_axis(rotations: &[DQuat]) -> DVec3 {
    let vectors: Vec<DVec3> = rotations
        .iter()
        .map(|&q| {
            let short = if q.w < 0.0 { -q } else { q };
            let (axis, angle) = short.to_axis_angle();
            axis * angle
        })
        .collect();
    let scatter = vectors.iter().fold(glam::DMat3::ZERO, |sum, v| {
        sum + glam::DMat3::from_cols(*v * v.x, *v * v.y, *v * v.z)
    });
    let eigen = symmetric_eigen(scatter);
    let largest = (0..3)
        .max_by(|&i, &j| eigen.values[i].total_cmp(&eigen.values[j]))
        .unwrap_or(0);
    let mut axis = eigen
        .vectors
        .col(largest)
        .try_normalize()
        .unwrap_or(DVec3::X);
    // Point it so that most of the motion has positive angles (flexion positive).
    if vectors.iter().map(|v| v.dot(axis)).sum::<f64>() < 0.0 {
        axis = -axis;
    }
    axis
}

/// A cone or a spherical ellipse about the smallest cap of the bone's directions.
fn fit_swing(shape: AuthoredShape, rotations: &[DQuat], axis: DVec3, padding: f64) -> AuthoredFit {
    let directions: Vec<DVec3> = rotations.iter().map(|&q| q * axis).collect();
    // Past a hemisphere no cap is smallest in this sense: keep the rest direction as the centre.
    let centre = smallest_cap(&directions).map_or(axis, |cap| cap.centre);
    let recentre = DQuat::from_rotation_arc(axis, centre);
    let first = axis.any_orthonormal_vector();
    let second = axis.cross(first);
    let mut swings = Vec::with_capacity(rotations.len());
    let mut twists = Vec::with_capacity(rotations.len());
    for &q in rotations {
        let turned = recentre.conjugate() * q;
        let twist = angle_about(turned, axis);
        let swing = turned * DQuat::from_axis_angle(axis, twist).conjugate();
        let swing = if swing.w < 0.0 { -swing } else { swing };
        let (swing_axis, swing_angle) = swing.to_axis_angle();
        let s = swing_axis * swing_angle;
        swings.push(DVec2::new(s.dot(first), s.dot(second)));
        twists.push(twist);
    }
    let (twist_min, twist_max) = padded(covering_arc(twists).expect("finite"), padding);
    let twist = TwistRange {
        min: twist_min,
        max: twist_max,
    };
    let largest_radius = |r: f64| (r + padding).min(std::f64::consts::PI) as f32;
    let region: LimitRegion = match shape {
        AuthoredShape::Cone => {
            let widest = swings.iter().map(|s| s.length()).fold(0.0, f64::max);
            ConeLimit {
                twist_axis: axis.as_vec3(),
                max_swing: largest_radius(widest),
                twist,
            }
            .into()
        }
        _ => {
            let ellipse = smallest_centred_ellipse(&swings).expect("finite, not empty");
            let (sin, cos) = ellipse.angle.sin_cos();
            let first_axis = cos * first + sin * second;
            let radii = held_within_half_turn(
                DVec2::new(
                    f64::from(largest_radius(ellipse.radii.x)),
                    f64::from(largest_radius(ellipse.radii.y)),
                ),
                ellipse.angle,
                &swings,
            );
            SphericalEllipseLimit {
                twist_axis: axis.as_vec3(),
                first_axis: first_axis.normalize().as_vec3(),
                radii: radii.as_vec2(),
                twist,
            }
            .into()
        }
    };
    AuthoredFit {
        region,
        recentre: recentre.as_quat().normalize(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{LimitContext, RotationLimit};

    /// Rotations from a deterministic sequence spread over the whole rotation group.
    fn spread(count: usize) -> Vec<Quat> {
        (0..count)
            .map(|i| {
                let t = i as f32;
                Quat::from_xyzw(
                    (t * 1.37).sin(),
                    (t * 2.71 + 0.4).sin(),
                    (t * 0.57 + 1.1).cos(),
                    (t * 3.19 + 0.2).cos(),
                )
                .normalize()
            })
            .collect()
    }

    #[test]
    fn euler_ranges_follow_a_middle_angle_past_ninety_degrees() {
        // Z·X·Y with X sweeping 80°…99.6° (never exactly 90°, where only the sum of the outer
        // angles is defined): past 90° the first triple jumps by half a turn in its outer
        // angles; the fit keeps the continuing one.
        let rotations: Vec<Quat> = (0..=28)
            .map(|i| {
                let x = (80.0 + 0.7 * i as f64).to_radians();
                EulerOrder::ZXY.to_quat(DVec3::new(0.05, x, -0.03))
            })
            .collect();
        let fit = fit_authored(
            AuthoredShape::Euler(Some(EulerOrder::ZXY)),
            &rotations,
            Vec3::Y,
            0.0,
        )
        .unwrap();
        let LimitRegion::Euler(euler) = fit.region else {
            panic!("Euler ranges")
        };
        let widths = (euler.max - euler.min).to_array().map(f32::to_degrees);
        assert!(
            widths[1] <= 19.61 && widths[0] < 0.01 && widths[2] < 0.01,
            "{widths:?}"
        );
        for q in rotations {
            assert!(euler.contains(q, &LimitContext::NONE));
        }
    }

    #[test]
    fn swing_kinds_hold_rotations_spread_over_every_direction_and_fit_fast() {
        // Directions all around: no cap within a hemisphere, and an ellipse that would need a
        // radius past half a turn. (The cap search once grew cubic here.)
        let rotations = spread(5000);
        for shape in [AuthoredShape::Cone, AuthoredShape::SphericalEllipse] {
            let fit = fit_authored(shape, &rotations, Vec3::Y, 0.0).unwrap();
            assert_eq!(
                fit.recentre,
                Quat::IDENTITY,
                "no cap: the rest direction stays"
            );
            let outside = rotations
                .iter()
                .filter(|&&q| !fit.region.contains(q, &LimitContext::NONE))
                .count();
            assert_eq!(outside, 0, "{shape:?}");
        }
        let directions: Vec<DVec3> = rotations
            .iter()
            .map(|q| (*q * Vec3::Y).as_dvec3())
            .collect();
        assert_eq!(smallest_cap(&directions), None);
    }
}
