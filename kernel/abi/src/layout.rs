//! The layout of every task's address space.
//!
//! The lower canonical half belongs to the task, the upper half to the
//! kernel. Within the lower half the program's ELF segments sit low, the
//! heap at a fixed base, and the stack just under [`USER_STACK_TOP`]. The
//! manifest chooses the sizes; these constants fix the places.

/// Lowest address a task's ELF segment may occupy; page 0 stays unmapped so
/// null dereferences fault.
pub const USER_IMAGE_MIN: u64 = 0x1_0000;
/// Highest address (exclusive) a task's ELF segments may reach.
pub const USER_IMAGE_MAX: u64 = IPC_BUFFER;
/// The task's IPC buffer: one page the kernel copies long messages from
/// and into (see `conflux_abi::ipc`).
pub const IPC_BUFFER: u64 = 0x0000_0800_0000_0000;
/// Start of the task's heap (its size is the manifest's `heap_size`).
pub const HEAP_BASE: u64 = 0x0000_1000_0000_0000;
/// Start of the window where regions (shared memory, device registers) are
/// mapped: by the manifest at start, or at run time by `region_map`.
pub const REGION_BASE: u64 = 0x0000_2000_0000_0000;
/// End (exclusive) of the region window.
pub const REGION_END: u64 = 0x0000_7000_0000_0000;
/// One past the highest byte of the task's stack (its size is the
/// manifest's `stack_size`; an unmapped guard page sits below it).
pub const USER_STACK_TOP: u64 = 0x0000_7fff_ffe0_0000;
/// One past the highest user address the kernel ever maps or accepts.
///
/// It stops well short of the canonical boundary: a `syscall` in the last
/// page would return to a non-canonical address, which on Intel CPUs makes
/// `sysret` fault in ring 0.
pub const USER_TOP: u64 = 0x0000_7fff_ffff_0000;
/// Page size used for every user mapping.
pub const PAGE_SIZE: u64 = 4096;

// The regions must not overlap; checked when the crate compiles.
const _: () = assert!(
    USER_IMAGE_MIN < USER_IMAGE_MAX && HEAP_BASE < USER_STACK_TOP && USER_STACK_TOP < USER_TOP
);

/// True when `[addr, addr + len)` lies inside the user half without
/// wrapping around.
pub fn is_user_range(addr: u64, len: u64) -> bool {
    match addr.checked_add(len) {
        Some(end) => end <= USER_TOP,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_range_rejects_kernel_and_wraparound() {
        assert!(is_user_range(0x1000, 10));
        assert!(is_user_range(USER_TOP - 1, 1));
        assert!(!is_user_range(USER_TOP - 1, 2));
        assert!(!is_user_range(0xffff_8000_0000_0000, 1));
        assert!(!is_user_range(u64::MAX, 2));
    }
}
