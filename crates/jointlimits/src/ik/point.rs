//! Points of any dimension, as constraint relaxation and FABRIK see them.
//!
//! The position passes only add, scale and take dot products, so they are written once over
//! [`ChainPoint`] and run on 2D, 3D and 4D vectors alike.

use glam::{Vec2, Vec3, Vec4};
use std::ops::{Add, Mul, Sub};

/// A point (or displacement) in a Euclidean space of any dimension.
pub trait ChainPoint:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<f32, Output = Self>
{
    /// The origin.
    const ZERO: Self;

    /// The dot product.
    fn dot(self, other: Self) -> f32;

    /// A unit vector perpendicular to `self` (any one; deterministic). For the zero vector, any
    /// unit vector.
    fn any_perpendicular(self) -> Self;

    /// Every coordinate is finite.
    fn is_finite(self) -> bool;

    /// The squared length.
    #[inline]
    fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// The Euclidean length.
    #[inline]
    fn length(self) -> f32 {
        self.dot(self).sqrt()
    }
}

impl ChainPoint for Vec2 {
    const ZERO: Self = Vec2::ZERO;

    #[inline]
    fn dot(self, other: Self) -> f32 {
        Vec2::dot(self, other)
    }

    fn any_perpendicular(self) -> Self {
        self.perp().try_normalize().unwrap_or(Vec2::Y)
    }

    #[inline]
    fn is_finite(self) -> bool {
        Vec2::is_finite(self)
    }
}

impl ChainPoint for Vec3 {
    const ZERO: Self = Vec3::ZERO;

    #[inline]
    fn dot(self, other: Self) -> f32 {
        Vec3::dot(self, other)
    }

    fn any_perpendicular(self) -> Self {
        self.try_normalize()
            .map_or(Vec3::X, |unit| unit.any_orthonormal_vector())
    }

    #[inline]
    fn is_finite(self) -> bool {
        Vec3::is_finite(self)
    }
}

impl ChainPoint for Vec4 {
    const ZERO: Self = Vec4::ZERO;

    #[inline]
    fn dot(self, other: Self) -> f32 {
        Vec4::dot(self, other)
    }

    fn any_perpendicular(self) -> Self {
        // Gram–Schmidt on the basis vector least aligned with `self`.
        let Some(unit) = self.try_normalize() else {
            return Vec4::X;
        };
        let abs = unit.abs();
        let axis = if abs.x <= abs.y && abs.x <= abs.z && abs.x <= abs.w {
            Vec4::X
        } else if abs.y <= abs.z && abs.y <= abs.w {
            Vec4::Y
        } else if abs.z <= abs.w {
            Vec4::Z
        } else {
            Vec4::W
        };
        (axis - unit * unit.dot(axis)).normalize()
    }

    #[inline]
    fn is_finite(self) -> bool {
        Vec4::is_finite(self)
    }
}
