//! Task start-up and panic handling.

/// Checks the task's configuration section, sets up the heap the kernel
/// mapped (its size from the section, so tasks of one crate may differ),
/// runs `main`, then exits 0.
pub fn start(main: fn()) -> ! {
    let heap_size = crate::task::start();
    crate::heap::init(heap_size);
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
