//! The Conflux kernel.
//!
//! A small capability microkernel for x86-64 on QEMU `q35`. Principles:
//!
//! - **The kernel is not a task's victim.** Nothing a task passes or does —
//!   a wild pointer, an unknown syscall, a fault — can make the kernel
//!   fault, panic or hang. Task pointers are checked against the task's own
//!   page tables ([`usermem`]); task faults stop the task ([`trap`]).
//! - **Every stop is explained.** Task faults, kernel faults and panics
//!   print a report a person can act on, and the machine exits with a
//!   verdict the runner understands; there are no silent hangs.
//! - **One kernel stack per CPU, no kernel threads.** A task that is not
//!   running is its saved registers; every entry builds one frame and every
//!   exit restores one ([`arch::trap`]).
//! - **Static system.** The set of tasks comes from the manifest, lowered by
//!   the host into the boot image; the kernel validates it once and runs it.
//! - **Hardware in one place.** Everything x86-specific lives in [`arch`];
//!   hardware-free logic (frames, ELF planning) lives in `conflux-kcore`
//!   and is tested on the host.
#![no_std]
#![no_main]

mod acpi;
mod arch;
mod boottrace;
mod console;
mod fault;
mod idle;
mod load;
mod mem;
mod object;
mod panic;
mod pvh;
mod sched;
mod selftest;
mod shootdown;
mod smp;
mod trap;
mod usermem;
mod x86;

use arch::{cpu, gdt, idt, machine, paging};
use conflux_abi::exit::Verdict;
use conflux_bootimg::BootImage;

/// The kernel's link base: virtual = physical + KERNEL_VMA for its image.
pub(crate) const KERNEL_VMA: u64 = 0xffff_ffff_8000_0000;
/// Physical memory below this is left to firmware (real-mode tables, PVH
/// start info, option ROMs) and never allocated.
const LOW_MEMORY: u64 = 0x10_0000;

const KERNEL_STACK_SIZE: usize = 64 * 1024;
const IST_STACK_SIZE: usize = 16 * 1024;
const IDLE_STACK_SIZE: usize = 16 * 1024;

#[repr(C, align(16))]
struct Stack<const N: usize>([u8; N]);

static mut KERNEL_STACK: Stack<KERNEL_STACK_SIZE> = Stack([0; KERNEL_STACK_SIZE]);
/// Double fault, NMI and machine check stacks (see `arch::gdt`).
static mut IST_STACKS: [Stack<IST_STACK_SIZE>; 3] = [const { Stack([0; IST_STACK_SIZE]) }; 3];
/// The boot CPU's idle loop runs here (the APs' stacks are allocated).
static mut IDLE_STACK: Stack<IDLE_STACK_SIZE> = Stack([0; IDLE_STACK_SIZE]);

extern "C" {
    static __kernel_virt_end: u8;
}

fn stack_top<const N: usize>(s: *mut Stack<N>) -> u64 {
    s as u64 + N as u64
}

/// Stops the boot with a message: the machine cannot run this image.
fn boot_failed(why: &dyn core::fmt::Display) -> ! {
    kprintln!("boot failed: {why}");
    machine::exit(Verdict::KernelFault)
}

/// Rust entry point, called by the PVH boot code on the boot stack.
#[no_mangle]
extern "C" fn kernel_main(start_info: u64) -> ! {
    boottrace::entered();
    arch::serial::init();
    kprintln!("Conflux {} booting", env!("CARGO_PKG_VERSION"));
    let features = cpu::features();
    if !features.nx {
        boot_failed(&"the CPU has no NX bit; run QEMU with -cpu max");
    }
    paging::init();
    let kstack = stack_top(core::ptr::addr_of_mut!(KERNEL_STACK));
    let ist = core::ptr::addr_of_mut!(IST_STACKS) as *mut Stack<IST_STACK_SIZE>;
    // Only addresses are computed; the stacks are used by the CPU alone.
    let ist_tops = [0, 1, 2].map(|i| stack_top(ist.wrapping_add(i)));
    let tss = gdt::init(0, kstack, ist_tops);
    idt::init();
    // Safety: block 0 is handed out exactly once, here, to the boot CPU.
    let percpu = unsafe { smp::block(0) };
    percpu.kernel_stack_top = kstack;
    percpu.tss = tss;
    percpu.idle_stack_top = stack_top(core::ptr::addr_of_mut!(IDLE_STACK));
    cpu::init(&features, percpu, arch::trap::syscall_entry_address());
    cpu::mask_legacy_pic();
    kprintln!(
        "cpu: nx={} smep={} smap={} pcid={}",
        features.nx,
        features.smep,
        features.smap,
        features.pcid
    );

    let boot = pvh::parse(start_info).unwrap_or_else(|e| boot_failed(&e));
    // Only the address of the linker symbol is taken, never its contents.
    let kernel_end = core::ptr::addr_of!(__kernel_virt_end) as u64 - KERNEL_VMA;
    let reserved = [
        (0, LOW_MEMORY),
        (LOW_MEMORY, kernel_end),
        (boot.image.0, boot.image.0 + boot.image.1),
    ];
    mem::init(boot.ram(), reserved.into_iter());
    let image = BootImage::parse(boot.image_bytes()).unwrap_or_else(|e| boot_failed(&e));

    boottrace::init(boot.cmdline());
    selftest::run(boot.cmdline());
    idle::init(boot.cmdline());
    smp::start_aps(boot.rsdp());
    // Once every AP is up: whether there is more than one CPU is final.
    cpu::this().halt_poll = idle::policy(smp::online());
    arch::apic::init();
    selftest::late(boot.cmdline());
    sched::start(image)
}
