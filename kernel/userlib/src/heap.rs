//! The task's heap: `talc` over the region the kernel mapped at
//! `HEAP_BASE` (the manifest's `heap_size`).
//!
//! Why talc and not the first-fit `linked_list_allocator` it replaced:
//! first fit walks every free hole below the one that fits, so once a
//! server keeps thousands of small objects alive among short-lived 4 KiB
//! buffers (rsext4's, per read and write), every allocation pays for the
//! holes they leave: the file server's cached dbsim took twice the
//! instructions it takes on talc. talc keeps its free chunks in size-class
//! bins with a bitmap of the non-empty ones, so an allocation takes the
//! head of the first non-empty bin that fits, whatever else lives on the
//! heap, and a free merges with its neighbours through boundary tags
//! without a walk (figures in `docs/PERFORMANCE.md`, "guest heap").
//!
//! A failed allocation still returns null to the global-allocator
//! interface, so `alloc`'s error handler panics with its own message
//! (`memory allocation of N bytes failed`), and fallible callers
//! (`try_reserve`) get their error as before.

use conflux_abi::layout::{HEAP_BASE, PAGE_SIZE};
use talc::source::Manual;
use talc::{min_first_heap_size, DefaultBinning, TalcLock};

/// A task has one thread, so the lock is never contended; it exists
/// because a global allocator must be `Sync`.
type Lock = spin::mutex::SpinMutex<()>;

// Under host unit tests the test harness keeps the system allocator.
#[cfg_attr(not(test), global_allocator)]
static HEAP: TalcLock<Lock, Manual> = TalcLock::new(Manual);

// talc keeps its bins' list heads at the start of the first region it is
// given; one page must hold them, so any non-empty heap the manifest
// allows (whole pages) can be claimed.
const _: () = assert!(min_first_heap_size::<DefaultBinning>() as u64 <= PAGE_SIZE);

/// Hands the `heap_size` bytes at `HEAP_BASE` to the allocator; with 0
/// the task has no heap and every allocation fails.
pub(crate) fn init(heap_size: usize) {
    if heap_size == 0 {
        return;
    }
    // Safety: the kernel maps `heap_size` zeroed, writable bytes at
    // HEAP_BASE for this task (the manifest's heap_size, passed in from
    // the generated constants), nothing else uses that range, and this
    // runs once, before `main` can allocate.
    let claimed = unsafe { HEAP.lock().claim(HEAP_BASE as *mut u8, heap_size) };
    if claimed.is_none() {
        panic!(
            "heap: talc could not claim the {heap_size} bytes at {HEAP_BASE:#x} the manifest gives this task (it needs at least {} for its bins)",
            min_first_heap_size::<DefaultBinning>()
        );
    }
}
