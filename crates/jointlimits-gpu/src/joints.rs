//! Each joint's limit as the shader reads it: twelve `vec4<f32>` (the `Joint` struct of
//! `crowd.wgsl`), and what kernels look up: polytopes' tables, and the proven cells of the joints
//! limited on the host.

use glam::{Vec3, Vec4};
use jointlimits::prepared::PreparedLimit;
use jointlimits::region::covers::Ball;
use jointlimits::rotation_cells::InsideCells;
use jointlimits::shape::polytope::PolytopeTables;
use jointlimits::shape::{Frame, Polytope, Shape};
use jointlimits::{JointLimit, LimitRegion};

/// Floats per joint: twelve vec4.
pub const FLOATS_PER_JOINT: usize = 48;

/// Rows (vec4) per joint.
const ROWS: usize = FLOATS_PER_JOINT / 4;

/// The shader's kind codes (`center.w`).
const UNLIMITED: f32 = 0.0;
const BOX: f32 = 1.0;
const ELLIPSOID: f32 = 2.0;
/// Corrected on the host; the kernel tests the joint's proven cells.
const CELLS: f32 = 3.0;
/// Corrected on the host with no test on the GPU.
const HOST: f32 = 4.0;
/// Swing-twist limits whose swing shape is a box or an ellipsoid.
const SWING_TWIST_BOX: f32 = 5.0;
const SWING_TWIST_ELLIPSOID: f32 = 6.0;
/// A full-space k-DOP or convex hull.
const POLYTOPE: f32 = 7.0;
/// A hinge.
const HINGE: f32 = 8.0;

/// How the crowd limits one joint.
#[derive(Clone, Debug)]
enum Kernel {
    /// No limit.
    Unlimited,
    /// A native kernel (see [`native`]): the joint's rows, and how far the shape reaches from
    /// the origin, which the eighth row holds with the switch margin
    /// and whether the stateless answer takes the short cover only (swing cones and spherical
    /// ellipses, as they do: their centred swing regions make it at least as near).
    Native {
        rows: [[f32; 4]; ROWS],
        reach: f32,
        short_cover_only: bool,
    },
    /// On the host, after the kernel passed the rotations in the joint's proven cells: the
    /// offsets (in `u32`) of its coarse cells and blocks in the lookup buffer.
    Cells { coarse: u32, blocks: u32 },
    /// On the host, every rotation.
    Host,
}

/// Every joint's kernel and the lookup buffer they read.
#[derive(Clone, Debug)]
pub(crate) struct Kernels {
    kernels: Vec<Kernel>,
    /// What kernels look up, one joint's after another: the tables of polytopes
    /// ([`append_polytope`]) and the proven cells of the `Cells` joints (coarse cells two to a
    /// word, the even one in the low half, then blocks of sixteen words, each 64-bit word's low
    /// half first).
    lookup: Vec<u32>,
}

impl Kernels {
    /// The kernel of each joint: native for full-space and swing-twist boxes and ellipsoids,
    /// swing cones and spherical ellipses, full-space k-DOPs and hulls, and hinges
    /// (unsoftened); for
    /// other kinds with proven cells ([`PreparedLimit`]: swing-twist polytopes, tables, reach
    /// cones, Euler ranges, softened shapes), the cells, proven here (a fraction of a second per
    /// joint); the host for the rest.
    pub(crate) fn new(limits: &[Option<JointLimit>]) -> Kernels {
        let mut lookup = Vec::new();
        let kernels = limits
            .iter()
            .map(|limit| match limit {
                None => Kernel::Unlimited,
                // Softening moves only rotations outside: the cells hold for softened limits.
                Some(limit) => native(limit, &mut lookup).unwrap_or_else(|| {
                    match PreparedLimit::new(limit.clone()).inside_cells() {
                        // Offsets stay whole numbers a float holds exactly; past that, the
                        // host tests the joint's rotations itself.
                        Some(proven) if lookup.len() + cell_words(proven) <= MOST_LOOKUP_WORDS => {
                            append_cells(&mut lookup, proven)
                        }
                        _ => Kernel::Host,
                    }
                }),
            })
            .collect();
        if lookup.is_empty() {
            // A storage buffer may not be empty.
            lookup.push(0);
        }
        Kernels { kernels, lookup }
    }

    /// The joints packed for the shader, with the switch margin `margin`.
    pub(crate) fn pack(&self, margin: f32) -> Vec<f32> {
        let mut packed = Vec::with_capacity(self.kernels.len().max(1) * FLOATS_PER_JOINT);
        for kernel in &self.kernels {
            let mut rows = [[0.0; 4]; ROWS];
            match *kernel {
                Kernel::Unlimited => rows[4][3] = UNLIMITED,
                Kernel::Native {
                    rows: native,
                    reach,
                    short_cover_only,
                } => {
                    rows = native;
                    rows[7] = [reach, margin, f32::from(u8::from(short_cover_only)), 0.0];
                }
                Kernel::Cells { coarse, blocks } => {
                    // Whole numbers below 2²⁴ (`Kernels::new`), exact as floats.
                    rows[4][3] = CELLS;
                    rows[7] = [0.0, margin, coarse as f32, blocks as f32];
                }
                Kernel::Host => rows[4][3] = HOST,
            }
            packed.extend(rows.as_flattened());
        }
        if packed.is_empty() {
            packed.extend([0.0; FLOATS_PER_JOINT]);
        }
        packed
    }

    /// The polytopes and proven cells of the joints that have them, as the shader reads them.
    pub(crate) fn lookup(&self) -> &[u32] {
        &self.lookup
    }

    /// Whether joint `joint` is limited on the host.
    pub(crate) fn on_host(&self, joint: usize) -> bool {
        matches!(self.kernels[joint], Kernel::Cells { .. } | Kernel::Host)
    }

    /// Whether any joint's rotations are tested against proven cells.
    pub(crate) fn any_cells(&self) -> bool {
        self.kernels
            .iter()
            .any(|kernel| matches!(kernel, Kernel::Cells { .. }))
    }
}

/// The native kernel of a full-space or swing-twist box or ellipsoid (swing cones and spherical
/// ellipses as the swing-twist ellipsoids they are), a full-space k-DOP or hull, or a hinge,
/// with no softening (a polytope's tables appended to `lookup`, unless they would take it
/// past the offsets a float holds exactly); `None` for a region reaching past a full turn.
fn native(limit: &JointLimit, lookup: &mut Vec<u32>) -> Option<Kernel> {
    if limit.softening.is_some() {
        return None;
    }
    if let LimitRegion::Hinge(hinge) = &limit.region {
        // The reference, the kind, the range's ends and the axis (see `crowd.wgsl`'s `Joint`).
        let mut rows = [[0.0; 4]; ROWS];
        rows[0] = limit.reference.to_array();
        rows[4][3] = HINGE;
        rows[8][3] = hinge.min;
        rows[9][3] = hinge.max;
        rows[10] = hinge.axis.extend(0.0).to_array();
        return Some(Kernel::Native {
            rows,
            reach: 0.0,
            short_cover_only: false,
        });
    }
    // Swing cones and spherical ellipses are swing-twist limits with an elliptic swing.
    let converted;
    let swing_twist = match &limit.region {
        LimitRegion::SwingTwist(st) => Some(st),
        LimitRegion::Cone(cone) => {
            converted = cone.as_swing_twist()?;
            Some(&converted)
        }
        LimitRegion::SphericalEllipse(ellipse) => {
            converted = ellipse.as_swing_twist()?;
            Some(&converted)
        }
        _ => None,
    };
    let (shape, ball, codes) = match (&limit.region, swing_twist) {
        (LimitRegion::Full(full), _) => (full.shape(), full.ball(), (BOX, ELLIPSOID)),
        (_, Some(st)) => (
            st.swing(),
            st.ball(),
            (SWING_TWIST_BOX, SWING_TWIST_ELLIPSOID),
        ),
        _ => return None,
    };
    if ball.passes_full_turn() {
        // Projections onto the part within a full turn are a search the host makes
        // (`covers::within_full_turn`); only hand-written regions reach that far.
        return None;
    }
    // The frame, the kind, and the fifth and sixth rows (see `crowd.wgsl`'s `Joint`).
    let (frame, kind, low, high) = match (shape, swing_twist) {
        (Shape::Box(b), _) => (b.frame, codes.0, b.min.extend(0.0), b.max.extend(0.0)),
        (Shape::Ellipsoid(e), _) => (
            e.frame,
            codes.1,
            e.semi_axes.extend(0.0),
            e.semi_axes.extend(0.0),
        ),
        (Shape::Kdop(s), None) => polytope_rows(s.frame, s.polytope(), ball, lookup)?,
        (Shape::Hull(s), None) => polytope_rows(s.frame, s.polytope(), ball, lookup)?,
        _ => return None,
    };
    let axes = frame.rotation;
    let mut rows = [[0.0; 4]; ROWS];
    rows[..7].copy_from_slice(&[
        limit.reference.to_array(),
        axes.x_axis.extend(0.0).to_array(),
        axes.y_axis.extend(0.0).to_array(),
        axes.z_axis.extend(0.0).to_array(),
        frame.center.extend(kind).to_array(),
        low.to_array(),
        high.to_array(),
    ]);
    if let Some(st) = swing_twist {
        let basis = st.swing_basis;
        rows[8] = basis.x_axis.extend(st.twist.min).to_array();
        rows[9] = basis.y_axis.extend(st.twist.max).to_array();
        rows[10] = st.twist_axis.extend(0.0).to_array();
        rows[11] = basis.z_axis.extend(0.0).to_array();
    }
    Some(Kernel::Native {
        rows,
        reach: ball.reach,
        short_cover_only: matches!(
            limit.region,
            LimitRegion::Cone(_) | LimitRegion::SphericalEllipse(_)
        ),
    })
}

/// A polytope's frame, kind and rows: where its tables start in `lookup` (appended there, as a
/// whole float below 2²⁴), and its bounding ball; `None` when they would not fit.
fn polytope_rows(
    frame: Frame,
    polytope: &Polytope,
    ball: &Ball,
    lookup: &mut Vec<u32>,
) -> Option<(Frame, f32, Vec4, Vec4)> {
    let tables = polytope.tables();
    if lookup.len() + polytope_words(&tables) > MOST_LOOKUP_WORDS {
        return None;
    }
    let base = append_polytope(lookup, &tables);
    Some((
        frame,
        POLYTOPE,
        Vec4::new(base as f32, 0.0, 0.0, 0.0),
        ball.center.extend(ball.radius),
    ))
}

/// Words per face in a polytope's tables: normal, offset, first and end edge, two unused.
const FACE_WORDS: usize = 8;
/// Words per edge: start, vector, inward direction, unit direction, face, ends, twin.
const EDGE_WORDS: usize = 16;
/// Words per vertex: position, first and end leaving edge, whether its fan closes.
const VERTEX_WORDS: usize = 6;
/// Words of a polytope's header: its counts and where its tables start.
const HEADER_WORDS: usize = 8;

/// The words `tables` take in the lookup buffer.
fn polytope_words(tables: &PolytopeTables) -> usize {
    HEADER_WORDS
        + tables.normals.len() * FACE_WORDS
        + tables.edge_start.len() * EDGE_WORDS
        + tables.vertices.len() * VERTEX_WORDS
        + tables.leaving.len()
}

/// Appends a polytope's tables to the lookup buffer (offsets within it absolute, in words);
/// where its header starts.
fn append_polytope(lookup: &mut Vec<u32>, tables: &PolytopeTables) -> u32 {
    let base = lookup.len();
    let faces = base + HEADER_WORDS;
    let edges = faces + tables.normals.len() * FACE_WORDS;
    let vertices = edges + tables.edge_start.len() * EDGE_WORDS;
    let leaving = vertices + tables.vertices.len() * VERTEX_WORDS;
    let word = |i: usize| i as u32;
    let bits = |v: Vec3| v.to_array().map(f32::to_bits);
    lookup.extend([
        word(tables.normals.len()),
        word(faces),
        word(edges),
        word(vertices),
        word(leaving),
        0,
        0,
        0,
    ]);
    for (face, (&normal, &offset)) in tables.normals.iter().zip(tables.offsets).enumerate() {
        lookup.extend(bits(normal));
        lookup.extend([
            offset.to_bits(),
            tables.edge_range[face],
            tables.edge_range[face + 1],
            0,
            0,
        ]);
    }
    for e in 0..tables.edge_start.len() {
        for v in [
            tables.edge_start[e],
            tables.edge_vector[e],
            tables.edge_inward[e],
            tables.edge_direction[e],
        ] {
            lookup.extend(bits(v));
        }
        let [from, to] = tables.edge_ends[e];
        lookup.extend([tables.edge_face[e], from, to, tables.edge_twin[e]]);
    }
    for (v, &position) in tables.vertices.iter().enumerate() {
        lookup.extend(bits(position));
        lookup.extend([
            tables.leaving_range[v],
            tables.leaving_range[v + 1],
            u32::from(tables.closed_fan[v]),
        ]);
    }
    lookup.extend(tables.leaving);
    debug_assert_eq!(lookup.len() - base, polytope_words(tables));
    base as u32
}

/// Most words of the lookup buffer: offsets below 2²⁴ are exact as floats (64 MiB: about 250
/// joints' proven cells).
const MOST_LOOKUP_WORDS: usize = 1 << 24;

/// The words `proven` takes in the lookup buffer.
fn cell_words(proven: &InsideCells) -> usize {
    proven.coarse_cells().len().div_ceil(2) + proven.blocks().len() * 16
}

/// Appends `proven` to the lookup buffer; its kernel.
fn append_cells(lookup: &mut Vec<u32>, proven: &InsideCells) -> Kernel {
    let coarse = lookup.len() as u32;
    lookup.extend(
        proven
            .coarse_cells()
            .chunks(2)
            .map(|pair| u32::from(pair[0]) | u32::from(pair.get(1).copied().unwrap_or(0)) << 16),
    );
    let blocks = lookup.len() as u32;
    for block in proven.blocks() {
        for &word in block {
            lookup.extend([word as u32, (word >> 32) as u32]);
        }
    }
    Kernel::Cells { coarse, blocks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jointlimits::rotation_cells::{COARSE, FINE, FINE_PER_UNIT, NORM_SLACK, REACH};

    #[test]
    fn unlimited_joints_pack_as_zeros() {
        let kernels = Kernels::new(&[None, None]);
        let packed = kernels.pack(0.1);
        assert_eq!(packed.len(), 2 * FLOATS_PER_JOINT);
        assert!(packed.iter().all(|&v| v == UNLIMITED));
        assert!(!kernels.any_cells());
    }

    /// The shader's copy of the cells' layout (`crowd.wgsl`) is the library's.
    #[test]
    fn the_shader_reads_the_cells_layout_of_the_library() {
        let shader = include_str!("crowd.wgsl");
        for (name, value) in [
            ("COARSE_CELLS", format!("{COARSE}u")),
            ("FINE_CELLS", format!("{FINE}u")),
            ("CELLS_REACH", format!("{REACH:?}")),
            ("FINE_PER_UNIT", format!("{FINE_PER_UNIT:?}")),
            ("NORM_SLACK", format!("{NORM_SLACK:?}")),
        ] {
            let line = format!("const {name}: ");
            let declared = shader
                .lines()
                .find_map(|l| l.strip_prefix(&line))
                .unwrap_or_else(|| panic!("the shader declares {name}"));
            let declared = declared.split_once("= ").unwrap().1.trim_end_matches(';');
            assert_eq!(declared, value, "{name}");
        }
    }
}
