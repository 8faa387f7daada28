//! Peak heap use of reading a BVH file stays within three times the file size.
//!
//! This test binary installs a counting allocator, so it holds this one test only: other tests
//! running in parallel would disturb the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(now, Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn reading_a_file_peaks_below_three_times_its_size() {
    let Some(files) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    for path in files {
        let size = std::fs::metadata(&path).unwrap().len() as usize;
        let baseline = CURRENT.load(Ordering::SeqCst);
        PEAK.store(baseline, Ordering::SeqCst);
        let bvh = jointlimits_io::read_bvh_file(&path).unwrap();
        let parsed_peak = PEAK.load(Ordering::SeqCst) - baseline;
        let motion = bvh.to_motion();
        let total_peak = PEAK.load(Ordering::SeqCst) - baseline;
        println!(
            "{}: {size} bytes, peak {:.2}x while parsing, {:.2}x with quaternions",
            path.display(),
            parsed_peak as f64 / size as f64,
            total_peak as f64 / size as f64
        );
        assert!(parsed_peak <= 3 * size, "{}", path.display());
        assert!(total_peak <= 3 * size, "{}", path.display());
        drop((bvh, motion));
    }
}
