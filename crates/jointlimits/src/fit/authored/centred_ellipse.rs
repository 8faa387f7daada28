//! The smallest ellipse of the plane centred at the origin that holds a set of points: the swing
//! bound of a fitted spherical ellipse.

use glam::{DMat2, DVec2};

/// An ellipse centred at the origin: `(x/a)² + (y/b)² ≤ 1` in the frame turned by `angle`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CentredEllipse {
    /// The radii `(a, b)` along the turned frame's first and second axes.
    pub radii: DVec2,
    /// The angle from the x axis to the first axis, radians.
    pub angle: f64,
}

impl CentredEllipse {
    /// `π·a·b`.
    pub fn area(&self) -> f64 {
        std::f64::consts::PI * self.radii.x * self.radii.y
    }

    /// `(x/a)² + (y/b)²` of `point` in the ellipse's frame: at most 1 inside.
    pub fn level(&self, point: DVec2) -> f64 {
        let (sin, cos) = self.angle.sin_cos();
        let along = DVec2::new(
            cos * point.x + sin * point.y,
            -sin * point.x + cos * point.y,
        );
        (along / self.radii).length_squared()
    }
}

/// Relative accuracy of the area: the result is at most this much larger than the smallest.
const AREA_TOLERANCE: f64 = 1e-7;

/// Iterations at most (they converge long before, except on degenerate input).
const MAX_ITERATIONS: usize = 200_000;

/// Radii below this are raised to it: points on a line still get an ellipse with an inside.
const SMALLEST_RADIUS: f64 = 1e-6;

/// A symmetric hull whose area is below this share of its largest radius squared is flat: its
/// points lie on a line through the origin, well within [`SMALLEST_RADIUS`] of it.
const FLAT: f64 = 1e-9;

/// The smallest-area ellipse centred at the origin holding every point; `None` when there are
/// none or one is not finite.
///
/// Only the convex hull of the points and their reflections through the origin matters. On its
/// vertices `pᵢ`, Khachiyan's algorithm with Todd and Yıldırım's away steps solves the dual
/// problem: weights `uᵢ ≥ 0`, `Σuᵢ = 1`, maximising `log det X`, `X = Σ uᵢ pᵢpᵢᵀ`. Each step moves
/// weight towards the point of largest `gᵢ = pᵢᵀX⁻¹pᵢ`, or away from the weighted point of
/// smallest, by the step that maximises the determinant exactly. At the optimum every `gᵢ ≤ 2`
/// with equality where `uᵢ > 0`, and `{p : pᵀX⁻¹p ≤ 2}` is the answer; the ellipse returned is
/// `{p : pᵀX⁻¹p ≤ max gᵢ}`, which holds every point and is within the tolerance of the smallest.
///
/// ```
/// use glam::DVec2;
/// use jointlimits::fit::authored::smallest_centred_ellipse;
/// let points = [DVec2::new(2.0, 0.0), DVec2::new(0.0, -1.0), DVec2::new(1.2, 0.7)];
/// let ellipse = smallest_centred_ellipse(&points).unwrap();
/// assert!(points.iter().all(|&p| ellipse.level(p) <= 1.0 + 1e-9));
/// ```
pub fn smallest_centred_ellipse(points: &[DVec2]) -> Option<CentredEllipse> {
    if points.iter().any(|p| !p.is_finite()) {
        return None;
    }
    let mut ellipse = solve(points);
    // A nearly flat set loses precision in the eigen-decomposition (its angle, its thin radius
    // raised to the smallest): scaled back up to hold every point.
    let level = points.iter().map(|&p| ellipse.level(p)).fold(0.0, f64::max);
    if level > 1.0 {
        ellipse.radii *= level.sqrt() * (1.0 + 1e-12);
    }
    Some(ellipse)
}

/// The iteration of [`smallest_centred_ellipse`] on finite `points`.
fn solve(points: &[DVec2]) -> CentredEllipse {
    let mut symmetric: Vec<DVec2> = points.iter().flat_map(|&p| [p, -p]).collect();
    let vertices = convex_hull(&mut symmetric);
    let largest = vertices.iter().map(|p| p.length()).fold(0.0, f64::max);
    if vertices.len() < 3
        || largest < SMALLEST_RADIUS
        || polygon_area(&vertices) < FLAT * largest * largest
    {
        // Points on a line through the origin (two nearly opposite points, say): the iteration
        // below would divide by a vanishing determinant.
        return along_a_line(points);
    }
    let n = vertices.len();
    let mut weights = vec![1.0 / n as f64; n];
    let scatter = |weights: &[f64]| {
        let mut x = DMat2::ZERO;
        for (p, &u) in vertices.iter().zip(weights) {
            x += u * DMat2::from_cols(*p * p.x, *p * p.y);
        }
        x
    };
    let mut x = scatter(&weights);
    for iteration in 0..MAX_ITERATIONS {
        if x.determinant() <= 0.0 {
            return along_a_line(points);
        }
        let inverse = x.inverse();
        let g: Vec<f64> = vertices.iter().map(|p| p.dot(inverse * *p)).collect();
        let far = g.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1));
        let near = g
            .iter()
            .enumerate()
            .filter(|(i, _)| weights[*i] > 0.0)
            .min_by(|a, b| a.1.total_cmp(b.1));
        let (Some((far, &g_far)), Some((near, &g_near))) = (far, near) else {
            return along_a_line(points);
        };
        let (gain, loss) = (g_far / 2.0 - 1.0, 1.0 - g_near / 2.0);
        if gain <= AREA_TOLERANCE && loss <= AREA_TOLERANCE {
            break;
        }
        // The step τ of u ← (1−τ)u + τ·e_j maximising det: τ = (g − 2)/(2(g − 1)), kept where
        // u_j stays non-negative.
        let (j, g_j) = if gain >= loss {
            (far, g_far)
        } else {
            (near, g_near)
        };
        let floor = -weights[j] / (1.0 - weights[j]);
        let tau = if g_j > 1.0 {
            ((g_j - 2.0) / (2.0 * (g_j - 1.0))).max(floor)
        } else {
            floor
        };
        for u in &mut weights {
            *u *= 1.0 - tau;
        }
        weights[j] = (weights[j] + tau).max(0.0);
        // Refresh the sum exactly now and then against drift.
        x = if iteration % 64 == 63 {
            scatter(&weights)
        } else {
            let p = vertices[j];
            (1.0 - tau) * x + tau * DMat2::from_cols(p * p.x, p * p.y)
        };
    }
    let inverse = x.inverse();
    let level = vertices
        .iter()
        .map(|p| p.dot(inverse * *p))
        .fold(0.0, f64::max);
    from_shape_matrix(x * level)
}

/// The ellipse `{p : pᵀ S⁻¹ p ≤ 1}` of the symmetric positive-definite `S`: radii the square
/// roots of its eigenvalues, along its eigenvectors.
fn from_shape_matrix(s: DMat2) -> CentredEllipse {
    let (a, b, c) = (s.x_axis.x, s.y_axis.x, s.y_axis.y);
    let mean = (a + c) / 2.0;
    let spread = (((a - c) / 2.0).powi(2) + b * b).sqrt();
    let angle = 0.5 * (2.0 * b).atan2(a - c);
    CentredEllipse {
        radii: DVec2::new(
            (mean + spread).max(0.0).sqrt().max(SMALLEST_RADIUS),
            (mean - spread).max(0.0).sqrt().max(SMALLEST_RADIUS),
        ),
        angle,
    }
}

/// The area of the convex polygon with counter-clockwise `vertices` (shoelace formula).
fn polygon_area(vertices: &[DVec2]) -> f64 {
    let n = vertices.len();
    0.5 * (0..n)
        .map(|i| vertices[i].perp_dot(vertices[(i + 1) % n]))
        .sum::<f64>()
}

/// For points on a line through the origin (or at it): the thinnest ellipse along that line.
fn along_a_line(points: &[DVec2]) -> CentredEllipse {
    let farthest = points
        .iter()
        .copied()
        .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))
        .unwrap_or(DVec2::ZERO);
    CentredEllipse {
        radii: DVec2::new(farthest.length().max(SMALLEST_RADIUS), SMALLEST_RADIUS),
        angle: farthest.y.atan2(farthest.x),
    }
}

/// The vertices of the convex hull of `points` (Andrew's monotone chain; sorts `points`).
fn convex_hull(points: &mut [DVec2]) -> Vec<DVec2> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let turns_left = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o) > 0.0;
    let mut hull: Vec<DVec2> = Vec::with_capacity(points.len() + 1);
    for pass in [
        &points[..],
        &points.iter().rev().copied().collect::<Vec<_>>()[..],
    ] {
        let start = hull.len();
        for &p in pass {
            while hull.len() >= start + 2
                && !turns_left(hull[hull.len() - 2], hull[hull.len() - 1], p)
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The smallest area over ellipses whose first axis is on a 0.25° grid of angles, each with
    /// the first radius scanned and the second the least that holds every point.
    fn brute_force_area(points: &[DVec2]) -> f64 {
        let mut best = f64::INFINITY;
        for step in 0..720 {
            let angle = f64::from(step).to_radians() / 4.0;
            let (sin, cos) = angle.sin_cos();
            let turned: Vec<DVec2> = points
                .iter()
                .map(|p| DVec2::new(cos * p.x + sin * p.y, -sin * p.x + cos * p.y))
                .collect();
            let widest = turned.iter().map(|p| p.x.abs()).fold(0.0, f64::max);
            for k in 1..=400 {
                let a = widest * (1.0 + 4.0 * f64::from(k) / 400.0);
                let b = turned
                    .iter()
                    .map(|p| p.y.abs() / (1.0 - (p.x / a).powi(2)).sqrt())
                    .fold(0.0, f64::max);
                best = best.min(std::f64::consts::PI * a * b);
            }
        }
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        #[test]
        fn holds_every_point_and_is_no_larger_than_a_brute_force_search(
            points in prop::collection::vec((-2.0f64..2.0, -1.0f64..1.0), 3..25),
        ) {
            let points: Vec<DVec2> = points.into_iter().map(DVec2::from).collect();
            let ellipse = smallest_centred_ellipse(&points).unwrap();
            for p in &points {
                prop_assert!(ellipse.level(*p) <= 1.0 + 1e-9);
            }
            let brute = brute_force_area(&points);
            prop_assert!(ellipse.area() <= brute * (1.0 + 1e-6), "{} > {brute}", ellipse.area());
        }
    }

    proptest! {
        /// Two frames of a joint, recentred on their mean, are nearly opposite points: the
        /// iteration's determinant vanishes there.
        #[test]
        fn two_nearly_opposite_points_are_held(
            x in -2.0f64..2.0,
            y in -1.0f64..1.0,
            exponent in -16.0f64..-3.0,
            along in -1.0f64..1.0,
        ) {
            let p = DVec2::new(x, y);
            let off = 10f64.powf(exponent);
            let q = -p + DVec2::new(along * off, off);
            let ellipse = smallest_centred_ellipse(&[p, q]).unwrap();
            for point in [p, q] {
                prop_assert!(ellipse.level(point) <= 1.0 + 1e-6, "{point} {ellipse:?}");
            }
        }
    }

    #[test]
    fn points_on_a_line_give_a_thin_ellipse_along_it() {
        let points = [DVec2::new(1.0, 1.0), DVec2::new(-0.5, -0.5), DVec2::ZERO];
        let ellipse = smallest_centred_ellipse(&points).unwrap();
        assert!(points.iter().all(|&p| ellipse.level(p) <= 1.0 + 1e-9));
        assert!(ellipse.radii.y <= 1e-5);
    }
}
