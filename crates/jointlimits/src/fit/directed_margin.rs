//! Directed margins: growing a fitted box or ellipsoid by a different amount on each side, towards
//! where the motion a fit did not see lies, instead of by one padding on every side.
//!
//! A uniform margin large enough for the unseen frames that stray farthest along one axis also
//! grows every other axis by as much: a spine whose unseen motion bends 30° further forwards gains
//! 30° of twist it never shows. Here the margin is a vector: one amount per ellipsoid semi-axis
//! (ordered by the principal frame's variance, largest first, so folds fitted on different clips
//! agree on which axis is which) or per box face (`−x, +x, −y, +y, −z, +z` in the box's frame).
//!
//! It is chosen from cross-validation folds, each a shape fitted without some frames and those
//! frames' limit-space points: the smallest-volume margin under which a share `P` of the held-out
//! points lie inside the folds' grown shapes. The search walks a grid of directions of margin vectors, finds by bisection the smallest length reaching `P` along each, keeps the
//! smallest volume, then shrinks each component in turn while `P` is still reached. No fold is
//! refitted: a fitted shape grown by a margin is exactly what fitting with that margin gives.

use glam::{DVec3, Vec3};

use crate::shape::{BoxShape, EllipsoidShape, Shape};

/// The largest margin component searched, radians: half a turn.
const MAX_MARGIN: f64 = std::f64::consts::PI;

/// Bisection steps along one direction (π / 2²⁴ ≈ 2e-7 rad).
const BISECTION_STEPS: usize = 24;

/// Levels per component of the grid of directions: finer for ellipsoids' 3 components than for
/// boxes' 6 (61 and 665 directions).
const ELLIPSOID_LEVELS: usize = 4;
const BOX_LEVELS: usize = 2;

/// Rounds of shrinking each component in turn after the grid search.
const SHRINK_ROUNDS: usize = 3;

/// One fold as the search sees it: the shape fitted without the held-out frames and their
/// limit-space points.
pub struct Fold<'a> {
    /// The shape fitted on the rest, at the base padding.
    pub shape: &'a Shape,
    /// The held-out frames' limit-space points.
    pub held_out: &'a [Vec3],
}

/// How many margin components a shape is grown by (`None`: only uniform padding).
pub fn margin_count(shape: &Shape) -> Option<usize> {
    match shape {
        Shape::Ellipsoid(_) => Some(3),
        Shape::Box(_) => Some(6),
        Shape::Kdop(_) | Shape::Hull(_) => None,
    }
}

/// The ellipsoid's semi-axis indices ordered by the principal frame's variance, largest first.
///
/// Fitted frames come from [`crate::shape::Frame::principal`], whose columns are already in that
/// order, so this is the identity for them; it is kept explicit so the margins' meaning does not
/// rest on it.
fn axis_order(_: &EllipsoidShape) -> [usize; 3] {
    [0, 1, 2]
}

/// `shape` grown by `margins` (module docs; lengths from [`margin_count`]). Components are
/// clamped to `[0, π]`.
pub fn grown(shape: &Shape, margins: &[f64]) -> Shape {
    let m = |i: usize| {
        margins
            .get(i)
            .copied()
            .unwrap_or(0.0)
            .clamp(0.0, MAX_MARGIN) as f32
    };
    match shape {
        Shape::Ellipsoid(e) => {
            let mut semi_axes = e.semi_axes;
            for (rank, axis) in axis_order(e).into_iter().enumerate() {
                semi_axes[axis] += m(rank);
            }
            Shape::Ellipsoid(EllipsoidShape {
                frame: e.frame,
                semi_axes,
            })
        }
        Shape::Box(b) => Shape::Box(BoxShape {
            frame: b.frame,
            min: b.min - Vec3::new(m(0), m(2), m(4)),
            max: b.max + Vec3::new(m(1), m(3), m(5)),
        }),
        Shape::Kdop(_) | Shape::Hull(_) => shape.clone(),
    }
}

/// A shape's held-out points in its own frame, with what is needed to test them against it
/// grown by any margin.
enum Prepared {
    Ellipsoid {
        semi_axes: DVec3,
        local: Vec<DVec3>,
    },
    Box {
        min: DVec3,
        max: DVec3,
        local: Vec<DVec3>,
    },
}

impl Prepared {
    fn of(fold: &Fold) -> Option<Prepared> {
        let local = |frame: &crate::shape::Frame| -> Vec<DVec3> {
            fold.held_out
                .iter()
                .map(|&p| frame.to_local(p).as_dvec3())
                .collect()
        };
        match fold.shape {
            Shape::Ellipsoid(e) => {
                let order = axis_order(e);
                let reorder = |v: DVec3| DVec3::new(v[order[0]], v[order[1]], v[order[2]]);
                Some(Prepared::Ellipsoid {
                    semi_axes: reorder(e.semi_axes.as_dvec3()),
                    local: local(&e.frame).into_iter().map(reorder).collect(),
                })
            }
            Shape::Box(b) => Some(Prepared::Box {
                min: b.min.as_dvec3(),
                max: b.max.as_dvec3(),
                local: local(&b.frame),
            }),
            Shape::Kdop(_) | Shape::Hull(_) => None,
        }
    }

    /// Held-out points inside the shape grown by `m`.
    fn inside(&self, m: &[f64]) -> usize {
        match self {
            Prepared::Ellipsoid { semi_axes, local } => {
                let a = *semi_axes + DVec3::new(m[0], m[1], m[2]);
                let inverse = a.recip();
                local
                    .iter()
                    .filter(|&&x| (x * inverse).length_squared() <= 1.0)
                    .count()
            }
            Prepared::Box { min, max, local } => {
                let lo = *min - DVec3::new(m[0], m[2], m[4]);
                let hi = *max + DVec3::new(m[1], m[3], m[5]);
                local
                    .iter()
                    .filter(|&&x| x.cmpge(lo).all() && x.cmple(hi).all())
                    .count()
            }
        }
    }

    /// The log of the grown shape's volume (up to a constant).
    fn log_volume(&self, m: &[f64]) -> f64 {
        match self {
            Prepared::Ellipsoid { semi_axes, .. } => (0..3)
                .map(|i| (semi_axes[i] + m[i]).max(f64::MIN_POSITIVE).ln())
                .sum(),
            Prepared::Box { min, max, .. } => (0..3)
                .map(|i| {
                    (max[i] - min[i] + m[2 * i] + m[2 * i + 1])
                        .max(f64::MIN_POSITIVE)
                        .ln()
                })
                .sum(),
        }
    }
}

/// Every vector in `components` dimensions whose coordinates are multiples of `1 / levels` in
/// `[0, 1]` and whose largest coordinate is 1: the directions a margin may grow along, each once.
fn direction_grid(components: usize, levels: usize) -> Vec<Vec<f64>> {
    let choices = levels + 1;
    (0..choices.pow(components as u32))
        .map(|code| {
            (0..components)
                .map(|i| (code / choices.pow(i as u32) % choices) as f64 / levels as f64)
                .collect::<Vec<f64>>()
        })
        .filter(|w| w.contains(&1.0))
        .collect()
}

/// The smallest-volume margin vector (module docs) under which at least a share `accept` of the
/// folds' held-out points lie inside their grown shapes; `None` when the shapes take no directed
/// margin, disagree in kind, or no margin up to π reaches the share.
pub fn directed_margins(folds: &[Fold], accept: f64) -> Option<Vec<f64>> {
    let count = margin_count(folds.first()?.shape)?;
    let prepared: Vec<Prepared> = folds.iter().map(Prepared::of).collect::<Option<_>>()?;
    let same_kind = folds.iter().all(|f| margin_count(f.shape) == Some(count))
        && prepared
            .iter()
            .all(|p| matches!(p, Prepared::Ellipsoid { .. }) == (count == 3));
    if !same_kind {
        return None;
    }
    let total: usize = folds.iter().map(|f| f.held_out.len()).sum();
    let needed = (accept * total as f64 - 1e-9).ceil().max(0.0) as usize;
    let reaches = |m: &[f64]| prepared.iter().map(|p| p.inside(m)).sum::<usize>() >= needed;
    let log_volume = |m: &[f64]| prepared.iter().map(|p| p.log_volume(m)).sum::<f64>();
    let zero = vec![0.0; count];
    if reaches(&zero) {
        return Some(zero);
    }
    // The smallest `t` in `[lo, hi]` with `reaches(along(t))`, given that `hi` reaches.
    let bisect = |along: &dyn Fn(f64) -> Vec<f64>, mut lo: f64, mut hi: f64| -> f64 {
        for _ in 0..BISECTION_STEPS {
            let mid = 0.5 * (lo + hi);
            if reaches(&along(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    };
    let levels = if count == 3 {
        ELLIPSOID_LEVELS
    } else {
        BOX_LEVELS
    };
    let mut best: Option<(f64, Vec<f64>)> = None;
    for direction in direction_grid(count, levels) {
        // The largest component reaches π at t = 1.
        let along = |t: f64| -> Vec<f64> { direction.iter().map(|w| t * MAX_MARGIN * w).collect() };
        if !reaches(&along(1.0)) {
            continue;
        }
        let margins = along(bisect(&along, 0.0, 1.0));
        let volume = log_volume(&margins);
        if best.as_ref().is_none_or(|(v, _)| volume < *v) {
            best = Some((volume, margins));
        }
    }
    let (_, mut margins) = best?;
    // Each component shrunk as far as the share allows, the others held.
    for _ in 0..SHRINK_ROUNDS {
        for i in 0..count {
            let current = margins[i];
            if current == 0.0 {
                continue;
            }
            let base = margins.clone();
            let along = |t: f64| -> Vec<f64> {
                let mut m = base.clone();
                m[i] = t * current;
                m
            };
            margins[i] = bisect(&along, 0.0, 1.0) * current;
        }
    }
    Some(margins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Frame;

    #[test]
    fn the_direction_grid_has_every_direction_once() {
        // (levels + 1)^n vectors less the levels^n whose largest coordinate is below 1.
        assert_eq!(direction_grid(3, 4).len(), 61);
        assert_eq!(direction_grid(6, 2).len(), 665);
        let grid = direction_grid(6, 2);
        assert!(grid.contains(&vec![1.0; 6]));
        for w in &grid {
            assert_eq!(w.iter().copied().fold(0.0, f64::max), 1.0);
        }
    }

    #[test]
    fn a_box_grows_only_towards_the_unseen_points() {
        let shape = Shape::Box(BoxShape {
            frame: Frame::axis_aligned(),
            min: Vec3::splat(-0.1),
            max: Vec3::splat(0.1),
        });
        // Held-out points beyond +x only, up to 0.3.
        let held_out: Vec<Vec3> = (0..100)
            .map(|i| Vec3::new(0.3 * i as f32 / 99.0, 0.0, 0.05))
            .collect();
        let folds = [Fold {
            shape: &shape,
            held_out: &held_out,
        }];
        let margins = directed_margins(&folds, 0.9).unwrap();
        // 90 of the 100 points: x up to 0.3·89/99 ≈ 0.2697, so +x grows by about 0.17.
        assert!(
            (margins[1] - (0.3 * 89.0 / 99.0 - 0.1)).abs() < 1e-5,
            "{margins:?}"
        );
        for (i, &m) in margins.iter().enumerate() {
            if i != 1 {
                assert!(m.abs() < 1e-6, "{margins:?}");
            }
        }
        let Shape::Box(grown) = grown(&shape, &margins) else {
            unreachable!()
        };
        assert!((grown.max.x - 0.3 * 89.0 / 99.0).abs() < 1e-5);
        assert_eq!(grown.min, Vec3::splat(-0.1));
    }

    #[test]
    fn an_ellipsoid_grows_along_the_axis_the_unseen_points_lie_on() {
        let shape = Shape::Ellipsoid(EllipsoidShape {
            frame: Frame::axis_aligned(),
            semi_axes: Vec3::new(0.4, 0.2, 0.1),
        });
        let held_out: Vec<Vec3> = (0..50)
            .map(|i| Vec3::new(0.0, 0.0, 0.1 + 0.2 * i as f32 / 49.0))
            .collect();
        let folds = [Fold {
            shape: &shape,
            held_out: &held_out,
        }];
        let margins = directed_margins(&folds, 1.0).unwrap();
        assert!(margins[0] < 1e-6 && margins[1] < 1e-6, "{margins:?}");
        assert!((margins[2] - 0.2).abs() < 1e-5, "{margins:?}");
    }

    #[test]
    fn points_already_inside_need_no_margin() {
        let shape = Shape::Ellipsoid(EllipsoidShape {
            frame: Frame::axis_aligned(),
            semi_axes: Vec3::splat(0.5),
        });
        let held_out = [Vec3::splat(0.1), Vec3::new(0.3, 0.0, 0.0)];
        let folds = [Fold {
            shape: &shape,
            held_out: &held_out,
        }];
        assert_eq!(directed_margins(&folds, 1.0), Some(vec![0.0; 3]));
    }

    use crate::shape::LimitShape;
    use glam::{Mat3, Quat};
    use proptest::prelude::*;

    /// Points of `points` inside `shape` by its own projection (independent of the search's
    /// arithmetic).
    fn inside_count(shape: &Shape, points: &[Vec3]) -> usize {
        points.iter().filter(|&&p| shape.contains(p)).count()
    }

    /// A box or ellipsoid in a turned frame off the origin.
    fn any_shape() -> impl Strategy<Value = Shape> {
        (
            any::<bool>(),
            prop::array::uniform4(-1.0f32..1.0),
            prop::array::uniform3(-1.0f32..1.0),
            prop::array::uniform3(0.01f32..1.0),
            prop::array::uniform3(0.0f32..0.5),
        )
            .prop_filter_map("a turned frame", |(is_box, q, center, size, low)| {
                let q = Quat::from_xyzw(q[0], q[1], q[2], q[3]);
                (q.length() > 0.1).then(|| {
                    let frame = Frame {
                        center: Vec3::from(center),
                        rotation: Mat3::from_quat(q.normalize()),
                    };
                    if is_box {
                        let min = -Vec3::from(low);
                        Shape::Box(BoxShape {
                            frame,
                            min,
                            max: min + Vec3::from(size),
                        })
                    } else {
                        Shape::Ellipsoid(EllipsoidShape {
                            frame,
                            semi_axes: Vec3::from(size),
                        })
                    }
                })
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]
        /// On any shape and held-out points anywhere in both covers' range (|x| up to 2π), a
        /// margin found reaches the share, and no component can shrink by a thousandth of a
        /// radian without losing it; none is found only when growing every side by π falls
        /// short.
        #[test]
        fn margins_reach_the_share_and_no_side_can_shrink(
            shape in any_shape(),
            points in prop::collection::vec(prop::array::uniform3(-6.3f32..6.3), 1..60),
            accept in 0.5f64..=1.0,
        ) {
            let points: Vec<Vec3> = points.into_iter().map(Vec3::from).collect();
            let needed = (accept * points.len() as f64 - 1e-9).ceil() as usize;
            let folds = [Fold { shape: &shape, held_out: &points }];
            let components = margin_count(&shape).unwrap();
            match directed_margins(&folds, accept) {
                None => {
                    let widest = grown(&shape, &vec![MAX_MARGIN; components]);
                    prop_assert!(inside_count(&widest, &points) < needed);
                }
                Some(margins) => {
                    prop_assert_eq!(margins.len(), components);
                    for &m in &margins {
                        prop_assert!((0.0..=MAX_MARGIN).contains(&m), "{:?}", margins);
                    }
                    // Boundary points may round either way in f32: a hair's slack.
                    let slack: Vec<f64> = margins.iter().map(|m| m + 1e-5).collect();
                    prop_assert!(inside_count(&grown(&shape, &slack), &points) >= needed);
                    for i in 0..components {
                        if margins[i] > 2e-3 {
                            let mut smaller = margins.clone();
                            smaller[i] -= 1e-3;
                            prop_assert!(
                                inside_count(&grown(&shape, &smaller), &points) < needed,
                                "side {} of {:?} shrinks", i, margins
                            );
                        }
                    }
                }
            }
        }
    }
}
