//! Task start-up, heap and panic handling.

use conflux_abi::layout::HEAP_BASE;
use linked_list_allocator::LockedHeap;

// Under host unit tests the test harness keeps the system allocator.
#[cfg_attr(not(test), global_allocator)]
static HEAP: LockedHeap = LockedHeap::empty();

/// Runs `main` after setting up the heap the kernel mapped, then exits 0.
pub fn start(heap_size: usize, main: fn()) -> ! {
    if heap_size > 0 {
        // Safety: the kernel maps `heap_size` zeroed, writable bytes at
        // HEAP_BASE for this task (the manifest's heap_size, passed in from
        // the generated constants), and nothing else uses that range.
        unsafe { HEAP.lock().init(HEAP_BASE as *mut u8, heap_size) };
    }
    main();
    crate::sys::exit(0)
}

// Host unit tests (`cargo test -p conflux-userlib`) link std, which brings
// its own panic handler.
#[cfg(not(test))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    use core::sync::atomic::{AtomicBool, Ordering};
    /// Set by the first panic, so that a panic while printing the message
    /// (a `Display` impl that panics, say) ends the task instead of recursing.
    static PANICKING: AtomicBool = AtomicBool::new(false);
    // A panic is a fault, not an exit: the message goes to the console
    // (each line prefixed with the task's name, so the kernel's and the
    // supervisor's lines can point at it), then the kernel ends the task
    // and the supervisor applies the manifest's restart policy.
    if !PANICKING.swap(true, Ordering::Relaxed) {
        match info.location() {
            Some(l) => crate::println!("panicked at {}:{}: {}", l.file(), l.line(), info.message()),
            None => crate::println!("panicked: {}", info.message()),
        }
    }
    crate::sys::panic_stop()
}
