//! Lookup-table limits: allowed bone directions, twist ranges, stress and break margins stored
//! on a grid over the sphere of directions.

pub mod bake;
pub mod boundary;
pub mod bounds;
pub mod channels;
pub mod grid;
pub mod inside_cells;
pub mod limit;
pub mod octahedral;
pub mod packed;
pub mod record;
pub mod seeds;
pub mod swing_set;

pub use boundary::BoundaryChains;
pub use channels::Channel;
pub use grid::VertexGrid;
pub use limit::{RESOLUTIONS, TableLimit, TableValues};
pub use octahedral::OctahedralMap;
pub use swing_set::SwingSet;
