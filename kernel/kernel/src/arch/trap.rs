//! Every way into the kernel: exceptions, interrupts and `syscall`.
//!
//! A task's registers are saved straight into its own [`Context`]: the
//! TSS's `rsp0` (for interrupts and exceptions) and the per-CPU block's
//! `ctx_top` (for `syscall`) point at the end of the running task's
//! [`TrapFrame`], so the CPU and the entry stubs push the frame in place.
//! The stubs then move to the CPU's kernel stack and call Rust, which may
//! pick another task; the common exit loads `rsp` from the per-CPU
//! `ctx_ptr` — whichever task is current by then — and restores its frame.
//! Neither entry nor exit copies a frame, and a switch is a pointer update
//! (the seL4 model: a blocked task is just its saved registers).
//!
//! Frames that entered through `syscall` leave through `sysretq`; all
//! others (first start, interrupts, faults) through `iretq`. Traps taken in
//! ring 0 — interrupts in the idle loop, kernel bugs — build their frame on
//! the current stack instead. NMI, double fault and machine check run on
//! their own IST stacks: an NMI may arrive anywhere, even in the `syscall`
//! entry window before `swapgs`, so its handler touches neither `gs` nor
//! the task, and returns to whatever it interrupted.
//!
//! Flags: an interrupt or exception gate clears IF and TF but leaves the
//! direction flag and AC as the task set them. Compiled Rust assumes DF
//! clear (a task caught inside a backward `rep movs` would otherwise make
//! the kernel's next `memcpy` run backwards over its own stack), and AC set
//! would lift SMAP; so every entry clears both before any Rust runs. The
//! `syscall` entry gets the same from `IA32_FMASK`.
//!
//! [`Context`]: super::context::Context

use super::gdt::{USER_CS, USER_SS};

/// Pseudo vector number that marks a frame built by the `syscall` entry.
pub const SYSCALL_VECTOR: u64 = 0x100;
/// Number of interrupt vectors that have entry stubs (exceptions, 24 IRQs,
/// the wake-up and shootdown IPIs, [`super::apic::WAKE_VECTOR`] and
/// [`super::apic::SHOOTDOWN_VECTOR`]).
/// One stub per vector, all 256: a vector nothing here uses (a stray
/// interrupt from the firmware's legacy wiring, a misprogrammed device)
/// then enters the kernel and is reported, instead of finding an empty
/// gate and raising #GP in whatever task it interrupted.
pub const STUB_COUNT: usize = 256;

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
    /// All registers zero (a placeholder until a real frame is written).
    pub const ZERO: Self = Self {
        r15: 0,
        r14: 0,
        r13: 0,
        r12: 0,
        r11: 0,
        r10: 0,
        r9: 0,
        r8: 0,
        rbp: 0,
        rdi: 0,
        rsi: 0,
        rdx: 0,
        rcx: 0,
        rbx: 0,
        rax: 0,
        vector: 0,
        error: 0,
        rip: 0,
        cs: 0,
        rflags: 0,
        rsp: 0,
        ss: 0,
    };

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
}

core::arch::global_asm!(
    r#"
    .macro push_gprs
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
    .endm

    .macro pop_gprs
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
    .endm

    /* Clears RFLAGS.AC (the `clac` of CPUs without SMAP), leaving every
       other flag, including IF, as it is. Needs a stack. */
    .macro clear_ac
    pushfq
    and qword ptr [rsp], {not_ac}
    popfq
    .endm

    .macro trap_stub n
    .balign 16
trap_stub_\n:
    .if (\n == 8) || (\n >= 10 && \n <= 14) || (\n == 17) || (\n == 21) || (\n == 29) || (\n == 30)
    .else
    push 0                      /* no CPU error code: keep the frame shape */
    .endif
    push \n
    .if \n == 2
    jmp nmi_common
    .elseif (\n == 8) || (\n == 18)
    jmp fatal_common
    .else
    jmp trap_common
    .endif
    .endm

    .section .text.trap, "ax"
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,210,211,212,213,214,215,216,217,218,219,220,221,222,223,224,225,226,227,228,229,230,231,232,233,234,235,236,237,238,239,240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255
    trap_stub \n
    .endr

trap_common:
    cld                             /* see "Flags" above */
    test qword ptr [rsp + 24], 3    /* interrupted CS: from ring 3? */
    jz 1f
    swapgs
    push_gprs                       /* into the task's Context */
    mov rsp, qword ptr gs:[{kstack}]
    clear_ac
    call trap_from_user
    jmp exit_to_task
1:  push_gprs                       /* on the interrupted kernel stack */
    mov rdi, rsp
    call trap_from_kernel
    jmp exit_to_task

    .global syscall_entry
syscall_entry:
    swapgs
    mov qword ptr gs:[{user_rsp}], rsp
    mov rsp, qword ptr gs:[{ctx_top}]
    push {user_ss}
    push qword ptr gs:[{user_rsp}]
    push r11                        /* user rflags */
    push {user_cs}
    push rcx                        /* user rip */
    push 0
    push {syscall_vector}
    push_gprs
    mov rsp, qword ptr gs:[{kstack}]
    call syscall_from_user          /* never returns: ends in exit_to_task */

    /* Restores the current task (or the idle loop) from the frame the
       per-CPU block points at. */
    .global exit_to_task
exit_to_task:
    mov rsp, qword ptr gs:[{ctx_ptr}]
    cmp qword ptr [rsp + 15 * 8], {syscall_vector}
    je sysret_restore
    pop_gprs
    add rsp, 16                     /* vector, error code */
    test qword ptr [rsp + 8], 3     /* returning to ring 3? */
    jz 2f
    swapgs
2:  iretq

    /* A frame saved by the syscall entry goes back with sysretq: rcx and
       r11 are clobbered by the syscall ABI anyway, so they carry rip and
       rflags. The user rip cannot be non-canonical: it follows a syscall
       instruction, and the last user page below the canonical hole is
       never mapped (USER_TOP). */
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

    /* NMI: report and return to whatever was interrupted, task untouched. */
nmi_common:
    cld                             /* iretq restores the interrupted flags */
    push_gprs
    clear_ac
    call nmi_report
    pop_gprs
    add rsp, 16
    iretq

    /* Double fault, machine check: report and stop the machine. */
fatal_common:
    cld
    push_gprs
    clear_ac
    mov rdi, rsp
    call fatal_trap
    ud2

    .section .rodata.trap, "a"
    .balign 8
    .global trap_stub_table
trap_stub_table:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,210,211,212,213,214,215,216,217,218,219,220,221,222,223,224,225,226,227,228,229,230,231,232,233,234,235,236,237,238,239,240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255
    .quad trap_stub_\n
    .endr
"#,
    not_ac = const !(1u64 << 18) as i32,
    user_ss = const USER_SS,
    user_cs = const USER_CS,
    syscall_vector = const SYSCALL_VECTOR,
    kstack = const super::cpu::OFFSET_KERNEL_STACK,
    user_rsp = const super::cpu::OFFSET_USER_RSP,
    ctx_top = const super::cpu::OFFSET_CTX_TOP,
    ctx_ptr = const super::cpu::OFFSET_CTX_PTR,
);

extern "C" {
    static trap_stub_table: [u64; STUB_COUNT];
    fn exit_to_task() -> !;
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

/// Leaves the kernel into the context the per-CPU block names, from the
/// end of a trap handler (its stack is abandoned).
///
/// # Safety
/// As for [`enter`].
#[inline(always)]
pub unsafe fn leave() -> ! {
    // Safety: as for `enter`.
    unsafe { core::arch::asm!("jmp {0}", sym exit_to_task, options(noreturn)) }
}

/// Leaves the kernel into the context the per-CPU block names (the first
/// task, at boot).
///
/// # Safety
/// The per-CPU `ctx_ptr` must point at a valid frame (a task's, with ring-3
/// selectors and canonical addresses, or the idle loop's), and nothing on
/// the current stack may be needed again.
pub unsafe fn enter() -> ! {
    // Safety: the caller guarantees the frame; `exit_to_task` restores it
    // and leaves with `iretq`/`sysretq`, never returning here.
    unsafe { core::arch::asm!("jmp {0}", sym exit_to_task, options(noreturn)) }
}
