//! Segments: the GDT and TSS every CPU needs in long mode.
//!
//! The order of the descriptors is fixed by `syscall`/`sysret`: `IA32_STAR`
//! names a kernel code selector followed by kernel data, and a user base
//! followed by user data then user code. The TSS supplies the kernel stack
//! for interrupts from ring 3 (`rsp0`) and a separate stack for double
//! faults (IST 1), so a kernel stack overflow still produces a report.

use super::cpu::MAX_CPUS;
use spin::Once;
use x86_64::instructions::segmentation::{Segment, CS, DS, ES, SS};
use x86_64::instructions::tables::load_tss;
use x86_64::structures::gdt::{Descriptor, GlobalDescriptorTable, SegmentSelector};
use x86_64::structures::tss::TaskStateSegment;
use x86_64::VirtAddr;

pub const KERNEL_CS: u16 = 0x08;
pub const KERNEL_SS: u16 = 0x10;
pub const USER_SS: u16 = 0x18 | 3;
pub const USER_CS: u16 = 0x20 | 3;
const TSS_SEL: u16 = 0x28;

/// IST slots (1-based in the IDT, 0-based in the TSS): double faults, NMIs
/// and machine checks each get a stack of their own, since any of them can
/// arrive when the current stack is unusable (overflowed, or still the
/// user's in the `syscall` entry window).
pub const DOUBLE_FAULT_IST: u16 = 1;
pub const NMI_IST: u16 = 2;
pub const MACHINE_CHECK_IST: u16 = 3;

struct Tables {
    gdt: GlobalDescriptorTable,
}

/// Each CPU's TSS. Mutable because `rsp0` follows the running task (it
/// points at the end of the task's saved frame); only its own CPU writes
/// it. Each CPU has its own GDT too, because a TSS descriptor is marked
/// busy when loaded and so cannot be shared.
static mut TSS: [TaskStateSegment; MAX_CPUS] = [const { TaskStateSegment::new() }; MAX_CPUS];
static TABLES: [Once<Tables>; MAX_CPUS] = [const { Once::new() }; MAX_CPUS];

/// Loads CPU `cpu`'s GDT and TSS on this CPU and returns the TSS's
/// address (for [`set_rsp0`]). `kernel_stack_top` is where traps from
/// ring 3 land until the first task runs; `ist_tops` are the tops of the
/// double-fault, NMI and machine-check stacks.
pub fn init(cpu: usize, kernel_stack_top: u64, ist_tops: [u64; 3]) -> u64 {
    // Safety: each CPU calls this once, for its own index, before it takes
    // interrupts: nothing else uses this TSS. (Indexing checks `cpu`.)
    let tss = unsafe { &mut (*core::ptr::addr_of_mut!(TSS))[cpu] };
    tss.privilege_stack_table[0] = VirtAddr::new(kernel_stack_top);
    for (slot, top) in [DOUBLE_FAULT_IST, NMI_IST, MACHINE_CHECK_IST]
        .into_iter()
        .zip(ist_tops)
    {
        tss.interrupt_stack_table[(slot - 1) as usize] = VirtAddr::new(top);
    }
    let tss: &'static TaskStateSegment = tss;
    let tss_addr = tss as *const TaskStateSegment as u64;
    let tables = TABLES[cpu].call_once(|| {
        let mut gdt = GlobalDescriptorTable::new();
        let sels = [
            gdt.append(Descriptor::kernel_code_segment()),
            gdt.append(Descriptor::kernel_data_segment()),
            gdt.append(Descriptor::user_data_segment()),
            gdt.append(Descriptor::user_code_segment()),
            gdt.append(Descriptor::tss_segment(tss)),
        ];
        let expect = [KERNEL_CS, KERNEL_SS, USER_SS, USER_CS, TSS_SEL];
        for (got, want) in sels.iter().zip(expect) {
            debug_assert_eq!(
                got.0 & !3,
                want & !3,
                "GDT layout must match syscall/sysret's expectations"
            );
        }
        Tables { gdt }
    });
    tables.gdt.load();
    // Safety: the selectors index descriptors of the GDT loaded just above,
    // with the types the segment registers require.
    unsafe {
        CS::set_reg(SegmentSelector(KERNEL_CS));
        SS::set_reg(SegmentSelector(KERNEL_SS));
        DS::set_reg(SegmentSelector(0));
        ES::set_reg(SegmentSelector(0));
        load_tss(SegmentSelector(TSS_SEL));
    }
    tss_addr
}

/// Where the CPU saves a task's frame on an interrupt or exception from
/// ring 3; `tss` is this CPU's (what [`init`] returned). `top` is a
/// kernel address (the end of a task's frame in the kernel's task table),
/// so already canonical: it is stored as the raw word `VirtAddr` holds,
/// without `VirtAddr::new_truncate`'s re-canonicalising on every switch.
#[inline(always)]
pub fn set_rsp0(tss: u64, top: u64) {
    let tss = tss as *mut TaskStateSegment;
    // `VirtAddr` is a transparent u64, so its slot takes the raw word.
    const _: () = assert!(core::mem::size_of::<VirtAddr>() == 8);
    // Safety: `tss` is this CPU's TSS, which only this CPU writes; the CPU
    // reads `rsp0` only on a ring-3 → ring-0 transition, which cannot
    // happen while the kernel runs. The field is unaligned in the packed
    // TSS, hence the unaligned write; `VirtAddr` is `repr(transparent)`
    // over u64 and `top` is canonical, so the word is a valid `VirtAddr`.
    unsafe {
        let p = core::ptr::addr_of_mut!((*tss).privilege_stack_table[0]) as *mut u64;
        p.write_unaligned(top);
    }
}
