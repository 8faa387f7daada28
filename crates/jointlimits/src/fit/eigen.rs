//! Exact eigen-decomposition of symmetric 3×3 matrices by cyclic Jacobi rotations, for the PCA
//! frame of limit-space samples.
//!
//! Jacobi zeroes one off-diagonal entry at a time with a plane rotation `J`, `A ← Jᵀ·A·J`,
//! accumulating `V ← V·J`. Every step is an exact orthogonal similarity, so the eigenvectors stay
//! orthonormal to rounding error (about 1e-15) however close the eigenvalues are, unlike power
//! iteration, which leaves the frame non-orthonormal when eigenvalues are close.

use glam::{DMat3, DVec3};

/// Eigenvalues and eigenvectors of a symmetric 3×3 matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SymmetricEigen {
    /// Eigenvalues, largest first.
    pub values: DVec3,
    /// Unit eigenvectors as columns, in the order of `values`: orthonormal, right-handed
    /// (`col0 × col1 = col2`), and with deterministic signs (the largest-magnitude component of
    /// the first two columns is positive).
    pub vectors: DMat3,
}

/// Decomposes the symmetric matrix `m` (only its upper triangle is read) as
/// `m = V · diag(values) · Vᵀ`.
pub fn symmetric_eigen(m: DMat3) -> SymmetricEigen {
    // a[r][c] from the upper triangle, symmetric by construction.
    let mut a: [[f64; 3]; 3] =
        std::array::from_fn(|r| std::array::from_fn(|c| m.col(r.max(c))[r.min(c)]));
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let scale: f64 = a.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    for _sweep in 0..64 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        if off <= (f64::EPSILON * scale).powi(2) * 1e-4 || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation angle that zeroes a[p][q]: tan(φ) = t, the smaller root of
            // t² + 2θt - 1 = 0 with θ = (a_qq - a_pp) / (2 a_pq), for stability.
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            rotate(&mut a, &mut v, p, q, c, s);
        }
    }
    order_and_orient([a[0][0], a[1][1], a[2][2]], v)
}

/// Applies the Jacobi rotation in the (p, q) plane: `A ← Jᵀ·A·J`, `V ← V·J`.
fn rotate(a: &mut [[f64; 3]; 3], v: &mut [[f64; 3]; 3], p: usize, q: usize, c: f64, s: f64) {
    for row in a.iter_mut() {
        let (akp, akq) = (row[p], row[q]);
        row[p] = c * akp - s * akq;
        row[q] = s * akp + c * akq;
    }
    let (row_p, row_q) = (a[p], a[q]);
    a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
    a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
    for row in v.iter_mut() {
        let (vp, vq) = (row[p], row[q]);
        row[p] = c * vp - s * vq;
        row[q] = s * vp + c * vq;
    }
}

/// Sorts eigenpairs by decreasing eigenvalue and fixes the signs of the eigenvectors.
fn order_and_orient(values: [f64; 3], v: [[f64; 3]; 3]) -> SymmetricEigen {
    let column = |k: usize| DVec3::new(v[0][k], v[1][k], v[2][k]);
    let mut order = [0, 1, 2];
    order.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    let orient = |u: DVec3| {
        let largest = if u.x.abs() >= u.y.abs() && u.x.abs() >= u.z.abs() {
            u.x
        } else if u.y.abs() >= u.z.abs() {
            u.y
        } else {
            u.z
        };
        if largest < 0.0 { -u } else { u }
    };
    let first = orient(column(order[0]));
    let second = orient(column(order[1]));
    // The third is ±column(order[2]) already; taking the cross product makes the frame
    // right-handed without changing which eigenvector it is.
    let third = first.cross(second);
    SymmetricEigen {
        values: DVec3::new(values[order[0]], values[order[1]], values[order[2]]),
        vectors: DMat3::from_cols(first, second, third),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(m: DMat3) {
        let e = symmetric_eigen(m);
        let v = e.vectors;
        let identity_error = (v.transpose() * v - DMat3::IDENTITY)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |worst, x| worst.max(x.abs()));
        assert!(identity_error < 1e-12, "not orthonormal: {identity_error}");
        assert!((v.determinant() - 1.0).abs() < 1e-12, "not right-handed");
        assert!(e.values.x >= e.values.y && e.values.y >= e.values.z);
        let rebuilt = v * DMat3::from_diagonal(e.values) * v.transpose();
        let scale = 1.0 + m.to_cols_array().iter().fold(0.0f64, |w, x| w.max(x.abs()));
        assert!(rebuilt.abs_diff_eq(m, 1e-12 * scale), "{m} -> {rebuilt}");
    }

    proptest! {
        #[test]
        fn decomposition_is_exact_orthonormal_and_right_handed(
            d in prop::array::uniform6(-100.0f64..100.0)
        ) {
            let m = DMat3::from_cols_array(&[d[0], d[1], d[2], d[1], d[3], d[4], d[2], d[4], d[5]]);
            check(m);
        }

        #[test]
        fn covariance_like_matrices_including_degenerate_ones(
            points in prop::collection::vec(prop::array::uniform3(-3.0f64..3.0), 1..20),
            flatten in 0usize..3,
        ) {
            // Points on a plane, a line or a single point give rank-deficient covariances.
            let mut m = DMat3::ZERO;
            for p in &points {
                let mut p = DVec3::from_array(*p);
                if flatten >= 1 { p.z = 0.0; }
                if flatten >= 2 { p.y = 0.5 * p.x; }
                m += DMat3::from_cols(p * p.x, p * p.y, p * p.z);
            }
            check(m);
        }
    }

    #[test]
    fn matches_nalgebra_eigenvalues() {
        let m = DMat3::from_cols_array(&[4.0, 1.0, -2.0, 1.0, 2.0, 0.5, -2.0, 0.5, 3.0]);
        let ours = symmetric_eigen(m);
        let theirs =
            nalgebra::Matrix3::new(4.0, 1.0, -2.0, 1.0, 2.0, 0.5, -2.0, 0.5, 3.0).symmetric_eigen();
        let mut expected: Vec<f64> = theirs.eigenvalues.iter().copied().collect();
        expected.sort_by(|a, b| b.total_cmp(a));
        for (got, want) in ours.values.to_array().iter().zip(&expected) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }

    #[test]
    fn repeated_eigenvalues_and_diagonal_input() {
        check(DMat3::IDENTITY);
        check(DMat3::ZERO);
        check(DMat3::from_diagonal(DVec3::new(1.0, 3.0, 2.0)));
        let e = symmetric_eigen(DMat3::from_diagonal(DVec3::new(1.0, 3.0, 2.0)));
        assert_eq!(e.values, DVec3::new(3.0, 2.0, 1.0));
        assert_eq!(e.vectors.col(0), DVec3::Y);
    }
}
