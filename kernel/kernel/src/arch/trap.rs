//! Every way into the kernel: exceptions, interrupts and `syscall`.
//!
//! All entries build the same [`TrapFrame`] on the CPU's kernel stack and
//! call [`crate::trap::dispatch`], which may replace the frame's contents
//! with another task's saved registers; the common exit path then restores
//! whatever the frame holds and returns with `iretq`. The kernel keeps no
//! other state on the stack between entries, so one kernel stack per CPU
//! serves every task (the seL4/Hubris model: a blocked task is just its
//! saved registers).
//!
//! Frames that entered through `syscall` leave through `sysretq`; all
//! others (first start, interrupts, faults) through `iretq`.
//!
//! `syscall` does not switch stacks, so its entry fetches the kernel stack
//! from the per-CPU block through `gs` (after `swapgs`) and fabricates the
//! part of the frame an interrupt would have pushed.

use super::gdt::{USER_CS, USER_SS};

/// Pseudo vector number that marks a frame built by the `syscall` entry.
pub const SYSCALL_VECTOR: u64 = 0x100;
/// Number of interrupt vectors that have entry stubs (exceptions and 16 IRQs).
pub const STUB_COUNT: usize = 48;

/// Registers of an interrupted context, in the order the entry code pushes them.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct TrapFrame {
    pub r15: u64,
    pub r14: u64,
    pub r13: u64,
    pub r12: u64,
    pub r11: u64,
    pub r10: u64,
    pub r9: u64,
    pub r8: u64,
    pub rbp: u64,
    pub rdi: u64,
    pub rsi: u64,
    pub rdx: u64,
    pub rcx: u64,
    pub rbx: u64,
    pub rax: u64,
    pub vector: u64,
    pub error: u64,
    pub rip: u64,
    pub cs: u64,
    pub rflags: u64,
    pub rsp: u64,
    pub ss: u64,
}

/// `rflags` for a task's first instruction: interrupts enabled, reserved bit 1 set.
const USER_RFLAGS: u64 = 0x202;

impl TrapFrame {
    /// The frame that starts a user task at `entry` with stack pointer `rsp`.
    pub fn new_user(entry: u64, rsp: u64) -> Self {
        Self {
            rip: entry,
            cs: USER_CS as u64,
            rflags: USER_RFLAGS,
            rsp,
            ss: USER_SS as u64,
            ..Self::default()
        }
    }

    /// The frame that runs kernel code at `rip` on stack `rsp` with
    /// interrupts enabled (the idle loop).
    pub fn new_kernel(rip: u64, rsp: u64) -> Self {
        Self {
            rip,
            cs: super::gdt::KERNEL_CS as u64,
            rflags: USER_RFLAGS,
            rsp,
            ss: super::gdt::KERNEL_SS as u64,
            ..Self::default()
        }
    }

    /// True when the trap interrupted ring 3.
    pub fn is_from_user(&self) -> bool {
        self.cs & 3 == 3
    }
}

core::arch::global_asm!(
    r#"
    .macro trap_stub n
    .balign 16
trap_stub_\n:
    .if (\n == 8) || (\n >= 10 && \n <= 14) || (\n == 17) || (\n == 21) || (\n == 29) || (\n == 30)
    .else
    push 0                      /* no CPU error code: keep the frame shape */
    .endif
    push \n
    jmp trap_common
    .endm

    .section .text.trap, "ax"
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
    trap_stub \n
    .endr

trap_common:
    test qword ptr [rsp + 24], 3    /* interrupted CS: from ring 3? */
    jz 1f
    swapgs
1:
trap_save:
    push rax
    push rbx
    push rcx
    push rdx
    push rsi
    push rdi
    push rbp
    push r8
    push r9
    push r10
    push r11
    push r12
    push r13
    push r14
    push r15
    mov rdi, rsp
    call trap_dispatch
    .global trap_restore
trap_restore:
    cmp qword ptr [rsp + 15 * 8], {syscall_vector}
    je sysret_restore
    pop r15
    pop r14
    pop r13
    pop r12
    pop r11
    pop r10
    pop r9
    pop r8
    pop rbp
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rbx
    pop rax
    add rsp, 16                     /* vector, error code */
    test qword ptr [rsp + 8], 3     /* returning to ring 3? */
    jz 2f
    swapgs
2:  iretq

    /* A frame saved by the syscall entry (possibly another task's) goes
       back with sysretq: rcx and r11 are clobbered by the syscall ABI
       anyway, so they carry rip and rflags. The user rip cannot be
       non-canonical: it follows a syscall instruction, and the last user
       page below the canonical hole is never mapped (USER_TOP). */
sysret_restore:
    pop r15
    pop r14
    pop r13
    pop r12
    add rsp, 8                      /* r11: becomes rflags */
    pop r10
    pop r9
    pop r8
    pop rbp
    pop rdi
    pop rsi
    pop rdx
    add rsp, 8                      /* rcx: becomes rip */
    pop rbx
    pop rax
    mov rcx, qword ptr [rsp + 16]   /* rip */
    mov r11, qword ptr [rsp + 32]   /* rflags */
    mov rsp, qword ptr [rsp + 40]   /* user rsp: no kernel stack from here */
    swapgs
    sysretq

    .global syscall_entry
syscall_entry:
    swapgs
    mov qword ptr gs:[16], rsp      /* PerCpu::user_rsp */
    mov rsp, qword ptr gs:[8]       /* PerCpu::kernel_stack_top */
    push {user_ss}
    push qword ptr gs:[16]
    push r11                        /* user rflags */
    push {user_cs}
    push rcx                        /* user rip */
    push 0
    push {syscall_vector}
    jmp trap_save

    .section .rodata.trap, "a"
    .balign 8
    .global trap_stub_table
trap_stub_table:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
    .quad trap_stub_\n
    .endr
"#,
    user_ss = const USER_SS,
    user_cs = const USER_CS,
    syscall_vector = const SYSCALL_VECTOR,
);

extern "C" {
    static trap_stub_table: [u64; STUB_COUNT];
    fn trap_restore() -> !;
    fn syscall_entry();
}

/// Address of the entry stub for `vector`.
pub fn stub_address(vector: usize) -> u64 {
    // Safety: `trap_stub_table` is an immutable table of STUB_COUNT
    // addresses emitted by the assembly above.
    unsafe { trap_stub_table[vector] }
}

/// Address of the `syscall` entry point, for `IA32_LSTAR`.
pub fn syscall_entry_address() -> u64 {
    syscall_entry as *const () as u64
}

/// Leaves the kernel into the context in `frame`, which must sit at the top
/// of this CPU's kernel stack (so later entries reuse the same stack).
///
/// # Safety
/// `frame` must be a valid frame for a user context (ring 3 selectors,
/// canonical addresses) located at the top of the current CPU's kernel stack.
pub unsafe fn enter(frame: *const TrapFrame) -> ! {
    // Safety: the caller guarantees the frame; `trap_restore` pops it and
    // executes `iretq`, never returning here.
    unsafe {
        core::arch::asm!("mov rsp, {0}", "jmp {1}", in(reg) frame, sym trap_restore, options(noreturn));
    }
}
