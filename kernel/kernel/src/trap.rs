//! The kernel's single entry point after the assembly stubs.
//!
//! Every trap arrives here with the interrupted registers. From a task:
//! save them, act (syscall, fault, interrupt), pick who runs next, and
//! leave that task's registers in the frame. From the kernel itself: an
//! exception is a kernel bug and stops the machine with a report.

use crate::arch::trap::{TrapFrame, SYSCALL_VECTOR};
use crate::arch::{apic, machine};
use crate::fault::Report;
use crate::sched::KERNEL;
use crate::syscall::{self, Effect};
use crate::task::State;
use crate::{arch, kprintln};
use conflux_abi::exit::Verdict;

/// First vector of hardware interrupts.
const IRQ_BASE: u64 = 32;

#[no_mangle]
extern "C" fn trap_dispatch(frame: &mut TrapFrame) {
    if !frame.is_from_user() {
        return kernel_trap(frame);
    }
    let mut k = KERNEL.lock();
    k.current().ctx = *frame;
    let effect = match frame.vector {
        SYSCALL_VECTOR => syscall::handle(k.current()),
        v if v < IRQ_BASE => {
            let report = Report {
                frame,
                cr2: arch::fault_address(),
            };
            let t = k.current();
            kprintln!(
                "task '{}' faulted: {report}; task stopped, other tasks continue",
                t.name
            );
            let dead = k.end_current(State::Faulted);
            k.switch(frame);
            if let Some(space) = dead {
                space.destroy();
            }
            return;
        }
        v if v == apic::TIMER_VECTOR as u64 => {
            apic::eoi();
            Effect::Yield // preemption: the tick ends the task's turn
        }
        _ => Effect::Resume, // spurious, or a line nobody has claimed yet
    };
    match effect {
        Effect::Resume => *frame = k.current().ctx,
        Effect::Yield => k.switch(frame),
        Effect::Exit(code) => {
            kprintln!("task '{}' exited with code {code}", k.current().name);
            let dead = k.end_current(State::Exited(code));
            k.switch(frame);
            if let Some(space) = dead {
                space.destroy();
            }
        }
    }
}

/// A trap taken while the kernel itself was running.
fn kernel_trap(frame: &mut TrapFrame) {
    if frame.vector >= IRQ_BASE {
        // The kernel runs with interrupts off, so this only happens if it
        // ever idles with them on; acknowledge and carry on.
        if frame.vector == apic::TIMER_VECTOR as u64 {
            apic::eoi();
        }
        return;
    }
    let report = Report {
        frame,
        cr2: arch::fault_address(),
    };
    // Never block or panic here: the kernel may have faulted holding the
    // lock, or before any task existed.
    let task = KERNEL
        .try_lock()
        .and_then(|k| k.tasks.get(k.current)?.as_ref().map(|t| t.name))
        .unwrap_or("none");
    crate::console::print_forced(format_args!(
        "conflux: KERNEL FAULT: {report} (kernel mode, last task '{task}')\nconflux: stopping the machine: this is a kernel bug; the line above names the instruction\n"
    ));
    machine::exit(Verdict::KernelFault)
}
