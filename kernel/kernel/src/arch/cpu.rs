//! Per-CPU setup: feature checks, control registers, syscall MSRs, the
//! per-CPU block reached through `gs`, and the legacy PIC.

use super::context::{Context, FxArea};
use super::trap::TrapFrame;
use core::arch::x86_64::__cpuid;
use core::sync::atomic::AtomicU64;
use x86_64::instructions::port::Port;
use x86_64::registers::control::{Cr0, Cr0Flags, Cr4, Cr4Flags};
use x86_64::registers::model_specific::{
    Efer, EferFlags, GsBase, KernelGsBase, LStar, SFMask, Star,
};
use x86_64::registers::rflags::RFlags;
use x86_64::VirtAddr;

/// Protection features the CPU offers, as reported by CPUID.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub nx: bool,
    pub smep: bool,
    pub smap: bool,
    pub pcid: bool,
}

/// Reads the features this kernel cares about.
pub fn features() -> Features {
    // CPUID leaves 1 and 0x8000_0001 exist on every CPU that runs long
    // mode; leaf 7 is checked against the maximum leaf first.
    let max = __cpuid(0).eax;
    let l7 = if max >= 7 { __cpuid(7).ebx } else { 0 };
    let (l1, ext) = (__cpuid(1), __cpuid(0x8000_0001));
    Features {
        nx: ext.edx & (1 << 20) != 0,
        smep: l7 & (1 << 7) != 0,
        smap: l7 & (1 << 20) != 0,
        pcid: l1.ecx & (1 << 17) != 0,
    }
}

/// Most CPUs the kernel runs on (the manifest's `system.cpus` bound, and
/// kcore's placement tables'); the per-CPU tables are sized by it.
pub use conflux_kcore::placement::MAX_CPUS;

/// The per-CPU block, reached through `gs` in the kernel. The entry code
/// reads fields by fixed offsets (the `OFFSET_*` constants, checked below),
/// so the layout is part of the entry ABI.
#[repr(C)]
pub struct PerCpu {
    /// Address of this block, for code that needs a pointer.
    pub self_ptr: u64,
    /// Top of this CPU's kernel stack.
    pub kernel_stack_top: u64,
    /// Scratch slot for the user stack pointer during `syscall` entry.
    pub user_rsp: u64,
    /// Index of this CPU.
    pub cpu: u64,
    /// End of the running task's saved frame: where `syscall` pushes.
    pub ctx_top: u64,
    /// Start of the frame the exit path restores (a task's, or the idle loop's).
    pub ctx_ptr: u64,
    /// What this CPU runs: its current task and idle flag (kernel logic state).
    pub state: conflux_kcore::Cpu,
    /// Address of the context of `state.fpu_owner`, whose FPU and segment
    /// state is in this CPU's registers; meaningful only while that names a
    /// task (the kernel logic clears it when the owner ends).
    pub fpu_ctx: u64,
    /// Address of this CPU's TSS, whose `rsp0` follows the running task.
    pub tss: u64,
    /// Top of the stack the idle loop runs on.
    pub idle_stack_top: u64,
    /// The frame the exit path restores to run the idle loop, remade each
    /// time this CPU idles.
    pub idle_frame: TrapFrame,
    /// The generation of the task this CPU last ran (`state.current`): an
    /// entry from a task that another CPU stopped or restarted meanwhile
    /// is stale (`trap::entered_from_live`).
    pub run_generation: u64,
    /// The PML4 this CPU's CR3 holds, as far as a shootdown cares (a task's
    /// space, set when the CPU runs the task; the kernel's, when it idles
    /// or leaves a space). Without PCIDs a CR3 load drops every
    /// translation (the kernel maps nothing global), so only a CPU running
    /// on a space can hold its translations: a shootdown interrupts just
    /// those. Written by its CPU under the kernel lock (or when answering
    /// a shootdown), read by others under the lock.
    pub active_root: AtomicU64,
    /// How long this CPU polls before it halts when it next idles
    /// (`crate::idle`).
    pub halt_poll: conflux_kcore::haltpoll::HaltPoll,
    /// The TSC when this CPU last went idle after running a task.
    pub idle_since: u64,
}

impl PerCpu {
    /// The block of CPU `cpu` before `init` fills in its addresses.
    pub const fn new(cpu: u64) -> Self {
        Self {
            self_ptr: 0,
            kernel_stack_top: 0,
            user_rsp: 0,
            cpu,
            ctx_top: 0,
            ctx_ptr: 0,
            state: conflux_kcore::Cpu {
                index: cpu as usize,
                current: 0,
                idle: false,
                fpu_owner: conflux_kcore::Cpu::NO_OWNER,
            },
            fpu_ctx: 0,
            tss: 0,
            idle_stack_top: 0,
            idle_frame: TrapFrame::ZERO,
            run_generation: 0,
            active_root: AtomicU64::new(0),
            halt_poll: conflux_kcore::haltpoll::HaltPoll::OFF,
            idle_since: 0,
        }
    }
}

pub const OFFSET_KERNEL_STACK: usize = core::mem::offset_of!(PerCpu, kernel_stack_top);
pub const OFFSET_USER_RSP: usize = core::mem::offset_of!(PerCpu, user_rsp);
pub const OFFSET_CTX_TOP: usize = core::mem::offset_of!(PerCpu, ctx_top);
pub const OFFSET_CTX_PTR: usize = core::mem::offset_of!(PerCpu, ctx_ptr);

/// This CPU's block.
pub fn this() -> &'static mut PerCpu {
    // Safety: GS base holds this CPU's block while in the kernel (set in
    // `init`; user GS is swapped out on every entry). Only this CPU uses
    // it, and the kernel lock serialises the code that does.
    unsafe {
        let p: u64;
        core::arch::asm!("mov {}, gs:[0]", out(reg) p, options(nostack, readonly, preserves_flags));
        &mut *(p as *mut PerCpu)
    }
}

/// The floating-point image every task starts from: what `fninit` and the
/// default MXCSR leave, captured once at boot.
static INITIAL_FPU: spin::Once<FxArea> = spin::Once::new();

pub fn initial_fpu_state() -> FxArea {
    *INITIAL_FPU
        .get()
        .expect("cpu::init runs before any task is made")
}

/// The DS, ES, FS and GS selectors as they are now, packed 16 bits each.
#[inline(always)]
fn selectors() -> u64 {
    let (ds, es, fs, gs): (u64, u64, u64, u64);
    // Safety: reading segment selectors has no side effect.
    unsafe {
        core::arch::asm!(
            "mov {0:e}, ds", "mov {1:e}, es", "mov {2:e}, fs", "mov {3:e}, gs",
            out(reg) ds, out(reg) es, out(reg) fs, out(reg) gs,
            options(nostack, nomem, preserves_flags)
        );
    }
    ds | es << 16 | fs << 32 | gs << 48
}

/// Moves the CPU's user-visible state from one task to the next: saves the
/// x87/SSE registers and data selectors into `prev` (if the previous owner
/// still lives) and loads `next`'s. Selectors are reloaded only when they
/// differ, which is rare: only a task that loads one itself changes them.
#[inline(always)]
pub fn switch_user_state(prev: Option<&mut Context>, next: &Context) {
    let now = selectors();
    if let Some(p) = prev {
        // Safety: `fxsave64` writes 512 bytes to a 16-byte aligned area (the
        // type guarantees both).
        unsafe {
            core::arch::asm!("fxsave64 [{}]", in(reg) p.fpu.0.as_mut_ptr(), options(nostack, preserves_flags));
        }
        p.segs = now;
    }
    // Safety: the area holds an image made by `fxsave64` (or the boot
    // template), so `fxrstor64` cannot fault on reserved MXCSR bits.
    unsafe {
        core::arch::asm!("fxrstor64 [{}]", in(reg) next.fpu.0.as_ptr(), options(nostack, preserves_flags));
    }
    if next.segs != now {
        load_selectors(next.segs);
    }
}

#[cold]
fn load_selectors(segs: u64) {
    let [ds, es, fs, gs] = [0, 16, 32, 48].map(|shift| (segs >> shift) as u16);
    // Safety: these values were read from the segment registers while the
    // task ran (or are null), so they name descriptors valid for data
    // segments: null or the user data selector.
    unsafe {
        core::arch::asm!(
            "mov ds, {0:x}", "mov es, {1:x}", "mov fs, {2:x}",
            in(reg) ds, in(reg) es, in(reg) fs, options(nostack, preserves_flags)
        );
    }
    // Loading GS replaces the GS base, which in the kernel is the per-CPU
    // pointer: put it back.
    let base = GsBase::read();
    // Safety: as above; the base is restored before anything uses `gs`.
    unsafe { core::arch::asm!("mov gs, {0:x}", in(reg) gs, options(nostack, preserves_flags)) };
    GsBase::write(base);
}

/// Turns on NX, SMEP and SMAP where offered and points `syscall` at the
/// kernel. `percpu` must outlive the kernel.
pub fn init(f: &Features, percpu: &'static mut PerCpu, syscall_entry: u64) {
    // Safety: setting NXE only makes the NX bit meaningful; the kernel's
    // own mappings do not use it, so nothing currently mapped changes.
    unsafe {
        Efer::update(|e| *e |= EferFlags::NO_EXECUTE_ENABLE | EferFlags::SYSTEM_CALL_EXTENSIONS)
    };
    let mut cr4 = Cr4Flags::empty();
    if f.smep {
        cr4 |= Cr4Flags::SUPERVISOR_MODE_EXECUTION_PROTECTION;
    }
    if f.smap {
        // The kernel never dereferences user addresses (it walks the task's
        // page tables and uses the direct map), so SMAP costs nothing.
        cr4 |= Cr4Flags::SUPERVISOR_MODE_ACCESS_PREVENTION;
    }
    // Safety: SMEP/SMAP only restrict the kernel's access to user pages,
    // which it never makes.
    unsafe { Cr4::update(|c| *c |= cr4) };

    enable_fpu();
    let addr = percpu as *mut PerCpu as u64;
    percpu.self_ptr = addr;
    // In the kernel GS points at the per-CPU block; the first `swapgs` on
    // the way out to a task parks it in KERNEL_GS_BASE for the next entry.
    GsBase::write(VirtAddr::new(addr));
    KernelGsBase::write(VirtAddr::new(0));
    LStar::write(VirtAddr::new(syscall_entry));
    // Interrupts, direction, trap and alignment-check flags are cleared on
    // entry so the kernel starts from a known state whatever the task set.
    SFMask::write(
        RFlags::INTERRUPT_FLAG
            | RFlags::DIRECTION_FLAG
            | RFlags::TRAP_FLAG
            | RFlags::ALIGNMENT_CHECK,
    );
    let sel = |v: u16| x86_64::structures::gdt::SegmentSelector(v);
    Star::write(
        sel(super::gdt::USER_CS),
        sel(super::gdt::USER_SS),
        sel(super::gdt::KERNEL_CS),
        sel(super::gdt::KERNEL_SS),
    )
    .unwrap_or_else(|e| panic!("IA32_STAR rejected the GDT layout: {e}"));
}

/// Lets tasks use x87, MMX and SSE (CR0.MP on, EM off; CR4.OSFXSR and
/// OSXMMEXCPT), and captures the reset state as every task's initial one.
/// The kernel itself is built without SSE, so it never disturbs a task's
/// registers between a save and a restore.
fn enable_fpu() {
    // Safety: these bits only enable instructions the kernel does not use.
    unsafe {
        Cr0::update(|c| {
            c.insert(Cr0Flags::MONITOR_COPROCESSOR);
            c.remove(Cr0Flags::EMULATE_COPROCESSOR | Cr0Flags::TASK_SWITCHED);
        });
        Cr4::update(|c| *c |= Cr4Flags::OSFXSR | Cr4Flags::OSXMMEXCPT_ENABLE);
    }
    INITIAL_FPU.call_once(|| {
        let mut area = FxArea([0; 512]);
        let mxcsr: u32 = 0x1f80; // every exception masked, round to nearest
                                 // Safety: `fninit` resets the x87 unit; `ldmxcsr` loads a valid
                                 // value; `fxsave64` writes the aligned 512-byte area.
        unsafe {
            core::arch::asm!(
                "fninit",
                "ldmxcsr [{m}]",
                "fxsave64 [{a}]",
                m = in(reg) &mxcsr,
                a = in(reg) area.0.as_mut_ptr(),
                options(nostack)
            );
        }
        area
    });
}

/// Masks every line of both legacy 8259 PICs. The firmware leaves the
/// timer on IRQ 0 mapped to vector 8, which would look like a double fault.
pub fn mask_legacy_pic() {
    // Safety: ports 0x21/0xA1 are the PIC mask registers on every PC.
    unsafe {
        Port::<u8>::new(0x21).write(0xff);
        Port::<u8>::new(0xa1).write(0xff);
    }
}
