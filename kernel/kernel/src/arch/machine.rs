//! Stopping the machine: QEMU's `isa-debug-exit` device, or halting forever
//! where that device is absent (real hardware, `cargo make run` without it).

use conflux_abi::exit::{Verdict, DEBUG_EXIT_PORT};
use x86_64::instructions::port::Port;

/// Reports `verdict` to QEMU, which exits; halts if nobody is listening.
pub fn exit(verdict: Verdict) -> ! {
    // Safety: writing the debug-exit port either stops QEMU or is ignored.
    unsafe { Port::<u32>::new(DEBUG_EXIT_PORT).write(verdict as u32) };
    halt_forever()
}

/// Disables interrupts and halts this CPU for good.
pub fn halt_forever() -> ! {
    loop {
        x86_64::instructions::interrupts::disable();
        x86_64::instructions::hlt();
    }
}
