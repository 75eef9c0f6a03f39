//! Fresh: a restarted task must get fresh memory, not its last
//! incarnation's. Each incarnation checks that its `.data` static holds its
//! initial value, and its `.bss` statics, unused heap and deep stack are
//! zero; the first incarnation then scribbles on all of them and faults,
//! so init restarts it. The counter carries the incarnation number and the
//! failures across the restart.
//!
//! Not `forbid(unsafe_code)`: reading and writing the heap and stack
//! outside any Rust object needs raw pointers (see the `// Safety:` notes).
#![no_std]
#![no_main]

use conflux_abi::layout::{HEAP_BASE, USER_STACK_TOP};
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

conflux_userlib::entry!(main);

const DATA_INIT: u64 = 0x1234_5678_9abc_def0;
static DATA: AtomicU64 = AtomicU64::new(DATA_INIT);
static BSS: [AtomicU64; 1024] = [const { AtomicU64::new(0) }; 1024];
const SCRIBBLE: u64 = 0xdead_beef_dead_beef;

/// Heap bytes the allocator never touches: this task never allocates, and
/// the allocator (talc) keeps its bookkeeping at the two ends of its one
/// free chunk: the first page and the last.
const HEAP_FREE: (u64, u64) = (
    HEAP_BASE + 4096,
    HEAP_BASE + config::HEAP_SIZE as u64 - 4096,
);
const _: () = assert!(
    config::HEAP_SIZE >= 3 * 4096,
    "the fresh test needs a heap of at least three pages: one for each end's bookkeeping, one to check"
);
/// The lower half of the stack: far below the deepest frame this task uses.
const STACK_DEEP: (u64, u64) = (
    USER_STACK_TOP - config::STACK_SIZE as u64,
    USER_STACK_TOP - config::STACK_SIZE as u64 / 2,
);

/// Labels understood by test-counter.
const NEXT: u32 = 1;
const STOP: u32 = 2;
const REPORT: u32 = 3;
const CHECKS_PER_INCARNATION: u64 = 4;

/// The first word in `[start, end)` that is not zero, as (address, value).
fn first_nonzero((start, end): (u64, u64)) -> Option<(u64, u64)> {
    (start..end).step_by(8).find_map(|a| {
        // Safety: the range is mapped, writable memory of this task (heap
        // or stack) that holds no Rust object (see HEAP_FREE, STACK_DEEP).
        let v = unsafe { core::ptr::read_volatile(a as *const u64) };
        (v != 0).then_some((a, v))
    })
}

fn scribble((start, end): (u64, u64)) {
    for a in (start..end).step_by(8) {
        // Safety: as in `first_nonzero`.
        unsafe { core::ptr::write_volatile(a as *mut u64, SCRIBBLE) };
    }
}

/// Prints one check; returns 1 if it failed.
fn check<T: PartialEq + core::fmt::Debug>(incarnation: u64, what: &str, got: T, want: T) -> u64 {
    if got == want {
        println!("ok: incarnation {incarnation}: {what}: {got:?}");
        0
    } else {
        println!("CHECK FAILED: incarnation {incarnation}: {what}: got {got:?}, expected {want:?}");
        1
    }
}

fn pristine(i: u64) -> u64 {
    let bss = BSS.iter().map(|w| w.load(Relaxed)).find(|&v| v != 0);
    check(
        i,
        ".data static holds its initial value",
        DATA.load(Relaxed),
        DATA_INIT,
    ) + check(i, ".bss statics are zero (first non-zero)", bss, None)
        + check(
            i,
            "unused heap is zero (first non-zero)",
            first_nonzero(HEAP_FREE),
            None,
        )
        + check(
            i,
            "deep stack is zero (first non-zero)",
            first_nonzero(STACK_DEEP),
            None,
        )
}

fn main() {
    let count = Endpoint(config::caps::COUNT);
    let Ok(m) = count.call(&Message::new(NEXT, &[0])) else {
        println!("CHECK FAILED: the counter answers");
        return;
    };
    let (incarnation, before) = (m.words[0], m.words[1]);
    let failed = pristine(incarnation);
    if incarnation == 0 {
        DATA.store(SCRIBBLE, Relaxed);
        BSS.iter().for_each(|w| w.store(SCRIBBLE, Relaxed));
        scribble(HEAP_FREE);
        scribble(STACK_DEEP);
        let _ = count.call(&Message::new(REPORT, &[failed]));
        println!("scribbled on statics, heap and stack; faulting to be restarted");
        conflux_userlib::testing::fault_on_purpose();
    }
    let _ = count.call(&Message::new(STOP, &[failed]));
    let (failed, total) = (before + failed, 2 * CHECKS_PER_INCARNATION);
    if failed == 0 {
        println!("all {total} checks passed");
    } else {
        println!("{failed} of {total} checks FAILED");
    }
    conflux_userlib::sys::exit(failed);
}
