//! Bringing up the other processors (APs) and their per-CPU state.
//!
//! The boot CPU (BSP) finds the processors in the ACPI MADT ([`crate::acpi`]),
//! copies the real-mode trampoline below 1 MiB and starts each AP in turn
//! with INIT, then start-up IPIs (`arch::apic`). Every CPU has its own
//! per-CPU block (reached through `gs`), GDT and TSS, kernel stack, IST
//! stacks for double fault, NMI and machine check, idle stack and local
//! APIC timer; AP stacks come from the frame allocator before the first
//! task is loaded, so the frame accounting at the end is unchanged.
//!
//! An AP prints one line and idles until a wake-up IPI says one of its
//! tasks is ready; then it takes the kernel lock and runs its tasks like
//! the boot CPU runs its own. Its timer tick preempts its tasks but only
//! the boot CPU's tick counts time and fires task timers. A CPU that does
//! not answer within [`START_TIMEOUT_US`] is reported and left out, and no
//! later one is started (it could still wake and read the shared
//! trampoline); the system runs on the CPUs that came. TLB shootdowns are
//! in [`crate::shootdown`].

use crate::arch::cpu::{self, PerCpu, MAX_CPUS};
use crate::arch::trampoline::Trampoline;
use crate::arch::{apic, gdt, idt, paging};
use crate::kprintln;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// CPUs running kernel code: the boot CPU, then each AP once it is set up.
static ONLINE: AtomicUsize = AtomicUsize::new(1);

/// Every CPU's block; index 0 is the boot CPU's.
static mut PERCPU: [PerCpu; MAX_CPUS] = {
    let mut all = [const { PerCpu::new(0) }; MAX_CPUS];
    let mut i = 0;
    while i < MAX_CPUS {
        all[i] = PerCpu::new(i as u64);
        i += 1;
    }
    all
};

/// Each CPU's local APIC id, for IPIs (index 0: the boot CPU's).
static APIC_IDS: [AtomicU32; MAX_CPUS] = [const { AtomicU32::new(0) }; MAX_CPUS];

/// Each AP's stacks, from one contiguous allocation (see [`ApStacks`]).
static AP_MEMORY: [AtomicUsize; MAX_CPUS] = [const { AtomicUsize::new(0) }; MAX_CPUS];

const KERNEL_STACK_FRAMES: usize = 16;
const IST_STACK_FRAMES: usize = 4;
const IDLE_STACK_FRAMES: usize = 4;
const AP_FRAMES: usize = KERNEL_STACK_FRAMES + 3 * IST_STACK_FRAMES + IDLE_STACK_FRAMES;
/// How long the BSP waits for one AP to report in.
const START_TIMEOUT_US: u64 = 200_000;

/// The stack tops carved from one AP's memory at direct-map address `base`.
struct ApStacks {
    kernel: u64,
    ist: [u64; 3],
    idle: u64,
}

impl ApStacks {
    fn at(base: u64) -> Self {
        let top = |frames: usize| base + (frames * 4096) as u64;
        let k = KERNEL_STACK_FRAMES;
        let i = IST_STACK_FRAMES;
        Self {
            kernel: top(k),
            ist: [top(k + i), top(k + 2 * i), top(k + 3 * i)],
            idle: top(AP_FRAMES),
        }
    }
}

/// CPU `i`'s block.
///
/// # Safety
/// Each index is handed out once: to its own CPU, which alone uses it.
pub unsafe fn block(i: usize) -> &'static mut PerCpu {
    // Safety: per the contract, no other reference to this element exists;
    // indexing checks `i`.
    unsafe { &mut (*core::ptr::addr_of_mut!(PERCPU))[i] }
}

/// How many CPUs run kernel code.
pub fn online() -> usize {
    ONLINE.load(Ordering::Acquire)
}

/// Starts every enabled processor the MADT lists besides this one.
/// `rsdp_hint` is the PVH start info's RSDP address. Never fails the boot:
/// whatever goes wrong leaves the system on the CPUs already running.
pub fn start_aps(rsdp_hint: u64) {
    let lapics = match crate::acpi::processors(rsdp_hint) {
        Ok(l) => l,
        Err(e) => {
            kprintln!("smp: {e}; running on the boot CPU only");
            return;
        }
    };
    let me = apic::id();
    APIC_IDS[0].store(me, Ordering::Relaxed);
    let mut others = lapics
        .ids()
        .iter()
        .copied()
        .filter(|&id| id != me)
        .peekable();
    if others.peek().is_none() {
        return;
    }
    let trampoline = match Trampoline::install() {
        Ok(t) => t,
        Err(e) => {
            kprintln!("smp: no memory for the AP start-up page tables ({e:?}); running on the boot CPU only");
            return;
        }
    };
    apic::enable();
    for id in others {
        let n = online();
        if n == MAX_CPUS {
            kprintln!(
                "smp: the MADT lists more CPUs than the kernel's {MAX_CPUS}; the rest stay off"
            );
            break;
        }
        if !start_one(&trampoline, n, id) {
            // The trampoline stays: a late AP may still run it.
            return;
        }
    }
    if lapics.dropped > 0 {
        kprintln!(
            "smp: {} more CPUs in the MADT were not read (the table's limit); they stay off",
            lapics.dropped
        );
    }
    trampoline.remove();
    kprintln!("smp: {} CPUs online", online());
}

/// Starts the CPU with local APIC id `apic_id` as CPU `n`; whether it came.
fn start_one(trampoline: &Trampoline, n: usize, apic_id: u32) -> bool {
    let Some(base) = crate::mem::alloc_contiguous(AP_FRAMES) else {
        kprintln!("smp: no memory for CPU {n}'s stacks; it stays off");
        return false;
    };
    let base = paging::phys_to_virt(base) as u64;
    AP_MEMORY[n].store(base as usize, Ordering::Release);
    APIC_IDS[n].store(apic_id, Ordering::Relaxed);
    let stacks = ApStacks::at(base);
    trampoline.set_params(stacks.kernel, n as u64, ap_main as *const () as u64);
    // INIT, 10 ms, start-up, 200 µs, and a second start-up if the first was
    // missed (the MP specification's sequence).
    apic::send_init(apic_id);
    apic::delay_us(10_000);
    for _ in 0..2 {
        apic::send_startup(apic_id, trampoline.vector());
        apic::delay_us(200);
        if online() > n {
            return true;
        }
    }
    let mut waited = 0;
    while waited < START_TIMEOUT_US {
        if online() > n {
            return true;
        }
        apic::delay_us(100);
        waited += 100;
    }
    kprintln!(
        "smp: the CPU with local APIC id {apic_id} did not start within {} ms; continuing on {n} CPUs and starting no more",
        START_TIMEOUT_US / 1000
    );
    false
}

/// An AP's first Rust code, on its kernel stack, entered from the trampoline.
extern "C" fn ap_main(n: u64) -> ! {
    let n = n as usize;
    let stacks = ApStacks::at(AP_MEMORY[n].load(Ordering::Acquire) as u64);
    let tss = gdt::init(n, stacks.kernel, stacks.ist);
    idt::init();
    // Safety: the BSP started this CPU as `n`, and gives each index once.
    let pc = unsafe { block(n) };
    pc.kernel_stack_top = stacks.kernel;
    pc.idle_stack_top = stacks.idle;
    pc.tss = tss;
    cpu::init(
        &cpu::features(),
        pc,
        crate::arch::trap::syscall_entry_address(),
    );
    // Leave the trampoline's tables (their identity map) now that `gs`
    // names this CPU's block (switching tables records the new root there).
    paging::activate_kernel_tables();
    apic::init();
    kprintln!(
        "cpu {n}: up (local APIC id {}); idle until it is given tasks",
        apic::id()
    );
    let pc = cpu::this();
    pc.state.idle = true; // its `current` names no task of its own yet
                          // An AP exists only beside the boot CPU: two or more are online.
    pc.halt_poll = crate::idle::policy(2);
    crate::sched::idle(pc, 0);
    ONLINE.fetch_add(1, Ordering::AcqRel);
    // Safety: `idle` pointed the block at this CPU's idle frame; nothing on
    // this stack is needed again.
    unsafe { crate::arch::trap::enter() }
}

/// Interrupts the CPUs in `cpus` (a bit per CPU index) so that each looks
/// at its newly ready tasks.
pub fn wake(cpus: u64) {
    let mut rest = cpus;
    while rest != 0 {
        let cpu = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if cpu < online() {
            apic::send_fixed(APIC_IDS[cpu].load(Ordering::Relaxed), apic::WAKE_VECTOR);
        }
    }
}

/// A timer tick on an idle AP: nothing to choose (its tasks become ready
/// only through a wake-up IPI), so it halts again without the kernel
/// lock. The boot CPU's tick alone counts time.
pub fn ap_idle_tick(pc: &mut PerCpu) {
    apic::eoi();
    crate::sched::idle(pc, 0);
}

/// The tables CPU `c` runs on (see `PerCpu::active_root`).
pub fn active_root(c: usize) -> u64 {
    // Safety: only the atomic field is read, through a shared reference
    // made from the array's raw pointer; CPU `c` writes it only atomically.
    unsafe {
        (*core::ptr::addr_of!(PERCPU))[c]
            .active_root
            .load(Ordering::Relaxed)
    }
}

/// CPU `c`'s local APIC id.
pub fn apic_id(c: usize) -> u32 {
    APIC_IDS[c].load(Ordering::Relaxed)
}
