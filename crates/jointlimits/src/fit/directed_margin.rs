//! Directed margins: growing a fitted box, k-DOP or ellipsoid by a different amount on each side,
//! towards where the motion a fit did not see lies, instead of by one padding on every side.
//!
//! A uniform margin large enough for the unseen frames that stray farthest along one axis also
//! grows every other axis by as much: a spine whose unseen motion bends 30° further forwards gains
//! 30° of twist it never shows. Here the margin is a vector: one amount per ellipsoid semi-axis
//! (fitted frames order their axes by variance, largest first, so folds fitted on different clips
//! agree on which axis is which) or per slab face (`−d₀, +d₀, −d₁, +d₁, …` for a k-DOP's
//! directions; `−x, +x, −y, +y, −z, +z` in a box's frame).
//!
//! It is chosen from cross-validation folds, each a shape fitted without some frames and those
//! frames' limit-space points: the smallest-volume margin under which a share `P` of the held-out
//! points lie inside the folds' grown shapes. Two starts are searched: the smallest uniform margin
//! reaching `P`, and (for ellipsoids and boxes, whose few components allow it) the best over a
//! grid of directions of margin vectors, each bisected to the smallest length reaching `P`. From
//! each, every component is shrunk in turn while `P` is still reached, and the smaller volume
//! wins. No fold is refitted: a fitted shape grown by a margin is exactly what fitting with that
//! margin gives.

use glam::{DVec3, Vec3};

use crate::shape::{BoxShape, EllipsoidShape, Shape};

/// The largest margin component searched, radians: half a turn.
const MAX_MARGIN: f64 = std::f64::consts::PI;

/// Bisection steps along one direction (π / 2²⁴ ≈ 2e-7 rad).
const BISECTION_STEPS: usize = 24;

/// Levels per component of the grid of directions: finer for ellipsoids' 3 components than for
/// boxes' 6 (61 and 665 directions). k-DOPs (26 faces for 13 directions) start only from the
/// uniform margin.
const ELLIPSOID_LEVELS: usize = 4;
const BOX_LEVELS: usize = 2;

/// Rounds of shrinking each component in turn.
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
        Shape::Kdop(k) => Some(2 * k.directions.len()),
        Shape::Hull(_) => None,
    }
}

/// `shape` grown by `margins` (module docs; lengths from [`margin_count`], missing entries 0).
/// Components are clamped to `[0, π]`.
pub fn grown(shape: &Shape, margins: &[f64]) -> Shape {
    let m = |i: usize| {
        margins
            .get(i)
            .copied()
            .unwrap_or(0.0)
            .clamp(0.0, MAX_MARGIN) as f32
    };
    match shape {
        Shape::Ellipsoid(e) => Shape::Ellipsoid(EllipsoidShape {
            frame: e.frame,
            semi_axes: e.semi_axes + Vec3::new(m(0), m(1), m(2)),
        }),
        Shape::Box(b) => Shape::Box(BoxShape {
            frame: b.frame,
            min: b.min - Vec3::new(m(0), m(2), m(4)),
            max: b.max + Vec3::new(m(1), m(3), m(5)),
        }),
        Shape::Kdop(k) => {
            let faces = k.directions.len();
            let lower: Vec<f32> = (0..faces).map(|i| m(2 * i)).collect();
            let upper: Vec<f32> = (0..faces).map(|i| m(2 * i + 1)).collect();
            // Widening slabs that bounded a solid still bounds one.
            k.widened(&lower, &upper)
                .map_or_else(|| shape.clone(), Shape::Kdop)
        }
        Shape::Hull(_) => shape.clone(),
    }
}

/// A fold's held-out points in its shape's frame, with what is needed to test them against the
/// shape grown by any margin.
enum Prepared {
    Ellipsoid {
        semi_axes: DVec3,
        local: Vec<DVec3>,
    },
    /// Boxes and k-DOPs: `min[i] ≤ directions[i]·x ≤ max[i]` for every slab.
    Slabs {
        directions: Vec<DVec3>,
        min: Vec<f64>,
        max: Vec<f64>,
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
            Shape::Ellipsoid(e) => Some(Prepared::Ellipsoid {
                semi_axes: e.semi_axes.as_dvec3(),
                local: local(&e.frame),
            }),
            Shape::Box(b) => Some(Prepared::Slabs {
                directions: vec![DVec3::X, DVec3::Y, DVec3::Z],
                min: b.min.as_dvec3().to_array().to_vec(),
                max: b.max.as_dvec3().to_array().to_vec(),
                local: local(&b.frame),
            }),
            Shape::Kdop(k) => Some(Prepared::Slabs {
                directions: k.directions.iter().map(|d| d.as_dvec3()).collect(),
                min: k.min.iter().map(|&m| f64::from(m)).collect(),
                max: k.max.iter().map(|&m| f64::from(m)).collect(),
                local: local(&k.frame),
            }),
            Shape::Hull(_) => None,
        }
    }

    /// Margin components this fold's shape takes.
    fn components(&self) -> usize {
        match self {
            Prepared::Ellipsoid { .. } => 3,
            Prepared::Slabs { directions, .. } => 2 * directions.len(),
        }
    }

    /// Held-out points inside the shape grown by `m`.
    fn inside(&self, m: &[f64]) -> usize {
        match self {
            Prepared::Ellipsoid { semi_axes, local } => {
                let inverse = (*semi_axes + DVec3::new(m[0], m[1], m[2])).recip();
                local
                    .iter()
                    .filter(|&&x| (x * inverse).length_squared() <= 1.0)
                    .count()
            }
            Prepared::Slabs {
                directions,
                min,
                max,
                local,
            } => local
                .iter()
                .filter(|&&x| {
                    directions.iter().enumerate().all(|(i, d)| {
                        let along = d.dot(x);
                        along >= min[i] - m[2 * i] && along <= max[i] + m[2 * i + 1]
                    })
                })
                .count(),
        }
    }

    /// The log of the grown shape's volume, up to a constant: exact for ellipsoids and boxes,
    /// the sum of the slabs' log widths for k-DOPs.
    fn log_volume(&self, m: &[f64]) -> f64 {
        let log = |width: f64| width.max(f64::MIN_POSITIVE).ln();
        match self {
            Prepared::Ellipsoid { semi_axes, .. } => (0..3).map(|i| log(semi_axes[i] + m[i])).sum(),
            Prepared::Slabs { min, max, .. } => (0..min.len())
                .map(|i| log(max[i] - min[i] + m[2 * i] + m[2 * i + 1]))
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

/// The search over folds prepared for it.
struct Search {
    prepared: Vec<Prepared>,
    components: usize,
    needed: usize,
}

impl Search {
    fn reaches(&self, m: &[f64]) -> bool {
        self.prepared.iter().map(|p| p.inside(m)).sum::<usize>() >= self.needed
    }

    fn log_volume(&self, m: &[f64]) -> f64 {
        self.prepared.iter().map(|p| p.log_volume(m)).sum()
    }

    /// The smallest `t` in `[0, 1]` with `reaches(along(t))`, given that `along(1)` reaches.
    fn bisect(&self, along: impl Fn(f64) -> Vec<f64>) -> f64 {
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..BISECTION_STEPS {
            let mid = 0.5 * (lo + hi);
            if self.reaches(&along(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// The margin `t·π·direction` with the smallest `t` reaching the share, if any.
    fn along(&self, direction: &[f64]) -> Option<Vec<f64>> {
        let at = |t: f64| -> Vec<f64> { direction.iter().map(|w| t * MAX_MARGIN * w).collect() };
        self.reaches(&at(1.0)).then(|| at(self.bisect(at)))
    }

    /// `margins` with each component in turn shrunk as far as the share allows.
    fn shrunk(&self, mut margins: Vec<f64>) -> Vec<f64> {
        for _ in 0..SHRINK_ROUNDS {
            for i in 0..self.components {
                let current = margins[i];
                if current == 0.0 {
                    continue;
                }
                let base = margins.clone();
                margins[i] = current
                    * self.bisect(|t| {
                        let mut m = base.clone();
                        m[i] = t * current;
                        m
                    });
            }
        }
        margins
    }
}

/// The smallest-volume margin vector (module docs) under which at least a share `accept` of the
/// folds' held-out points lie inside their grown shapes; `None` when the shapes take no directed
/// margin, disagree in kind or face count, or growing every side by π does not reach the share.
pub fn directed_margins(folds: &[Fold], accept: f64) -> Option<Vec<f64>> {
    let components = margin_count(folds.first()?.shape)?;
    let prepared: Vec<Prepared> = folds.iter().map(Prepared::of).collect::<Option<_>>()?;
    let ellipsoid = matches!(prepared[0], Prepared::Ellipsoid { .. });
    let same_kind = prepared.iter().all(|p| {
        p.components() == components && matches!(p, Prepared::Ellipsoid { .. }) == ellipsoid
    });
    if !same_kind {
        return None;
    }
    let total: usize = folds.iter().map(|f| f.held_out.len()).sum();
    let search = Search {
        prepared,
        components,
        needed: (accept * total as f64 - 1e-9).ceil().max(0.0) as usize,
    };
    if search.reaches(&vec![0.0; components]) {
        return Some(vec![0.0; components]);
    }
    let mut starts: Vec<Vec<f64>> = search.along(&vec![1.0; components]).into_iter().collect();
    let levels = match components {
        3 if ellipsoid => Some(ELLIPSOID_LEVELS),
        6 if !ellipsoid => Some(BOX_LEVELS),
        _ => None,
    };
    if let Some(levels) = levels {
        let best_on_grid = direction_grid(components, levels)
            .iter()
            .filter_map(|direction| search.along(direction))
            .min_by(|a, b| search.log_volume(a).total_cmp(&search.log_volume(b)));
        starts.extend(best_on_grid);
    }
    starts
        .into_iter()
        .map(|start| search.shrunk(start))
        .min_by(|a, b| search.log_volume(a).total_cmp(&search.log_volume(b)))
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
    fn a_kdop_grows_only_the_faces_the_unseen_points_pass() {
        let cloud: Vec<DVec3> = (0..8)
            .map(|i| DVec3::new(f64::from(i & 1), f64::from(i >> 1 & 1), f64::from(i >> 2)) - 0.5)
            .collect();
        let shape =
            Shape::Kdop(KdopShape::fit(&cloud, &cloud, KdopDirections::Thirteen, 0.0).unwrap());
        // Unseen points straight out of one face of the cube, up to 0.3 past it.
        let Shape::Kdop(k) = &shape else {
            unreachable!()
        };
        let out = k.frame.to_world(Vec3::new(0.0, 0.0, 0.8));
        let held_out: Vec<Vec3> = (0..20).map(|i| out * (i as f32 / 19.0)).collect();
        let folds = [Fold {
            shape: &shape,
            held_out: &held_out,
        }];
        let margins = directed_margins(&folds, 1.0).unwrap();
        let grown_faces = margins.iter().filter(|&&m| m > 1e-6).count();
        // The z face, and diagonal slabs the point passes too, but far from all 26.
        assert!((1..=5).contains(&grown_faces), "{margins:?}");
        let Shape::Kdop(wider) = grown(&shape, &margins) else {
            unreachable!()
        };
        assert!(
            held_out
                .iter()
                .all(|&p| Shape::Kdop(wider.clone()).contains(p))
        );
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

    use crate::shape::{KdopDirections, KdopShape, LimitShape};
    use glam::{Mat3, Quat};
    use proptest::prelude::*;

    /// Points of `points` inside `shape` by its own projection (independent of the search's
    /// arithmetic).
    fn inside_count(shape: &Shape, points: &[Vec3]) -> usize {
        points.iter().filter(|&&p| shape.contains(p)).count()
    }

    /// A 13-DOP fitted to a random cloud of points.
    fn any_kdop() -> impl Strategy<Value = Shape> {
        prop::collection::vec(prop::array::uniform3(-1.5f64..1.5), 4..30).prop_filter_map(
            "a solid",
            |cloud| {
                let cloud: Vec<DVec3> = cloud.into_iter().map(DVec3::from).collect();
                KdopShape::fit(&cloud, &cloud, KdopDirections::Thirteen, 0.01)
                    .ok()
                    .map(Shape::Kdop)
            },
        )
    }

    /// A box, an ellipsoid (in turned frames off the origin) or a k-DOP.
    fn any_shape() -> impl Strategy<Value = Shape> {
        prop_oneof![any_box_or_ellipsoid(), any_kdop()]
    }

    /// A box or ellipsoid in a turned frame off the origin.
    fn any_box_or_ellipsoid() -> impl Strategy<Value = Shape> {
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
