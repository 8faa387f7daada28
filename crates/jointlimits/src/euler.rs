//! Euler angles in the six Tait–Bryan axis orders, with the BVH convention.
//!
//! An order lists the axes in the order their channels appear; the rotation is the product in that
//! order, `R = R_first(a) · R_second(b) · R_third(c)`, applied to column vectors. This is how BVH
//! files, Maya (as "rotate order" read right to left) and most mocap tools compose channels.
//! Conversions run in f64 so that a read → write → read cycle loses nothing measurable.

use glam::{DMat3, DQuat, DVec3, Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A coordinate axis of a rotation channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Axis {
    /// The x axis.
    X,
    /// The y axis.
    Y,
    /// The z axis.
    Z,
}

impl Axis {
    /// The axis index: 0, 1, 2 for X, Y, Z.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The unit vector along this axis.
    pub fn unit(self) -> DVec3 {
        match self {
            Axis::X => DVec3::X,
            Axis::Y => DVec3::Y,
            Axis::Z => DVec3::Z,
        }
    }

    /// The rotation by `angle` radians about this axis.
    pub fn rotation(self, angle: f64) -> DQuat {
        match self {
            Axis::X => DQuat::from_rotation_x(angle),
            Axis::Y => DQuat::from_rotation_y(angle),
            Axis::Z => DQuat::from_rotation_z(angle),
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::X => "X",
            Axis::Y => "Y",
            Axis::Z => "Z",
        })
    }
}

/// One of the six orders of three distinct axes, named by the order in which the channels are
/// listed (and multiplied): `ZXY` means `R = Rz · Rx · Ry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(clippy::upper_case_acronyms)]
pub enum EulerOrder {
    /// `R = Rx · Ry · Rz`
    XYZ,
    /// `R = Rx · Rz · Ry`
    XZY,
    /// `R = Ry · Rx · Rz`
    YXZ,
    /// `R = Ry · Rz · Rx`
    YZX,
    /// `R = Rz · Rx · Ry`
    ZXY,
    /// `R = Rz · Ry · Rx`
    ZYX,
}

impl EulerOrder {
    /// All six orders.
    pub const ALL: [EulerOrder; 6] = [
        EulerOrder::XYZ,
        EulerOrder::XZY,
        EulerOrder::YXZ,
        EulerOrder::YZX,
        EulerOrder::ZXY,
        EulerOrder::ZYX,
    ];

    /// The three axes in channel order.
    pub fn axes(self) -> [Axis; 3] {
        use Axis::*;
        match self {
            EulerOrder::XYZ => [X, Y, Z],
            EulerOrder::XZY => [X, Z, Y],
            EulerOrder::YXZ => [Y, X, Z],
            EulerOrder::YZX => [Y, Z, X],
            EulerOrder::ZXY => [Z, X, Y],
            EulerOrder::ZYX => [Z, Y, X],
        }
    }

    /// The order whose channels are `axes`, if they are three distinct axes.
    pub fn from_axes(axes: [Axis; 3]) -> Option<EulerOrder> {
        EulerOrder::ALL
            .into_iter()
            .find(|order| order.axes() == axes)
    }

    /// The order that starts with `leading` (one or two distinct axes, in channel order) and ends
    /// with the remaining axes in ascending order. Used to decompose a rotation for joints that
    /// have fewer than three rotation channels: the trailing angles are then (nearly) zero.
    pub fn completing(leading: &[Axis]) -> Option<EulerOrder> {
        let mut axes: Vec<Axis> = leading.to_vec();
        for axis in [Axis::X, Axis::Y, Axis::Z] {
            if !axes.contains(&axis) {
                axes.push(axis);
            }
        }
        let axes: [Axis; 3] = axes.try_into().ok()?;
        EulerOrder::from_axes(axes)
    }

    /// The rotation `R_first(angles[0]) · R_second(angles[1]) · R_third(angles[2])` (radians).
    pub fn to_dquat(self, angles: DVec3) -> DQuat {
        let [a, b, c] = self.axes();
        a.rotation(angles.x) * b.rotation(angles.y) * c.rotation(angles.z)
    }

    /// [`EulerOrder::to_dquat`] rounded to f32.
    pub fn to_quat(self, angles: DVec3) -> Quat {
        self.to_dquat(angles).as_quat()
    }

    /// The angles (radians, channel order) of `q` in this order: the first and last in `(-π, π]`,
    /// the middle in `[-π/2, π/2]`.
    ///
    /// With axes `i, j, k` and parity `s` (+1 when `ijk` is a cyclic permutation of `xyz`), the
    /// matrix satisfies `R[i][k] = s·sin b`, `tan a = -s·R[j][k] / R[k][k]`,
    /// `tan c = -s·R[i][j] / R[i][i]`. At gimbal lock (`cos b = 0`) only `a ± c` is defined; then
    /// `c = 0` and `a` carries the whole rotation about the first axis.
    pub fn from_dquat(self, q: DQuat) -> DVec3 {
        let [first, second, third] = self.axes();
        let (i, j, k) = (first.index(), second.index(), third.index());
        let s = if (j + 3 - i) % 3 == 1 { 1.0 } else { -1.0 };
        let m = DMat3::from_quat(q.normalize());
        // glam matrices are column-major: m.col(c)[r] is row r, column c.
        let r = |row: usize, col: usize| m.col(col)[row];
        let cos_b = r(i, i).hypot(r(i, j));
        let b = (s * r(i, k)).atan2(cos_b);
        if cos_b > 1e-12 {
            let a = (-s * r(j, k)).atan2(r(k, k));
            let c = (-s * r(i, j)).atan2(r(i, i));
            DVec3::new(a, b, c)
        } else {
            let a = (s * r(k, j)).atan2(r(j, j));
            DVec3::new(a, b, 0.0)
        }
    }

    /// [`EulerOrder::from_dquat`] for an f32 rotation.
    pub fn from_quat(self, q: Quat) -> DVec3 {
        self.from_dquat(q.as_dquat())
    }

    /// The angles of [`EulerOrder::from_dquat`] computed in f32 with the polynomial `atan2`
    /// (`crate::fast_trig::atan2_4`, all three at once), and `cos b`, for a quick look: a few
    /// nanoseconds instead of a hundred. The matrix is the homogeneous one, `|q|²` times the
    /// rotation's, so `q` needs no normalising (every angle is an `atan2` of two of its
    /// entries, which the scale does not change). The entries are off by a few 1e-7 at most,
    /// so `b` is off by about 1e-6 and `a`, `c` by about `1e-6 / cos b` (they are angles of
    /// vectors of length `cos b`); at gimbal lock (`cos b = 0`) `a` and `c` mean nothing.
    #[inline]
    pub fn from_quat_fast(self, q: Quat) -> (Vec3, f32) {
        let [first, second, third] = self.axes();
        let (i, j, k) = (first.index(), second.index(), third.index());
        let s = if (j + 3 - i) % 3 == 1 { 1.0 } else { -1.0 };
        let m = homogeneous_matrix(q);
        let r = |row: usize, col: usize| m[row][col];
        let norm = q.length_squared();
        let cos_b = (r(i, i) * r(i, i) + r(i, j) * r(i, j)).sqrt();
        let angles = crate::fast_trig::atan2_4(
            Vec4::new(-s * r(j, k), s * r(i, k), -s * r(i, j), 0.0),
            Vec4::new(r(k, k), cos_b, r(i, i), 1.0),
        );
        (angles.truncate(), cos_b / norm)
    }
}

/// The rotation matrix of `q` times `|q|²` (rows), from the quadratic forms alone: for a unit
/// quaternion the rotation matrix itself.
#[inline(always)]
fn homogeneous_matrix(q: Quat) -> [[f32; 3]; 3] {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (xx, yy, zz, ww) = (x * x, y * y, z * z, w * w);
    let (xy, xz, yz, wx, wy, wz) = (x * y, x * z, y * z, w * x, w * y, w * z);
    [
        [ww + xx - yy - zz, 2.0 * (xy - wz), 2.0 * (xz + wy)],
        [2.0 * (xy + wz), ww - xx + yy - zz, 2.0 * (yz - wx)],
        [2.0 * (xz - wy), 2.0 * (yz + wx), ww - xx - yy + zz],
    ]
}

impl fmt::Display for EulerOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for axis in self.axes() {
            write!(f, "{axis}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f64::consts::{FRAC_PI_2, PI};

    fn rotation_angle(a: DQuat, b: DQuat) -> f64 {
        let d = a.conjugate() * b;
        2.0 * DVec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
    }

    /// The rotation as an explicit matrix product, independent of the quaternion code.
    fn matrix_product(order: EulerOrder, angles: DVec3) -> DMat3 {
        let mats = order.axes().map(|axis| match axis {
            Axis::X => DMat3::from_rotation_x,
            Axis::Y => DMat3::from_rotation_y,
            Axis::Z => DMat3::from_rotation_z,
        });
        mats[0](angles.x) * mats[1](angles.y) * mats[2](angles.z)
    }

    proptest! {
        #[test]
        fn euler_round_trip_away_from_gimbal_lock(
            order_index in 0usize..6,
            a in -PI..PI,
            b in (-FRAC_PI_2 + 0.01)..(FRAC_PI_2 - 0.01),
            c in -PI..PI,
        ) {
            let order = EulerOrder::ALL[order_index];
            let angles = DVec3::new(a, b, c);
            let back = order.from_dquat(order.to_dquat(angles));
            prop_assert!((back - angles).abs().max_element() < 1e-9, "{order}: {angles} -> {back}");
        }

        #[test]
        fn quaternion_matches_matrix_product(
            order_index in 0usize..6,
            a in -4.0f64..4.0, b in -4.0f64..4.0, c in -4.0f64..4.0,
        ) {
            let order = EulerOrder::ALL[order_index];
            let angles = DVec3::new(a, b, c);
            let q = order.to_dquat(angles);
            let m = matrix_product(order, angles);
            prop_assert!(DMat3::from_quat(q).abs_diff_eq(m, 1e-12));
        }

        #[test]
        fn decomposition_reproduces_any_rotation(
            order_index in 0usize..6,
            x in -1.0f64..1.0, y in -1.0f64..1.0, z in -1.0f64..1.0, w in -1.0f64..1.0,
        ) {
            let q = DQuat::from_xyzw(x, y, z, w);
            prop_assume!(q.length() > 1e-3);
            let q = q.normalize();
            let order = EulerOrder::ALL[order_index];
            let back = order.to_dquat(order.from_dquat(q));
            prop_assert!(rotation_angle(q, back) < 1e-7);
        }
    }

    #[test]
    fn gimbal_lock_still_reproduces_the_rotation() {
        for order in EulerOrder::ALL {
            for b in [FRAC_PI_2, -FRAC_PI_2] {
                let q = order.to_dquat(DVec3::new(0.3, b, -0.7));
                let back = order.to_dquat(order.from_dquat(q));
                assert!(rotation_angle(q, back) < 1e-6, "{order} at {b}");
            }
        }
    }

    #[test]
    fn completing_orders_put_given_axes_first() {
        assert_eq!(EulerOrder::completing(&[Axis::Z]), Some(EulerOrder::ZXY));
        assert_eq!(
            EulerOrder::completing(&[Axis::Y, Axis::X]),
            Some(EulerOrder::YXZ)
        );
        assert_eq!(EulerOrder::completing(&[Axis::X, Axis::X]), None);
    }
}
