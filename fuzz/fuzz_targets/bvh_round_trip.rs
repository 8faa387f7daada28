//! Any bytes: the reader either refuses them with an error or reads a clip that the writer writes
//! and the reader reads back as the same clip, and that writes back as the same text.
#![no_main]

use jointlimits_io::bvh::parse_bvh_named;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(bvh) = parse_bvh_named(data, "fuzz.bvh") else {
        return;
    };
    let motion = bvh.to_motion();
    assert!(motion.rotations.iter().all(|q| q.is_finite()));
    let mut written = Vec::new();
    bvh.write(&mut written)
        .expect("a clip that was read can be written");
    let again = parse_bvh_named(&written, "written.bvh").expect("what was written reads back");
    assert_eq!(again.channels, bvh.channels);
    assert_eq!(again.skeleton, bvh.skeleton_as_written());
    assert_eq!(again.frame_time, bvh.frame_time);
    let same_bits = again
        .values
        .iter()
        .zip(&bvh.values)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same_bits && again.values.len() == bvh.values.len());
    let mut rewritten = Vec::new();
    again.write(&mut rewritten).unwrap();
    assert_eq!(rewritten, written, "writing is idempotent");
});
