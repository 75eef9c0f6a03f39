//! The CPU state a task cannot name through a capability — x87, MMX, SSE
//! and the FS/GS selectors — set and read with inline assembly, for tests
//! that check the kernel neither leaks it between tasks nor loses it.
//!
//! The guest target (`x86_64-unknown-none`) compiles Rust without x87,
//! MMX or SSE, so no compiled code keeps values in those registers and
//! changing them cannot disturb it; that is why these functions are safe.
//! SSE instructions raise #UD unless the kernel set CR4.OSFXSR: [`set_sse`]
//! and [`read_sse`] fault the calling task on such a kernel.

/// x87 and MMX state as a task sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct X87 {
    /// Control word (0x37f after `fninit`).
    pub fcw: u16,
    /// Tag word (0xffff: every register empty).
    pub ftw: u16,
    /// mm0..mm7: the low 64 bits of the eight x87 registers.
    pub mm: [u64; 8],
}

/// SSE state as a task sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sse {
    /// Control and status (0x1f80 at reset).
    pub mxcsr: u32,
    /// xmm0..xmm15, each as (low, high) 64-bit halves.
    pub xmm: [[u64; 2]; 16],
}

/// Resets the x87 unit, loads control word `fcw`, pushes two constants
/// (pi, then 1.0: they land in physical registers 7 and 6) and writes
/// `mm[0..6]` to mm0..mm5. Afterwards every tag says "valid".
pub fn set_x87(fcw: u16, mm: &[u64; 6]) {
    // Safety: x87/MMX registers hold no compiled values on this target
    // (module docs); the two pointers are valid for the reads made.
    unsafe {
        core::arch::asm!(
            "fninit",
            "fldcw word ptr [{cw}]",
            "fldpi",
            "fld1",
            "movq mm0, qword ptr [{mm}]",
            "movq mm1, qword ptr [{mm} + 8]",
            "movq mm2, qword ptr [{mm} + 16]",
            "movq mm3, qword ptr [{mm} + 24]",
            "movq mm4, qword ptr [{mm} + 32]",
            "movq mm5, qword ptr [{mm} + 40]",
            cw = in(reg) &fcw,
            mm = in(reg) mm.as_ptr(),
            options(nostack, readonly),
        );
    }
}

/// Reads the control and tag words first (so the MMX reads that follow,
/// which mark every register valid, do not change what is reported).
pub fn read_x87() -> X87 {
    let mut env = [0u16; 14]; // fnstenv's 28-byte protected-mode layout
    let mut s = X87::default();
    // Safety: as for `set_x87`; `env` and `s.mm` are valid for the writes
    // made (28 and 64 bytes). `fnstenv` masks x87 exceptions afterwards,
    // so `fldenv` puts the control word back.
    unsafe {
        core::arch::asm!(
            "fnstenv [{env}]",
            "fldenv [{env}]",
            "movq qword ptr [{mm}], mm0",
            "movq qword ptr [{mm} + 8], mm1",
            "movq qword ptr [{mm} + 16], mm2",
            "movq qword ptr [{mm} + 24], mm3",
            "movq qword ptr [{mm} + 32], mm4",
            "movq qword ptr [{mm} + 40], mm5",
            "movq qword ptr [{mm} + 48], mm6",
            "movq qword ptr [{mm} + 56], mm7",
            env = in(reg) env.as_mut_ptr(),
            mm = in(reg) s.mm.as_mut_ptr(),
            options(nostack),
        );
    }
    s.fcw = env[0];
    s.ftw = env[4];
    s
}

/// Loads MXCSR and xmm0..xmm15.
pub fn set_sse(mxcsr: u32, xmm: &[[u64; 2]; 16]) {
    // Safety: SSE registers hold no compiled values on this target (module
    // docs); the pointers are valid for the 4 and 256 bytes read. A kernel
    // without CR4.OSFXSR makes this #UD, which stops the task, not others.
    unsafe {
        core::arch::asm!(
            "ldmxcsr dword ptr [{cs}]",
            "movdqu xmm0, [{x}]",
            "movdqu xmm1, [{x} + 16]",
            "movdqu xmm2, [{x} + 32]",
            "movdqu xmm3, [{x} + 48]",
            "movdqu xmm4, [{x} + 64]",
            "movdqu xmm5, [{x} + 80]",
            "movdqu xmm6, [{x} + 96]",
            "movdqu xmm7, [{x} + 112]",
            "movdqu xmm8, [{x} + 128]",
            "movdqu xmm9, [{x} + 144]",
            "movdqu xmm10, [{x} + 160]",
            "movdqu xmm11, [{x} + 176]",
            "movdqu xmm12, [{x} + 192]",
            "movdqu xmm13, [{x} + 208]",
            "movdqu xmm14, [{x} + 224]",
            "movdqu xmm15, [{x} + 240]",
            cs = in(reg) &mxcsr,
            x = in(reg) xmm.as_ptr(),
            options(nostack, readonly),
        );
    }
}

/// Reads MXCSR and xmm0..xmm15.
pub fn read_sse() -> Sse {
    let mut s = Sse::default();
    // Safety: as for `set_sse`; `s` is valid for the 4 and 256 bytes written.
    unsafe {
        core::arch::asm!(
            "stmxcsr dword ptr [{cs}]",
            "movdqu [{x}], xmm0",
            "movdqu [{x} + 16], xmm1",
            "movdqu [{x} + 32], xmm2",
            "movdqu [{x} + 48], xmm3",
            "movdqu [{x} + 64], xmm4",
            "movdqu [{x} + 80], xmm5",
            "movdqu [{x} + 96], xmm6",
            "movdqu [{x} + 112], xmm7",
            "movdqu [{x} + 128], xmm8",
            "movdqu [{x} + 144], xmm9",
            "movdqu [{x} + 160], xmm10",
            "movdqu [{x} + 176], xmm11",
            "movdqu [{x} + 192], xmm12",
            "movdqu [{x} + 208], xmm13",
            "movdqu [{x} + 224], xmm14",
            "movdqu [{x} + 240], xmm15",
            cs = in(reg) &mut s.mxcsr,
            x = in(reg) s.xmm.as_mut_ptr(),
            options(nostack),
        );
    }
    s
}

/// Loads `selector` into FS and GS. A selector of a user data descriptor
/// (or 0) is the only kind ring 3 may load; anything else faults the task.
/// Loading also sets the FS and GS bases from the descriptor (0).
pub fn set_segments(selector: u16) {
    // Safety: compiled code on this target uses neither FS nor GS (no
    // thread-locals); a bad selector faults only this task.
    unsafe {
        core::arch::asm!(
            "mov fs, {s:x}",
            "mov gs, {s:x}",
            s = in(reg) selector,
            options(nostack, nomem),
        );
    }
}

/// The FS and GS selectors.
pub fn read_segments() -> (u16, u16) {
    let (fs, gs): (u16, u16);
    // Safety: reading segment selectors has no effect.
    unsafe {
        core::arch::asm!(
            "mov {f:x}, fs",
            "mov {g:x}, gs",
            f = out(reg) fs,
            g = out(reg) gs,
            options(nostack, nomem, preserves_flags),
        );
    }
    (fs, gs)
}
