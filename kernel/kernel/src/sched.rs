//! The kernel state, boot start-up, and carrying out the scheduler's
//! decisions on this CPU.
//!
//! The decisions themselves are `conflux_kcore`'s; here they become a
//! per-CPU frame pointer, the TSS's `rsp0`, CR3 and the lazily switched
//! floating-point state. The whole kernel state sits behind one lock (a big
//! kernel lock, as in seL4's SMP kernel); what one CPU runs, and its idle
//! frame and stack, live in its per-CPU block.

use crate::arch::context::Context;
use crate::arch::trap::TrapFrame;
use crate::arch::{cpu, gdt, machine, paging};
use crate::kprintln;
use crate::x86::X86;
use conflux_abi::exit::Verdict;
use conflux_bootimg::{BootImage, ObjectRecord};
use conflux_kcore::{Decision, Kernel, Next};
use core::sync::atomic::Ordering;
use spin::Mutex;

pub static KERNEL: Mutex<Kernel<X86>> = Mutex::new(Kernel::new());

/// Free frames once the boot objects exist and before any task is loaded:
/// when every task has ended, the count must be back here.
static FRAMES_AT_START: spin::Once<usize> = spin::Once::new();

/// Carries out `next` on this CPU: afterwards the per-CPU block names the
/// frame the exit path restores. `SPREAD` false (every task on one CPU,
/// `Placement::spread`) skips the records only other CPUs read; true is
/// always correct.
#[inline]
pub fn finish<const SPREAD: bool>(k: &mut Kernel<X86>, pc: &mut cpu::PerCpu, next: Next) {
    if let Next::Switch(t) = next {
        // The IPC fastpath's hand-off: the partner is known to be the most
        // urgent ready task, so no search.
        pc.state.current = t;
        pc.state.idle = false;
        return run::<SPREAD>(k, pc, t);
    }
    reschedule(k, pc, next);
}

/// Every decision but the fastpath's hand-off (kept out of line, so the
/// IPC path carries none of it).
#[inline(never)]
fn reschedule(k: &mut Kernel<X86>, pc: &mut cpu::PerCpu, next: Next) {
    let was_idle = pc.state.idle;
    match k.schedule(&mut pc.state, next) {
        Decision::Run(t) => {
            if was_idle {
                crate::idle::woke(pc);
            }
            // A task's first run always comes through here (the fastpath
            // only hands off to a task that has run before).
            if let Some(task) = k.tasks[t].as_ref() {
                crate::boottrace::running(t, task.name);
            }
            run::<true>(k, pc, t)
        }
        // A tick that finds nothing to do leaves the spell as it was: the
        // CPU halts again without polling.
        Decision::Idle => {
            let poll_until = if was_idle {
                0
            } else {
                crate::idle::entering(pc)
            };
            idle(pc, poll_until)
        }
        Decision::Halt => all_ended(k),
    }
}

/// Points the CPU at task `t`: its frame, its page tables, its FPU state.
/// With `SPREAD` it also records, for the other CPUs, the generation it
/// runs (`trap::entered_from_live`) and the space it runs on (shootdown
/// targets); while every task is on this CPU no other CPU reads them.
#[inline(always)]
fn run<const SPREAD: bool>(k: &mut Kernel<X86>, pc: &mut cpu::PerCpu, t: usize) {
    let Some(task) = k.tasks[t].as_mut() else {
        return;
    };
    if SPREAD {
        pc.run_generation = task.generation as u64;
    }
    let ctx: *mut Context = &mut task.ctx;
    if pc.state.fpu_owner != t {
        let prev = match pc.state.fpu_owner {
            conflux_kcore::Cpu::NO_OWNER => core::ptr::null_mut(),
            _ => pc.fpu_ctx as *mut Context,
        };
        // Safety: `fpu_ctx` is the context of the live task `fpu_owner`
        // (tasks sit in a fixed table, and the kernel logic clears
        // `fpu_owner` when its task ends), a different task from `t`, so
        // the two references do not alias; `ctx` is `t`'s, just borrowed.
        unsafe { cpu::switch_user_state(prev.as_mut(), &*ctx) };
        pc.state.fpu_owner = t;
        pc.fpu_ctx = ctx as u64;
    }
    let frame = ctx as u64;
    pc.ctx_ptr = frame;
    // A kernel address plus the frame size: cannot wrap.
    pc.ctx_top = frame.wrapping_add(core::mem::size_of::<TrapFrame>() as u64);
    gdt::set_rsp0(pc.tss, pc.ctx_top);
    // Stored only when CR3 changes: every load of a task's space comes
    // through here, so an unchanged CR3 already has its record.
    if let Some(space) = &task.space {
        if space.activate() && SPREAD {
            pc.active_root.store(space.root(), Ordering::Relaxed);
        }
    }
}

/// Points the CPU at a fresh idle-loop frame on its own idle stack, that
/// polls until the TSC passes `poll_until` (0: halts at once;
/// `crate::idle`). (The idle loop is not running: this CPU is in the
/// kernel, and only it touches its block.)
///
/// The CPU idles on whatever tables it last ran, as Linux's lazy TLB mode
/// does: the idle loop touches only the kernel half, which every space maps
/// alike, and a CPU most often wakes to run the task it left (a driver
/// waiting for its device). Each CR3 load drops every translation — under
/// TCG the emulator's whole soft TLB and jump cache — so loading the
/// kernel's tables to idle and the task's again to resume cost two of
/// them for nothing. The space stays recorded as this CPU's
/// (`active_root`), so unmapping in it still interrupts this CPU and
/// destroying it moves the CPU to the kernel's tables first (`shootdown`,
/// `AddressSpace::destroy`): CR3 still never points at freed tables.
pub fn idle(pc: &mut cpu::PerCpu, poll_until: u64) {
    pc.active_root
        .store(paging::current_root(), Ordering::Relaxed);
    pc.idle_frame = TrapFrame::new_kernel(crate::idle::run as *const () as u64, pc.idle_stack_top);
    pc.idle_frame.rdi = poll_until;
    pc.ctx_ptr = &mut pc.idle_frame as *mut TrapFrame as u64;
}

/// Nothing can run again: report and stop the machine.
fn all_ended(k: &mut Kernel<X86>) -> ! {
    paging::activate_kernel_tables();
    k.reclaim_all();
    let (exited, faulted, blocked) = k.ending_counts();
    kprintln!(
        "all tasks ended: {exited} exited, {faulted} stopped after a fault, {} failed to start, {blocked} blocked forever",
        k.failed_to_load
    );
    let (now, start) = (
        crate::mem::free_frames(),
        FRAMES_AT_START.get().copied().unwrap_or(0),
    );
    let head = format_args!("frames: {now} free at the end, {start} before the first task started");
    match now.cmp(&start) {
        core::cmp::Ordering::Equal => kprintln!("{head}: balanced"),
        core::cmp::Ordering::Less => {
            kprintln!("{head}: LEAKED {} frames (kernel bug)", start - now)
        }
        core::cmp::Ordering::Greater => {
            kprintln!(
                "{head}: {} frames too many, freed twice? (kernel bug)",
                now - start
            )
        }
    }
    machine::exit(Verdict::AllTasksEnded)
}

/// Creates every object and task in the image, prints the banner and runs the first.
/// The real-time clock's date, said on the console; `None` (and a line
/// saying why) when it gives none, so `wall_clock` answers `NoClock`.
fn wall_clock_at_boot() -> Option<conflux_abi::calendar::Civil> {
    let Some(regs) = crate::arch::rtc::read_registers() else {
        kprintln!("clock: the real-time clock never finished an update; no wall-clock time (wall_clock answers NoClock)");
        return None;
    };
    match conflux_kcore::rtc::decode(&regs) {
        Ok(c) => {
            kprintln!(
                "clock: {:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC from the real-time clock",
                c.year,
                c.month,
                c.day,
                c.hour,
                c.minute,
                c.second
            );
            Some(c)
        }
        Err(e) => {
            kprintln!("clock: the real-time clock gives no date: {e}; no wall-clock time (wall_clock answers NoClock)");
            None
        }
    }
}

/// Sends each device line to its driver's CPU (`Kernel::irq_home`), so an
/// interrupt wakes the driver where it runs instead of interrupting CPU 0
/// to wake it with an IPI. One line per moved line, so the log says where
/// each interrupt goes; lines whose driver is on CPU 0 stay quiet, and a
/// one-CPU system prints nothing.
fn route_interrupts(k: &Kernel<X86>) {
    for line in 0..=u8::MAX {
        let Some((cpu, t)) = k.irq_home(line).filter(|&(cpu, _)| cpu != 0) else {
            continue;
        };
        // Physical destination mode takes an 8-bit APIC id; `cpu` is online
        // (placement checked it), so its id was recorded when it started.
        let apic = crate::smp::apic_id(cpu) as u8;
        crate::arch::ioapic::route_to(line, apic);
        let name = k.tasks[t].as_ref().map_or("?", |task| task.name);
        kprintln!("interrupt line {line} goes to CPU {cpu}, where its driver '{name}' runs");
    }
}

pub fn start(image: BootImage<'static>) -> ! {
    let mut k = KERNEL.lock();
    for (i, entry) in image.objects().enumerate() {
        match crate::object::create(&entry) {
            Ok(o) => k.objects.table[i] = o,
            Err(e) => {
                kprintln!("boot failed: object {i}: {e}");
                machine::exit(Verdict::KernelFault);
            }
        }
        if let ObjectRecord::Irq { line, .. } = entry.object {
            crate::arch::ioapic::route(line);
        }
    }
    FRAMES_AT_START.call_once(crate::mem::free_frames);
    k.set_wall_clock(wall_clock_at_boot());
    crate::boottrace::mark("loading tasks");
    k.placement.cpus = crate::smp::online();
    k.start(image);
    route_interrupts(&k);
    crate::boottrace::mark("tasks loaded");
    let started = k.live().iter().flatten().count();
    kprintln!(
        "Conflux {} — system '{}' up: {started} tasks, {} MiB free",
        env!("CARGO_PKG_VERSION"),
        image.system_name(),
        crate::mem::free_frames() / 256
    );
    // So that the round-robin search starts at task 0.
    cpu::this().state.current = k.ntasks.max(1) - 1;
    finish::<true>(&mut k, cpu::this(), Next::Block);
    // The APs idle until told their tasks are ready.
    let others = k.placement.take_remote(0);
    crate::smp::wake(others);
    drop(k);
    // Safety: `finish` pointed the per-CPU block at a ready task's frame
    // (or the idle loop's); nothing on this boot stack is needed again.
    unsafe { crate::arch::trap::enter() }
}
