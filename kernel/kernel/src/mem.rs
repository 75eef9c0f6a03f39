//! Physical memory: the frame allocator filled from the boot memory map.

use crate::arch::paging::DIRECT_MAP_SIZE;
use conflux_kcore::frames::{FrameBitmap, FreeError};
use spin::Mutex;

const BITMAP_WORDS: usize = (DIRECT_MAP_SIZE / 4096 / 64) as usize;

static mut BITMAP: [u64; BITMAP_WORDS] = [0; BITMAP_WORDS];
static FRAMES: Mutex<Option<FrameBitmap<'static>>> = Mutex::new(None);

/// Builds the allocator: `free` yields usable RAM ranges, `reserved` yields
/// ranges in use (kernel, boot image, firmware data) to take back out.
pub fn init(free: impl Iterator<Item = (u64, u64)>, reserved: impl Iterator<Item = (u64, u64)>) {
    // Safety: called once during boot, before any other reference to BITMAP.
    let bits = unsafe { &mut *core::ptr::addr_of_mut!(BITMAP) };
    let mut fa = FrameBitmap::new(bits);
    for (start, end) in free {
        fa.add_free_range(start, end);
    }
    for (start, end) in reserved {
        fa.reserve_range(start, end);
    }
    *FRAMES.lock() = Some(fa);
}

/// One free 4 KiB frame (contents undefined), or `None` when memory is exhausted.
pub fn alloc_frame() -> Option<u64> {
    FRAMES.lock().as_mut()?.alloc()
}

/// `n` physically contiguous frames (contents undefined).
pub fn alloc_contiguous(n: usize) -> Option<u64> {
    FRAMES.lock().as_mut()?.alloc_contiguous(n)
}

/// Returns a frame to the allocator. `what` names it for the report: a
/// frame freed twice, or one that is not RAM, means the kernel's ownership
/// bookkeeping is broken, and carrying on would hand the same memory to
/// two owners — so it stops the machine with a panic that says which.
pub fn release(phys: u64, what: &str) {
    let result = match FRAMES.lock().as_mut() {
        Some(fa) => fa.free(phys),
        None => Err(FreeError::DoubleFree(phys)),
    };
    if let Err(e) = result {
        panic!("kernel bug while freeing {what}: {e}");
    }
}

/// Frames currently free.
pub fn free_frames() -> usize {
    FRAMES.lock().as_ref().map_or(0, |f| f.free_frames())
}
