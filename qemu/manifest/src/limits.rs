//! Every limit and default of the manifest schema, in one place.
//!
//! The validator, the error messages and the generated code all read these
//! constants, so a limit is changed here and nowhere else. They are public so
//! that the kernel's and the runner's own checks can agree with the manifest.

/// The page size: stacks and heaps are whole pages.
pub const PAGE_SIZE: u32 = 4096;
/// One mebibyte, in bytes.
pub const MIB: u32 = 1024 * 1024;

/// Longest system or task name, in bytes (names live in fixed-size kernel
/// records and in console reports).
pub const MAX_NAME_LEN: usize = 31;
/// Most tasks one system may have.
pub const MAX_TASKS: usize = 64;

/// `system.memory_mib`: default and range.
pub const DEFAULT_MEMORY_MIB: u32 = 128;
pub const MIN_MEMORY_MIB: u32 = 32;
pub const MAX_MEMORY_MIB: u32 = 4096;

/// `system.cpus`: default and range.
pub const DEFAULT_CPUS: u32 = 1;
pub const MIN_CPUS: u32 = 1;
pub const MAX_CPUS: u32 = 8;

/// `tasks.*.priority`: 0 is the most urgent.
pub const MAX_PRIORITY: u8 = 15;

/// `tasks.*.stack_size`: default and range, in bytes.
pub const DEFAULT_STACK_SIZE: u32 = 16 * 1024;
pub const MIN_STACK_SIZE: u32 = PAGE_SIZE;
pub const MAX_STACK_SIZE: u32 = MIB;

/// `tasks.*.heap_size`: default and range, in bytes.
pub const DEFAULT_HEAP_SIZE: u32 = 64 * 1024;
pub const MAX_HEAP_SIZE: u32 = 64 * MIB;

/// `test.timeout_secs`: default and range.
pub const DEFAULT_TIMEOUT_SECS: u32 = 30;
pub const MIN_TIMEOUT_SECS: u32 = 1;
pub const MAX_TIMEOUT_SECS: u32 = 600;
