//! Lookup-table limits: allowed bone directions, twist ranges, stress and break margins stored
//! on a grid over the sphere of directions.

pub mod octahedral;

pub use octahedral::OctahedralMap;
