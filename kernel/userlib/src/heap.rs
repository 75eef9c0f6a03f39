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
//! (`try_reserve`) get their error as before. First, though, the heap
//! says what it holds (talc's counters): bytes in use and in how many
//! allocations, bytes free and in how many holes. That line tells a
//! heap too small (little free) from one cut into holes (much free, in
//! many pieces) — which a soak test needed to know and could not.

use core::alloc::{GlobalAlloc, Layout};

use conflux_abi::layout::{HEAP_BASE, PAGE_SIZE};
use talc::source::Manual;
use talc::{min_first_heap_size, DefaultBinning, TalcLock};

/// A task has one thread, so the lock is never contended; it exists
/// because a global allocator must be `Sync`.
type Lock = spin::mutex::SpinMutex<()>;

/// talc, reporting its state when it cannot satisfy a request.
struct Heap(TalcLock<Lock, Manual>);

// Under host unit tests the test harness keeps the system allocator.
#[cfg_attr(not(test), global_allocator)]
static HEAP: Heap = Heap(TalcLock::new(Manual));

// Safety: every call is forwarded to talc's own `GlobalAlloc` with the
// caller's arguments unchanged; the report only reads talc's counters.
unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Safety: the caller's contract is talc's.
        let p = unsafe { self.0.alloc(layout) };
        if p.is_null() {
            self.report(layout.size(), layout.align());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // Safety: the caller's contract is talc's.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if p.is_null() {
            self.report(layout.size(), layout.align());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // Safety: the caller's contract is talc's.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Safety: the caller's contract is talc's.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if p.is_null() {
            self.report(new_size, layout.align());
        }
        p
    }
}

impl Heap {
    /// One line on the console: the request that failed and the heap's
    /// state (no allocation: `println!` formats into a stack buffer).
    #[cold]
    fn report(&self, size: usize, align: usize) {
        let c = *self.0.lock().counters();
        crate::println!(
            "heap: no free chunk for {size} bytes (align {align}): {} of {} bytes in use in {} allocations, {} bytes free in {} holes",
            c.allocated_bytes,
            c.claimed_bytes,
            c.allocation_count,
            c.available_bytes,
            c.fragment_count
        );
    }
}

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
    // the task's configuration section), nothing else uses that range, and this
    // runs once, before `main` can allocate.
    let claimed = unsafe { HEAP.0.lock().claim(HEAP_BASE as *mut u8, heap_size) };
    if claimed.is_none() {
        panic!(
            "heap: talc could not claim the {heap_size} bytes at {HEAP_BASE:#x} the manifest gives this task (it needs at least {} for its bins)",
            min_first_heap_size::<DefaultBinning>()
        );
    }
}
