//! Table images: any bytes given to the PNG table-channel reader give levels or an error, never a
//! panic, and the levels fill the square.
#![no_main]

use jointlimits_io::table_images::decode_table_image;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok((side, codes)) = decode_table_image(bytes) {
        assert_eq!(codes.len(), (side as usize) * (side as usize));
    }
});
