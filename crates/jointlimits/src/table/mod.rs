//! Lookup-table limits: allowed bone directions, twist ranges, stress and break margins stored
//! on a grid over the sphere of directions.

pub mod boundary;
pub mod grid;
pub mod octahedral;
pub mod swing_set;

pub use boundary::BoundaryChains;
pub use grid::VertexGrid;
pub use octahedral::OctahedralMap;
pub use swing_set::SwingSet;
