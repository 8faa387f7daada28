//! A brute force of the least cost over allowed bone directions, for tests of kinds that bound
//! the bone's direction (reach cones, tables): evenly spread directions, then a pattern search.

use glam::Vec3;

/// `count` directions spread evenly over the sphere (a Fibonacci lattice).
pub fn fibonacci_directions(count: usize) -> impl Iterator<Item = Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..count).map(move |i| {
        let y = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
        let r = (1.0 - y * y).sqrt();
        let a = golden * i as f32;
        Vec3::new(r * a.cos(), y, r * a.sin())
    })
}

/// The distance from `twist` (any turn) to `[min, max]`.
pub fn twist_gap(twist: f32, min: f32, max: f32) -> f32 {
    (-3..=3)
        .map(|k| twist + std::f32::consts::TAU * k as f32)
        .map(|t| (min - t).max(t - max).max(0.0))
        .fold(f32::INFINITY, f32::min)
}

/// The least of `cost` (`None` where a direction is not allowed) over `candidates`, polished by
/// a pattern search on the sphere: eight steps around the best point, halved from 0.01 rad to
/// 1e-6 rad while none improves it.
pub fn least_cost(
    candidates: impl Iterator<Item = Vec3>,
    cost: impl Fn(Vec3) -> Option<f32>,
) -> f32 {
    let (mut at, mut best) = candidates.filter_map(|e| cost(e).map(|c| (e, c))).fold(
        (Vec3::Z, f32::INFINITY),
        |a, b| if b.1 < a.1 { b } else { a },
    );
    let mut step = 0.01f32;
    while step > 1e-6 {
        let (u, v) = at.any_orthonormal_pair();
        let mut improved = false;
        for (x, y) in [
            (1.0, 0.0),
            (-1.0, 0.0),
            (0.0, 1.0),
            (0.0, -1.0),
            (0.7, 0.7),
            (-0.7, 0.7),
            (0.7, -0.7),
            (-0.7, -0.7),
        ] {
            let e = (at + (u * x + v * y) * step).normalize();
            if let Some(c) = cost(e)
                && c < best
            {
                (at, best, improved) = (e, c, true);
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    best
}
