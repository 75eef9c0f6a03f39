//! The kernel's single entry point after the assembly stubs.
//!
//! Every trap arrives here with the interrupted registers. From a task:
//! save them, act (syscall, fault, interrupt), pick who runs next, and
//! leave that task's registers in the frame. From the idle loop: handle the
//! interrupt and pick a task. From the kernel itself: an exception is a
//! kernel bug and stops the machine with a report.

use crate::arch::machine;
use crate::arch::trap::{TrapFrame, SYSCALL_VECTOR};
use crate::fault::Report;
use crate::sched::{Kernel, KERNEL};
use crate::syscall::{self, Effect};
use crate::{arch, kprintln};
use arch::apic;
use conflux_abi::exit::Verdict;

/// First vector of hardware interrupts.
const IRQ_BASE: u64 = 32;
/// Device lines arrive on `IRQ_BASE + line` for these lines.
const DEVICE_VECTORS: core::ops::RangeInclusive<u64> = 33..=46;

/// Handles an interrupt vector; returns true if it should end the current turn.
fn interrupt(k: &mut Kernel, vector: u64) -> bool {
    if vector == apic::TIMER_VECTOR as u64 {
        apic::eoi();
        return true;
    }
    if DEVICE_VECTORS.contains(&vector) {
        k.interrupt((vector - IRQ_BASE) as u8);
        apic::eoi();
        return k.should_preempt();
    }
    false // spurious: no EOI
}

/// Ends the current task (exit or fault) and runs the next one.
fn end_task(k: &mut Kernel, frame: &mut TrapFrame, fault: Option<[u64; 4]>) {
    let dead = k.end_current(fault);
    k.switch(frame);
    if let Some(space) = dead {
        space.destroy();
    }
}

#[no_mangle]
extern "C" fn trap_dispatch(frame: &mut TrapFrame) {
    if !frame.is_from_user() {
        return kernel_trap(frame);
    }
    let mut k = KERNEL.lock();
    k.current().ctx = *frame;
    let effect = match frame.vector {
        SYSCALL_VECTOR => syscall::handle(&mut k),
        v if v < IRQ_BASE => {
            let cr2 = arch::fault_address();
            let report = Report { frame, cr2 };
            let t = k.current();
            kprintln!(
                "task '{}' faulted: {report}; task stopped, other tasks continue",
                t.name
            );
            let words = [
                k.current as u64,
                frame.vector | frame.error << 32,
                cr2,
                frame.rip,
            ];
            return end_task(&mut k, frame, Some(words));
        }
        v => {
            if interrupt(&mut k, v) {
                Effect::Yield
            } else {
                Effect::Resume
            }
        }
    };
    match effect {
        Effect::Resume if !k.should_preempt() => *frame = k.current().ctx,
        Effect::Resume | Effect::Yield | Effect::Block => k.switch(frame),
        Effect::Exit(code) => {
            kprintln!("task '{}' exited with code {code}", k.current().name);
            end_task(&mut k, frame, None);
        }
    }
}

/// A trap taken while the kernel itself was running (or idling).
fn kernel_trap(frame: &mut TrapFrame) {
    if frame.vector >= IRQ_BASE {
        let mut k = KERNEL.lock();
        interrupt(&mut k, frame.vector);
        if k.idle {
            k.switch(frame);
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
