//! The real-mode trampoline that brings an application processor (AP) from
//! its start-up IPI into the kernel's 64-bit code.
//!
//! A start-up IPI starts a CPU in 16-bit real mode at a page below 1 MiB,
//! so the code below is assembled for that page ([`PAGE`]) and copied there
//! before each start. It loads a small GDT of its own, enters protected
//! mode, turns on PAE, long mode and NX (the kernel's tables use the NX
//! bit, which is reserved until EFER.NXE is set), loads the page tables the
//! BSP prepared (the kernel half plus an identity map of the first 2 MiB,
//! needed while the instruction pointer is still low), and jumps to
//! `ap_main` in the higher half on the stack the BSP chose. The BSP writes
//! those three values into the parameter block at [`PARAMS`] before each
//! start-up IPI; one AP starts at a time, so one block serves all.

use super::paging::{phys_to_virt, AddressSpace, MapError};

/// Physical page the trampoline runs at (the start-up vector is its
/// number). Below 1 MiB, left to firmware by the frame allocator, and not
/// where QEMU's PVH loader puts its start info (checked in `smp`).
pub const PAGE: u64 = 0x8000;
/// Offset of the parameter block in the page: CR3 (u64), stack top (u64),
/// CPU index (u64), entry address (u64).
const PARAMS_OFFSET: u64 = 0xf00;
const PARAMS: u64 = PAGE + PARAMS_OFFSET;

core::arch::global_asm!(
    r#"
    .section .rodata.ap_trampoline, "a"
    .global ap_trampoline_start
    .global ap_trampoline_end
    .code16
ap_trampoline_start:
    jmp 2f
    /* The GDT sits at fixed offsets so that instructions can name it by a
       constant address (the assembler takes no label arithmetic there). */
    .org 8
ap_gdt:
    .quad 0
    .quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
    .quad 0x00cf92000000ffff        /* 0x10: data */
    .quad 0x00af9a000000ffff        /* 0x18: 64-bit code */
    .org {gdtr_offset}
    .word 4 * 8 - 1
    .long {page} + 8
2:
    cli
    cld
    xor ax, ax
    mov ds, ax
    lgdt [{page} + {gdtr_offset}]
    mov eax, cr0
    or eax, 1                       /* PE */
    mov cr0, eax
    .byte 0x66, 0xea                /* far jump, 32-bit offset: into 32-bit code */
    .long {page} + (ap_protected - ap_trampoline_start)
    .word 0x08

    .code32
ap_protected:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov eax, cr4
    or eax, 1 << 5                  /* PAE */
    mov cr4, eax
    mov eax, [{params}]             /* CR3: below 4 GiB */
    mov cr3, eax
    mov ecx, 0xC0000080             /* IA32_EFER */
    rdmsr
    or eax, (1 << 8) | (1 << 11)    /* LME, NXE */
    wrmsr
    mov eax, cr0
    or eax, 0x80010000              /* PG, WP */
    mov cr0, eax
    .byte 0xea                      /* far jump: into 64-bit code */
    .long {page} + (ap_long - ap_trampoline_start)
    .word 0x18

    .code64
ap_long:
    xor eax, eax
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov eax, {params}
    mov rsp, [rax + 8]
    mov rdi, [rax + 16]
    mov rax, [rax + 24]
    xor ebp, ebp
    jmp rax
ap_trampoline_end:
    .code64
"#,
    page = const PAGE,
    gdtr_offset = const 40,
    params = const PARAMS,
);

extern "C" {
    static ap_trampoline_start: u8;
    static ap_trampoline_end: u8;
}

/// The trampoline page, ready for start-up IPIs, with the page tables the
/// APs enter long mode on ([`Trampoline::remove`] frees them).
pub struct Trampoline {
    tables: AddressSpace,
    cr3: u64,
}

impl Trampoline {
    /// Copies the trampoline to [`PAGE`] and builds its page tables.
    pub fn install() -> Result<Self, MapError> {
        let mut tables = AddressSpace::new()?;
        let cr3 = match tables.map_boot_identity() {
            Ok(cr3) => cr3,
            Err(e) => {
                tables.destroy();
                return Err(e);
            }
        };
        // Only the addresses of the linker symbols are taken.
        let (start, end) = (
            core::ptr::addr_of!(ap_trampoline_start),
            core::ptr::addr_of!(ap_trampoline_end),
        );
        let len = end as usize - start as usize;
        assert!(
            len as u64 <= PARAMS_OFFSET,
            "the AP trampoline ({len} bytes) overlaps its parameter block"
        );
        // Safety: [PAGE, PAGE + 4 KiB) is low memory the allocator never
        // hands out, reached through the direct map; the source is the
        // trampoline's bytes in the kernel's rodata, `len` long.
        unsafe { core::ptr::copy_nonoverlapping(start, phys_to_virt(PAGE), len) };
        Ok(Self { tables, cr3 })
    }

    /// Frees the page tables once every AP runs on the kernel's own.
    pub fn remove(self) {
        self.tables.destroy();
    }

    /// The start-up vector: the trampoline's page number.
    pub fn vector(&self) -> u8 {
        (PAGE >> 12) as u8
    }

    /// Sets what the next AP to start gets: its stack top, CPU index and
    /// 64-bit entry point (`extern "C" fn(cpu: u64) -> !`).
    pub fn set_params(&self, stack_top: u64, cpu: u64, entry: u64) {
        let params = [self.cr3, stack_top, cpu, entry];
        let at = phys_to_virt(PARAMS) as *mut u64;
        for (i, v) in params.into_iter().enumerate() {
            // Safety: the parameter block lies in the trampoline page (above
            // its code, checked in `install`); no AP reads it until the
            // start-up IPI that follows.
            unsafe { core::ptr::write_volatile(at.add(i), v) };
        }
    }
}
