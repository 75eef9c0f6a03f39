//! Segments: the GDT and TSS every CPU needs in long mode.
//!
//! The order of the descriptors is fixed by `syscall`/`sysret`: `IA32_STAR`
//! names a kernel code selector followed by kernel data, and a user base
//! followed by user data then user code. The TSS supplies the kernel stack
//! for interrupts from ring 3 (`rsp0`) and a separate stack for double
//! faults (IST 1), so a kernel stack overflow still produces a report.

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

/// IST slot (1-based in the IDT, 0-based in the TSS) for double faults.
pub const DOUBLE_FAULT_IST: u16 = 1;

struct Tables {
    gdt: GlobalDescriptorTable,
}

static TSS: Once<TaskStateSegment> = Once::new();
static TABLES: Once<Tables> = Once::new();

/// Loads the GDT and TSS on this CPU. `kernel_stack_top` is where traps
/// from ring 3 land; `fault_stack_top` is the double-fault stack.
pub fn init(kernel_stack_top: u64, fault_stack_top: u64) {
    let tss = TSS.call_once(|| {
        let mut tss = TaskStateSegment::new();
        tss.privilege_stack_table[0] = VirtAddr::new(kernel_stack_top);
        tss.interrupt_stack_table[(DOUBLE_FAULT_IST - 1) as usize] = VirtAddr::new(fault_stack_top);
        tss
    });
    let tables = TABLES.call_once(|| {
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
}
