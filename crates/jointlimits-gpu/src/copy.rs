//! Copies into and out of mapped GPU buffers, in pieces on rayon's current pool: one core does
//! not keep up with the bus (on an H100 machine, reading back 69 MB of poses took 11.7 ms on one
//! core and 3.1 ms in pieces).

use rayon::prelude::*;

/// The most bytes one task copies.
const PIECE: usize = 1 << 20;

/// Copies `from` into the mapped (write-only) range `to`, of the same length. (A write-only
/// range of unknown length cannot cross threads; one of a fixed length can, so the pieces are
/// arrays.)
pub(crate) fn copy_into_mapped(to: wgpu::WriteOnly<'_, [u8]>, from: &[u8]) {
    let (pieces, rest) = to.into_chunks::<PIECE>();
    let (from_pieces, from_rest) = from.split_at(from.len() - rest.len());
    rayon::in_place_scope(|scope| {
        for (to, from) in pieces.into_iter().zip(from_pieces.chunks_exact(PIECE)) {
            scope.spawn(move |_| wgpu::WriteOnly::<[u8]>::from(to).copy_from_slice(from));
        }
        let mut rest = rest;
        rest.copy_from_slice(from_rest);
    });
}

/// Copies the mapped range `from` into `to`, of the same length.
pub(crate) fn copy_out_of_mapped(to: &mut [u8], from: &[u8]) {
    to.par_chunks_mut(PIECE)
        .zip(from.par_chunks(PIECE))
        .for_each(|(to, from)| to.copy_from_slice(from));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_copies_move_every_byte_whatever_the_length() {
        for length in [0, 5, PIECE - 1, PIECE, PIECE + 3, 3 * PIECE + 7] {
            let from: Vec<u8> = (0..length).map(|i| (i * 31 + i / 251) as u8).collect();
            let mut into = vec![0u8; length];
            copy_into_mapped(wgpu::WriteOnly::from(&mut into[..]), &from);
            assert!(into == from, "into, {length} bytes");
            let mut out = vec![0u8; length];
            copy_out_of_mapped(&mut out, &from);
            assert!(out == from, "out of, {length} bytes");
        }
    }
}
