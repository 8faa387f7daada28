//! Which face of a polytope faces each direction, on a cube map around it: where a projection's
//! walk starts for a point far outside.
//!
//! Seen from a point `x = c + R·u` far along the unit direction `u` from a centre `c`, a face's
//! height `n·x − b = (n·c − b) + R·(n·u)` is ruled by `n·u` as `R` grows, so the face `x` rises
//! highest above tends to the *support face* of `u`, the one whose normal is nearest `u`. The
//! map stores that face for the direction through the middle of each of its cells. It is only
//! a start: the walk proves its answer from wherever it begins, and a start `x` is not above
//! is refused before the walk (the full scan answers instead).

use glam::{DVec3, Vec3};

/// Cells per side of each of the cube's six faces: directions a few degrees apart, finer than
/// a fitted polytope's faces seen from far away.
const SIDE: usize = 16;

/// The support face of every direction on a cube map around a centre.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SupportFaces {
    /// The point directions are measured from.
    centre: Vec3,
    /// Per cube face (`+x, −x, +y, −y, +z, −z`), `SIDE × SIDE` face indices, row-major.
    faces: Vec<u16>,
}

impl SupportFaces {
    /// The map for the polytope with outward unit `normals`, around `centre`, or `None` when it
    /// has more faces than `u16` indexes or none.
    pub(crate) fn new(normals: &[Vec3], centre: Vec3) -> Option<SupportFaces> {
        if normals.is_empty() || normals.len() > usize::from(u16::MAX) {
            return None;
        }
        let mut faces = Vec::with_capacity(6 * SIDE * SIDE);
        for cube_face in 0..6 {
            for row in 0..SIDE {
                for column in 0..SIDE {
                    let (s, t) = (cell_middle(column), cell_middle(row));
                    let u = direction(cube_face, s, t);
                    let support = normals
                        .iter()
                        .enumerate()
                        .map(|(face, n)| (face, n.as_dvec3().dot(u)))
                        .fold((0, f64::NEG_INFINITY), |best, candidate| {
                            if candidate.1 > best.1 {
                                candidate
                            } else {
                                best
                            }
                        });
                    faces.push(support.0 as u16);
                }
            }
        }
        Some(SupportFaces { centre, faces })
    }

    /// The support face of the direction from the centre to `x` (any face when `x` is the
    /// centre or not finite: a start the caller checks anyway).
    #[inline]
    pub(crate) fn towards(&self, x: Vec3) -> u16 {
        let u = x - self.centre;
        let magnitude = u.abs();
        // The cube face the direction leaves through: its largest coordinate, and that
        // coordinate's sign.
        let (axis, across) = if magnitude.x >= magnitude.y && magnitude.x >= magnitude.z {
            (0, (u.y, u.z))
        } else if magnitude.y >= magnitude.z {
            (1, (u.z, u.x))
        } else {
            (2, (u.x, u.y))
        };
        let major = u[axis];
        let cube_face = 2 * axis + usize::from(major < 0.0);
        let scale = 1.0 / magnitude[axis].max(f32::MIN_POSITIVE);
        let cell = |coordinate: f32| {
            // [−1, 1] → [0, SIDE), clamped (NaN lands on 0).
            let index = ((coordinate * scale + 1.0) * (0.5 * SIDE as f32)) as usize;
            index.min(SIDE - 1)
        };
        let (column, row) = (cell(across.0), cell(across.1));
        self.faces[(cube_face * SIDE + row) * SIDE + column]
    }
}

/// The middle of cell `index` along a cube face's side, in `[−1, 1]`.
fn cell_middle(index: usize) -> f64 {
    (index as f64 + 0.5) / SIDE as f64 * 2.0 - 1.0
}

/// The unit direction through the point `(s, t)` of cube face `cube_face` (axes in the order
/// [`SupportFaces::towards`] reads them).
fn direction(cube_face: usize, s: f64, t: f64) -> DVec3 {
    let sign = if cube_face.is_multiple_of(2) {
        1.0
    } else {
        -1.0
    };
    let v = match cube_face / 2 {
        0 => DVec3::new(sign, s, t),
        1 => DVec3::new(t, sign, s),
        _ => DVec3::new(s, t, sign),
    };
    v.normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jointlimits_testdata::SplitMix;

    /// Directions spread over the sphere, from a fixed seed.
    fn directions(count: usize) -> Vec<Vec3> {
        let mut random = SplitMix(11);
        (0..count)
            .map(|_| {
                let v = Vec3::new(
                    random.next_signed(),
                    random.next_signed(),
                    random.next_signed(),
                );
                v.normalize_or(Vec3::X)
            })
            .collect()
    }

    #[test]
    fn each_cube_face_cell_reads_back_the_support_face_of_its_middle() {
        // One normal per cell middle: the support face of a cell's middle is its own normal.
        let mut normals = Vec::new();
        for cube_face in 0..6 {
            for row in 0..SIDE {
                for column in 0..SIDE {
                    let u = direction(cube_face, cell_middle(column), cell_middle(row));
                    normals.push(u.as_vec3());
                }
            }
        }
        let centre = Vec3::new(0.3, -0.2, 0.1);
        let map = SupportFaces::new(&normals, centre).unwrap();
        for (face, n) in normals.iter().enumerate() {
            assert_eq!(usize::from(map.towards(centre + *n * 5.0)), face);
        }
    }

    #[test]
    fn the_support_face_is_within_a_cell_of_the_best_normal() {
        // The thirteen k-DOP axes both ways: the stored face's normal is nearly as aligned
        // with any direction as the best one: within twice the largest angle from a cell's middle
        // to its edge (0.089 rad).
        let normals: Vec<Vec3> = crate::shape::KdopDirections::Thirteen
            .vectors()
            .iter()
            .flat_map(|d| [d.as_vec3(), -d.as_vec3()])
            .collect();
        let map = SupportFaces::new(&normals, Vec3::ZERO).unwrap();
        for u in directions(2000) {
            let best = normals.iter().map(|n| n.dot(u)).fold(f32::MIN, f32::max);
            let stored = normals[usize::from(map.towards(u * 3.0))].dot(u);
            assert!(
                stored >= best - 0.18,
                "direction {u}: stored {stored}, best {best}"
            );
        }
    }

    #[test]
    fn degenerate_points_give_some_face() {
        let map = SupportFaces::new(&[Vec3::X, -Vec3::X], Vec3::ONE).unwrap();
        for x in [Vec3::ONE, Vec3::NAN, Vec3::INFINITY, Vec3::NEG_INFINITY] {
            assert!(map.towards(x) < 2);
        }
        assert!(SupportFaces::new(&[], Vec3::ZERO).is_none());
    }
}
