//! TLB shootdown: making every other CPU drop (or leave) an address space
//! before the kernel frees or reuses what its translations named.
//!
//! The CPU that unmaps or destroys holds the kernel lock while it asks and
//! waits; a CPU answers without that lock — from the shootdown IPI, or
//! while it spins for the lock ([`lock_kernel`]) — so the two cannot
//! deadlock. Only CPUs whose CR3 holds the space are asked (see
//! `PerCpu::active_root`). With one CPU nothing is sent.

use crate::arch::cpu::{self, MAX_CPUS};
use crate::arch::{apic, paging};
use crate::smp;
use core::sync::atomic::{AtomicU64, Ordering};

/// One shootdown request per CPU: the PML4 to drop (bits 12..), and in
/// bits 1..=7 the task index plus one when the CPU must also leave the
/// space and forget the task's FPU state (the space is being destroyed).
static SHOOT_REQUEST: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Per CPU: the number of the last request made of it, and of the last it
/// carried out.
static SHOOT_SEQ: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
static SHOOT_DONE: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Spins a CPU waits for another to answer a shootdown before calling it a
/// kernel bug (an answer takes microseconds; this is seconds).
const SHOOT_PATIENCE: u64 = 2_000_000_000;

/// Makes every other CPU drop its translations of the address space whose
/// PML4 is at `root` — and, with `ending = Some(task)`, leave that space
/// for the kernel's own tables and forget `task`'s FPU state — and waits
/// until each has. Called with the kernel lock held (so one request is in
/// flight per CPU); a CPU answers without that lock: from the IPI, or
/// while it spins for the lock ([`lock_kernel`]). With one CPU it returns
/// at once.
pub fn shootdown(root: u64, ending: Option<usize>) {
    let n = smp::online();
    if n == 1 {
        return;
    }
    let me = cpu::this().cpu as usize;
    let request = root | ending.map_or(0, |t| ((t as u64 + 1) & 0x7f) << 1);
    // Only a CPU on the space can hold its translations (see
    // `PerCpu::active_root`); each CPU changes CR3 only under the kernel
    // lock (or when answering a shootdown), so the set read here holds.
    let mut targets = 0u64;
    for c in (0..n).filter(|&c| c != me && smp::active_root(c) == root) {
        targets |= 1 << c;
        SHOOT_REQUEST[c].store(request, Ordering::Relaxed);
        SHOOT_SEQ[c].fetch_add(1, Ordering::Release);
        apic::send_fixed(smp::apic_id(c), apic::SHOOTDOWN_VECTOR);
    }
    for c in (0..n).filter(|&c| targets & 1 << c != 0) {
        let want = SHOOT_SEQ[c].load(Ordering::Relaxed);
        let mut spins = 0u64;
        while SHOOT_DONE[c].load(Ordering::Acquire) != want {
            spins += 1;
            assert!(
                spins < SHOOT_PATIENCE,
                "kernel bug: CPU {c} never answered a TLB shootdown (space {root:#x})"
            );
            core::hint::spin_loop();
        }
    }
}

/// Checks that no other CPU is still on the tables at `root`, which are
/// about to be freed: after a shootdown for a destroyed space every CPU
/// recorded on it has left, idle CPUs included (they idle on the tables
/// they last ran). One still there would run on freed memory; that is a
/// kernel bug, and stopping the machine here names it before the frames
/// are handed out again.
pub fn assert_left(root: u64) {
    let me = cpu::this().cpu as usize;
    for c in (0..smp::online()).filter(|&c| c != me) {
        assert!(
            smp::active_root(c) != root,
            "kernel bug: CPU {c} is still on the page tables at {root:#x} after the shootdown for their destruction"
        );
    }
}

/// Carries out this CPU's pending shootdown request, if any.
pub fn answer_shootdown() {
    let pc = cpu::this();
    let c = pc.cpu as usize;
    let seq = SHOOT_SEQ[c].load(Ordering::Acquire);
    if SHOOT_DONE[c].load(Ordering::Relaxed) == seq {
        return;
    }
    let request = SHOOT_REQUEST[c].load(Ordering::Relaxed);
    let (root, task) = (request & !0xfff, (request >> 1) & 0x7f);
    if task != 0 {
        if pc.state.fpu_owner == (task - 1) as usize {
            pc.state.fpu_owner = conflux_kcore::Cpu::NO_OWNER;
        }
        if paging::current_root() == root {
            paging::activate_kernel_tables();
            pc.active_root
                .store(paging::current_root(), Ordering::Relaxed);
        }
    } else if paging::current_root() == root {
        paging::flush_tlb();
    }
    SHOOT_DONE[c].store(seq, Ordering::Release);
}

/// Takes the kernel lock, answering shootdowns while another CPU holds it
/// (that CPU may be waiting for this one's answer).
pub fn lock_kernel() -> spin::MutexGuard<'static, conflux_kcore::Kernel<crate::x86::X86>> {
    loop {
        if let Some(k) = crate::sched::KERNEL.try_lock() {
            return k;
        }
        answer_shootdown();
        core::hint::spin_loop();
    }
}
