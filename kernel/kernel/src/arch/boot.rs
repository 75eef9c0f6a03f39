//! PVH entry: from 32-bit protected mode to the kernel's Rust entry point.
//!
//! QEMU (like Xen) starts a PVH kernel at the physical address in the
//! `XEN_ELFNOTE_PHYS32_ENTRY` note, in 32-bit protected mode with paging
//! off and `ebx` pointing at the `hvm_start_info` structure. This code
//! builds just enough page tables to enter long mode — the first 4 GiB
//! identity-mapped (needed while the instruction pointer is still low),
//! the same 4 GiB again at the direct-map base, and the first 1 GiB at the
//! kernel's link address — then jumps to `kernel_main` in the higher half.
//! These tables are read-write-execute everywhere and live only until
//! `paging::init`, where `kmap` replaces them with W^X tables.
//! Everything here is position-fixed at its physical address; see `link.ld`.

core::arch::global_asm!(
    r#"
    .section .note.Xen, "a", @note
    .balign 4
    .long 4                 /* name size: "Xen\0" */
    .long 8                 /* descriptor size: QEMU reads a 64-bit entry */
    .long 18                /* XEN_ELFNOTE_PHYS32_ENTRY */
    .asciz "Xen"
    .balign 4
    .quad pvh_start
    .balign 4

    .section .boot.bss, "aw", @nobits
    .balign 4096
boot_pml4:      .skip 4096
boot_pdpt_low:  .skip 4096
boot_pdpt_high: .skip 4096
boot_pd:        .skip 4 * 4096
boot_stack:     .skip 4096
boot_stack_top:

    .section .boot.data, "aw"
    .balign 16
boot_gdt:
    .quad 0
    .quad 0x00af9a000000ffff    /* 0x08: 64-bit code, ring 0 */
    .quad 0x00cf92000000ffff    /* 0x10: data, ring 0 */
boot_gdt_end:
boot_gdtr:
    .word boot_gdt_end - boot_gdt - 1
    .long boot_gdt

    .section .boot.text, "ax"
    .code32
    .global pvh_start
pvh_start:
    cli
    cld
    mov esi, ebx                /* hvm_start_info (physical), kept in esi */
    mov esp, offset boot_stack_top

    /* Zero the page tables: do not rely on the loader clearing NOBITS. */
    mov edi, offset boot_pml4
    mov ecx, 7 * 1024            /* 7 tables of 4 KiB, in dwords */
    xor eax, eax
    rep stosd

    /* 2048 x 2 MiB pages: physical 0..4 GiB. */
    mov edi, offset boot_pd
    xor ecx, ecx
1:  mov eax, ecx
    shl eax, 21
    or eax, 0x83                /* present | writable | 2 MiB page */
    mov [edi + ecx * 8], eax
    inc ecx
    cmp ecx, 2048
    jb 1b

    /* PDPT: four 1 GiB slots, one page directory each. */
    mov edi, offset boot_pdpt_low
    mov eax, offset boot_pd
    or eax, 3
    mov [edi], eax
    add eax, 4096
    mov [edi + 8], eax
    add eax, 4096
    mov [edi + 16], eax
    add eax, 4096
    mov [edi + 24], eax

    /* Kernel window: 0xFFFFFFFF80000000 -> physical 0 (first 1 GiB). */
    mov edi, offset boot_pdpt_high
    mov eax, offset boot_pd
    or eax, 3
    mov [edi + 510 * 8], eax

    /* PML4: identity [0], direct map [256], kernel window [511]. */
    mov edi, offset boot_pml4
    mov eax, offset boot_pdpt_low
    or eax, 3
    mov [edi], eax
    mov [edi + 256 * 8], eax
    mov eax, offset boot_pdpt_high
    or eax, 3
    mov [edi + 511 * 8], eax

    mov eax, offset boot_pml4
    mov cr3, eax
    mov eax, cr4
    or eax, 1 << 5              /* PAE */
    mov cr4, eax
    mov ecx, 0xC0000080         /* IA32_EFER */
    rdmsr
    or eax, 1 << 8              /* LME */
    wrmsr
    mov eax, cr0
    or eax, 0x80000001          /* PG | PE */
    mov cr0, eax

    lgdt [boot_gdtr]
    push 0x08
    mov eax, offset boot_long_mode
    push eax
    retf

    .code64
boot_long_mode:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor eax, eax
    mov fs, ax
    mov gs, ax
    movabs rax, offset boot_high
    jmp rax

    /* kernel_main's stack until the first task runs (64 KiB). */
    .section .bss.boot_stack, "aw", @nobits
    .balign 16
kernel_boot_stack:      .skip 65536
kernel_boot_stack_top:

    .section .text.boot_high, "ax"
boot_high:
    movabs rsp, offset kernel_boot_stack_top
    mov edi, esi                /* zero-extends: start info physical address */
    xor ebp, ebp
    call kernel_main
    ud2
"#
);
