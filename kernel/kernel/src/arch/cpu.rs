//! Per-CPU setup: feature checks, control registers, syscall MSRs, the
//! per-CPU block reached through `gs`, and the legacy PIC.

use core::arch::x86_64::__cpuid;
use x86_64::instructions::port::Port;
use x86_64::registers::control::{Cr4, Cr4Flags};
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

/// The per-CPU block. `syscall_entry` reads fields by fixed offsets
/// (`gs:[8]`, `gs:[16]`), so the layout is part of the entry ABI.
#[repr(C)]
pub struct PerCpu {
    /// Address of this block (offset 0), for code that needs a pointer.
    pub self_ptr: u64,
    /// Top of this CPU's kernel stack (offset 8).
    pub kernel_stack_top: u64,
    /// Scratch slot for the user stack pointer during `syscall` entry (offset 16).
    pub user_rsp: u64,
    /// Index of this CPU.
    pub cpu: u64,
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

/// Masks every line of both legacy 8259 PICs. The firmware leaves the
/// timer on IRQ 0 mapped to vector 8, which would look like a double fault.
pub fn mask_legacy_pic() {
    // Safety: ports 0x21/0xA1 are the PIC mask registers on every PC.
    unsafe {
        Port::<u8>::new(0x21).write(0xff);
        Port::<u8>::new(0xa1).write(0xff);
    }
}
