//! The kernel's Rust entry points, called by the assembly stubs.
//!
//! From a task (its registers already saved in its context): a syscall, a
//! fault or an interrupt; each ends in a scheduling decision. From the
//! kernel itself: an interrupt that woke the idle loop, or an exception,
//! which is a kernel bug and stops the machine with a report. NMIs are
//! reported and otherwise ignored; double faults and machine checks stop
//! the machine.

use crate::arch::machine;
use crate::arch::trap::TrapFrame;
use crate::fault::Report;
use crate::sched::{finish, KERNEL};
use crate::x86::X86;
use crate::{arch, kprintln};
use arch::apic;
use conflux_abi::exit::Verdict;
use conflux_abi::ipc::{FaultKind, FaultMessage};
use conflux_kcore::{Kernel, Next};
use core::sync::atomic::{AtomicU64, Ordering};

/// First vector of hardware interrupts.
const IRQ_BASE: u64 = 32;
/// Device lines arrive on `IRQ_BASE + line`: ISA lines 1..=14 and PCI
/// INTx lines 16..=23 (line 15's vector is the APIC's spurious one).
fn is_device_vector(v: u64) -> bool {
    (33..=46).contains(&v) || (48..=55).contains(&v)
}

/// Handles interrupt `vector`: what the interrupted task should do next.
fn interrupt(k: &mut Kernel<X86>, vector: u64) -> Next {
    if vector == apic::TIMER_VECTOR as u64 {
        if arch::cpu::this().cpu == 0 {
            k.tick(); // counts the tick and fires task timers that are due
        }
        apic::eoi();
        return Next::Yield;
    }
    if vector == apic::WAKE_VECTOR as u64 || vector == apic::SHOOTDOWN_VECTOR as u64 {
        // A wake-up: the choice that follows sees the ready task. A
        // shootdown was answered on entry; if it ended the current task,
        // the choice that follows runs another.
        apic::eoi();
        return Next::Resume;
    }
    if is_device_vector(vector) {
        let line = (vector - IRQ_BASE) as u8;
        if line == conflux_abi::devices::CONSOLE_IRQ_LINE {
            arch::serial::receive_interrupt();
        }
        k.interrupt(line);
        apic::eoi();
        return Next::Resume;
    }
    if vector != apic::SPURIOUS_VECTOR as u64 {
        stray(vector);
        apic::eoi();
    }
    Next::Resume // the spurious vector gets no EOI
}

/// Vectors already reported by [`stray`], a bit each.
static STRAYS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Reports an interrupt on a vector nothing uses, once per vector (a
/// stray source could otherwise flood the console). The interrupted task
/// carries on: the interrupt was not its doing.
fn stray(vector: u64) {
    let (word, bit) = ((vector / 64) as usize % 4, 1u64 << (vector % 64));
    if STRAYS[word].fetch_or(bit, Ordering::Relaxed) & bit == 0 {
        kprintln!(
            "interrupt: unexpected vector {vector} on CPU {} (no device line, timer or IPI uses it); acknowledged and ignored, reported once per vector",
            arch::cpu::this().cpu
        );
    }
}

#[no_mangle]
extern "C" fn syscall_from_user() -> ! {
    let mut k = KERNEL
        .try_lock()
        .unwrap_or_else(crate::shootdown::lock_kernel);
    let pc = arch::cpu::this();
    // One test per entry picks the path: with every task on one CPU (see
    // `Placement::spread`) the entry carries none of the SMP work.
    if k.placement.spread() {
        syscall_here::<true>(&mut k, pc);
    } else {
        syscall_here::<false>(&mut k, pc);
    }
    drop(k);
    // Never returning lets the compiler skip saving registers for the
    // caller: the exit restores every register from the task's context.
    // Safety: `finish` pointed the per-CPU block at the frame to restore.
    unsafe { arch::trap::leave() }
}

/// One syscall's work under the lock; `SPREAD` is `Placement::spread`.
/// Only when tasks run on several CPUs can another CPU have stopped the
/// caller meanwhile, or a task made ready here belong to another CPU.
#[inline(always)]
fn syscall_here<const SPREAD: bool>(k: &mut Kernel<X86>, pc: &mut arch::cpu::PerCpu) {
    let next = if !SPREAD || entered_from_live(k, pc) {
        k.syscall_on::<SPREAD>(&mut pc.state)
    } else {
        Next::Block
    };
    finish::<SPREAD>(k, pc, next);
    if SPREAD {
        wake_others(k);
    }
}

#[no_mangle]
extern "C" fn trap_from_user() {
    // A shootdown is answered before the lock: its sender holds the lock
    // until every CPU has answered.
    crate::shootdown::answer_shootdown();
    let mut k = crate::shootdown::lock_kernel();
    let pc = arch::cpu::this();
    if !entered_from_live(&k, pc) {
        finish::<true>(&mut k, pc, Next::Block);
        wake_others(&mut k);
        return;
    }
    let cpu = &mut pc.state;
    let frame = k.task(cpu.current).ctx.frame;
    let next = if frame.vector < IRQ_BASE {
        let cr2 = arch::fault_address();
        let report = Report { frame: &frame, cr2 };
        kprintln!(
            "task '{}' faulted: {report}; task stopped, other tasks continue",
            k.task(cpu.current).name
        );
        let fault = FaultMessage {
            task: cpu.current as u32,
            kind: FaultKind::Exception,
            vector: frame.vector as u8,
            error: frame.error as u32,
            address: cr2,
            rip: frame.rip,
        };
        k.fault(cpu, fault)
    } else {
        interrupt(&mut k, frame.vector)
    };
    finish::<true>(&mut k, pc, next);
    wake_others(&mut k);
}

/// Whether the task this CPU entered from is still the instance it ran.
/// Another CPU may have stopped it (`task_stop`), and its supervisor
/// restarted it, while this CPU waited for the lock; then the saved frame
/// is no longer this entry's (a restart rewrote it) and the entry's
/// syscall or fault must not be acted on: the CPU just chooses again.
/// Always true while every task is on one CPU (`Placement::spread`).
#[inline(always)]
fn entered_from_live(k: &Kernel<X86>, pc: &arch::cpu::PerCpu) -> bool {
    !k.placement.spread()
        || k.tasks[pc.state.current]
            .as_ref()
            .is_some_and(|t| t.state.is_ready() && t.generation as u64 == pc.run_generation)
}

/// Interrupts the other CPUs whose tasks this entry made ready.
#[inline(always)]
fn wake_others(k: &mut Kernel<X86>) {
    if !k.placement.spread() {
        return; // every task is on this CPU: nothing to wake
    }
    let others = k.placement.take_remote(arch::cpu::this().cpu as usize);
    if others != 0 {
        crate::smp::wake(others);
    }
}

/// A trap taken while the kernel itself was running (or idling).
#[no_mangle]
extern "C" fn trap_from_kernel(frame: &mut TrapFrame) {
    if frame.vector >= IRQ_BASE {
        crate::shootdown::answer_shootdown();
        let pc = arch::cpu::this();
        if frame.vector == apic::SHOOTDOWN_VECTOR as u64 {
            apic::eoi();
            return crate::sched::idle(pc, 0); // only the idle loop was interrupted
        }
        if pc.cpu != 0 && frame.vector == apic::TIMER_VECTOR as u64 {
            return crate::smp::ap_idle_tick(pc);
        }
        let mut k = crate::shootdown::lock_kernel();
        let next = interrupt(&mut k, frame.vector);
        // Only the idle loop runs with interrupts on: choose again.
        let next = if next == Next::Yield {
            Next::Block
        } else {
            next
        };
        finish::<true>(&mut k, arch::cpu::this(), next);
        wake_others(&mut k);
        return;
    }
    kernel_fault(frame)
}

/// Reports a kernel exception and stops the machine.
fn kernel_fault(frame: &TrapFrame) -> ! {
    let report = Report {
        frame,
        cr2: arch::fault_address(),
    };
    // Never block or panic here: the kernel may have faulted holding the
    // lock, or before any task existed.
    let task = KERNEL
        .try_lock()
        .and_then(|k| {
            k.tasks
                .get(arch::cpu::this().state.current)?
                .as_ref()
                .map(|t| t.name)
        })
        .unwrap_or("none");
    crate::console::print_forced(format_args!(
        "conflux: KERNEL FAULT: {report} (kernel mode, last task '{task}')\n"
    ));
    stack_words(frame.rsp);
    crate::console::print_forced(format_args!(
        "conflux: stopping the machine: this is a kernel bug; the line above names the instruction\n"
    ));
    machine::exit(Verdict::KernelFault)
}

/// The top words of the faulting stack, when it is one of the kernel
/// image's own (always mapped): return addresses there say which code ran
/// last when the instruction pointer itself is garbage.
fn stack_words(rsp: u64) {
    extern "C" {
        static __kernel_virt_end: u8;
    }
    const WORDS: u64 = 8;
    let end = core::ptr::addr_of!(__kernel_virt_end) as u64;
    let start = crate::KERNEL_VMA;
    if !rsp.is_multiple_of(8) || rsp < start || rsp.saturating_add(WORDS * 8) > end {
        return;
    }
    for i in 0..WORDS {
        let at = rsp + i * 8;
        // Safety: `at` is 8-aligned and inside the kernel image, which is
        // mapped for the kernel's whole life; a plain read of a stack word.
        let word = unsafe { core::ptr::read_volatile(at as *const u64) };
        crate::console::print_forced(format_args!("conflux:   stack {at:#x}: {word:#018x}\n"));
    }
}

/// A double fault or machine check, on its own stack: nothing can resume.
#[no_mangle]
extern "C" fn fatal_trap(frame: &mut TrapFrame) -> ! {
    kernel_fault(frame)
}

/// An NMI: say so and carry on; the interrupted code (task or kernel) is
/// not touched. It may arrive anywhere, so it takes no lock.
#[no_mangle]
extern "C" fn nmi_report() {
    crate::console::print_forced(format_args!(
        "conflux: non-maskable interrupt received (hardware or watchdog signal); ignored, the running task continues\n"
    ));
}
