//! Kernel panics: report with the source location and stop the machine.

use crate::arch::machine;
use conflux_abi::exit::Verdict;

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    x86_64::instructions::interrupts::disable();
    let (file, line) = info.location().map_or(("?", 0), |l| (l.file(), l.line()));
    crate::console::print_forced(format_args!(
        "conflux: KERNEL PANIC at {file}:{line}: {}\nconflux: stopping the machine: this is a kernel bug\n",
        info.message()
    ));
    machine::exit(Verdict::KernelFault)
}
