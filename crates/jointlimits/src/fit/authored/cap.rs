//! The smallest spherical cap holding a set of directions: the centre of a fitted swing cone.

use glam::DVec3;

/// A spherical cap: the unit directions `d` with `d·centre ≥ cos_radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cap {
    /// The unit centre.
    pub centre: DVec3,
    /// The cosine of the angular radius.
    pub cos_radius: f64,
}

/// How far below the cap a direction on its rim may compute (rounding in the dot products).
const RIM_SLACK: f64 = 1e-12;

impl Cap {
    /// The angular radius, radians.
    pub fn radius(&self) -> f64 {
        self.cos_radius.clamp(-1.0, 1.0).acos()
    }

    /// Whether the cap holds `direction` (within rounding).
    pub fn holds(&self, direction: DVec3) -> bool {
        direction.dot(self.centre) >= self.cos_radius - RIM_SLACK
    }

    fn through_one(a: DVec3) -> Cap {
        Cap {
            centre: a,
            cos_radius: 1.0,
        }
    }

    /// The smallest cap with `a` and `b` on its rim: centred halfway along the arc between them.
    fn through_two(a: DVec3, b: DVec3) -> Option<Cap> {
        let centre = (a + b).try_normalize()?;
        Some(Cap {
            centre,
            cos_radius: centre.dot(a),
        })
    }

    /// The cap with `a`, `b` and `c` on its rim whose centre is on their side: the plane through
    /// the three points cuts it from the sphere.
    fn through_three(a: DVec3, b: DVec3, c: DVec3) -> Option<Cap> {
        let normal = (b - a).cross(c - a).try_normalize()?;
        let centre = if normal.dot(a) >= 0.0 {
            normal
        } else {
            -normal
        };
        Some(Cap {
            centre,
            cos_radius: centre.dot(a),
        })
    }
}

/// The smallest cap holding every unit direction, when they fit in less than a hemisphere
/// (`None` otherwise, or when there are none).
///
/// Welzl's incremental algorithm: within a hemisphere the smallest cap is, like the smallest disc
/// of the plane, fixed by at most three directions on its rim, and is found by adding the
/// directions one at a time, rebuilding from the rim whenever one falls outside. The directions
/// are visited in a fixed scrambled order (expected linear time, deterministic). The result is
/// checked against every direction.
///
/// ```
/// use glam::DVec3;
/// use jointlimits::fit::authored::smallest_cap;
/// let directions = [DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.2).normalize()];
/// let cap = smallest_cap(&directions).unwrap();
/// assert!((cap.radius().to_degrees() - 45.0).abs() < 1e-9);
/// ```
pub fn smallest_cap(directions: &[DVec3]) -> Option<Cap> {
    let order = scrambled(directions.len());
    let points: Vec<DVec3> = order.iter().map(|&i| directions[i]).collect();
    let mut cap = Cap::through_one(*points.first()?);
    // Within a hemisphere each rebuilt cap is at least as large as the one before it. Directions
    // beyond a hemisphere break that (and would make the rebuilding cubic): give up at once.
    let shrank = |before: &Cap, after: &Cap| after.cos_radius > before.cos_radius + 1e-12;
    for i in 1..points.len() {
        if cap.holds(points[i]) {
            continue;
        }
        let before_i = cap;
        cap = Cap::through_one(points[i]);
        for j in 0..i {
            if cap.holds(points[j]) {
                continue;
            }
            let before_j = cap;
            cap = Cap::through_two(points[i], points[j])?;
            for k in 0..j {
                if !cap.holds(points[k]) {
                    cap = Cap::through_three(points[i], points[j], points[k])?;
                }
            }
            if cap.cos_radius <= 0.0 || shrank(&before_j, &cap) {
                return None;
            }
        }
        if shrank(&before_i, &cap) {
            return None;
        }
    }
    let within_hemisphere = cap.cos_radius > 0.0;
    let holds_all = directions
        .iter()
        .all(|&d| d.dot(cap.centre) >= cap.cos_radius - 1e-9);
    (within_hemisphere && holds_all).then_some(cap)
}

/// `0..n` in a fixed scrambled order (a multiplicative hash), so that the incremental algorithm
/// does not meet the directions in their recorded, smoothly moving order.
fn scrambled(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| {
        (i as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29)
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The widest angle from `centre` to any direction.
    fn widest(directions: &[DVec3], centre: DVec3) -> f64 {
        directions
            .iter()
            .map(|d| d.dot(centre).clamp(-1.0, 1.0).acos())
            .fold(0.0, f64::max)
    }

    /// The smallest radius over a dense spiral of centres, then refined around the best.
    fn brute_force_radius(directions: &[DVec3]) -> f64 {
        let n = 40_000;
        let mut best = (f64::INFINITY, DVec3::Z);
        for i in 0..n {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let phi = i as f64 * 2.399_963_229_728_653;
            let r = (1.0 - z * z).sqrt();
            let centre = DVec3::new(r * phi.cos(), r * phi.sin(), z);
            let radius = widest(directions, centre);
            if radius < best.0 {
                best = (radius, centre);
            }
        }
        let mut step = 0.02;
        while step > 1e-7 {
            let (e1, e2) = best.1.any_orthonormal_pair();
            let mut improved = false;
            for (du, dv) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                let centre = (best.1 + step * (du * e1 + dv * e2)).normalize();
                let radius = widest(directions, centre);
                if radius < best.0 {
                    best = (radius, centre);
                    improved = true;
                }
            }
            if !improved {
                step /= 2.0;
            }
        }
        best.0
    }

    fn direction(azimuth: f64, polar: f64) -> DVec3 {
        DVec3::new(
            polar.sin() * azimuth.cos(),
            polar.sin() * azimuth.sin(),
            polar.cos(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        #[test]
        fn holds_every_direction_and_is_no_larger_than_a_brute_force_search(
            spots in prop::collection::vec((0.0f64..6.3, 0.0f64..1.3), 1..30),
        ) {
            let directions: Vec<DVec3> =
                spots.iter().map(|&(a, p)| direction(a, p)).collect();
            let cap = smallest_cap(&directions).unwrap();
            prop_assert!(directions.iter().all(|&d| cap.holds(d)));
            let brute = brute_force_radius(&directions);
            prop_assert!(cap.radius() <= brute + 1e-6, "{} > {}", cap.radius(), brute);
        }
    }

    #[test]
    fn directions_around_the_sphere_have_no_cap() {
        let directions = [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z];
        assert_eq!(smallest_cap(&directions), None);
        assert_eq!(smallest_cap(&[]), None);
    }
}
