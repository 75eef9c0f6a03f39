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

/// `tasks.*.priority`: 0 is the most urgent (the kernel's bound too).
pub const MAX_PRIORITY: u8 = conflux_abi::syscall::MAX_PRIORITY;

/// `tasks.*.stack_size`: default and range, in bytes.
pub const DEFAULT_STACK_SIZE: u32 = 16 * 1024;
pub const MIN_STACK_SIZE: u32 = PAGE_SIZE;
pub const MAX_STACK_SIZE: u32 = MIB;

/// `tasks.*.heap_size`: default and range, in bytes. A file server whose
/// page cache holds a benchmark's 64 MiB working set needs more than
/// 64 MiB; the system's memory bounds it further (tasks take at most
/// half of `memory_mib`).
pub const DEFAULT_HEAP_SIZE: u32 = 64 * 1024;
pub const MAX_HEAP_SIZE: u32 = 1024 * MIB;

/// `test.timeout_secs`: default and range.
pub const DEFAULT_TIMEOUT_SECS: u32 = 30;
pub const MIN_TIMEOUT_SECS: u32 = 1;
pub const MAX_TIMEOUT_SECS: u32 = 600;

/// `test.crash.rounds`: at least one killed boot and the final one.
pub const MIN_CRASH_ROUNDS: u32 = 2;
pub const MAX_CRASH_ROUNDS: u32 = 100;

/// Slots in every task's capability table (slot 0 stays empty).
pub const CAP_SLOTS: usize = conflux_abi::cap::CAP_SLOTS;
/// Most kernel objects one system may declare (the fault endpoint counts).
pub const MAX_OBJECTS: usize = conflux_bootimg::MAX_OBJECTS;
/// Most initial capabilities all tasks together may hold.
pub const MAX_CAPS: usize = conflux_bootimg::MAX_CAPS;

/// `regions.*.size` and `mmio.*.size`: whole pages, at most 64 MiB.
pub const MIN_REGION_SIZE: u64 = PAGE_SIZE as u64;
pub const MAX_REGION_SIZE: u64 = conflux_bootimg::MAX_REGION;
/// `mmio.*`: the range must end at or below 4 GiB.
pub const MMIO_END: u64 = 1 << 32;
/// Guest RAM below 4 GiB ends here once it would reach the PCI hole; q35
/// then keeps 2 GiB low and puts the rest above 4 GiB.
pub const LOW_RAM_SPLIT: u64 = 0xb000_0000;
pub const LOW_RAM_AFTER_SPLIT: u64 = 0x8000_0000;

/// `irqs.*.line`: the interrupt lines the kernel routes.
pub const MIN_IRQ_LINE: u64 = *conflux_bootimg::IRQ_LINES.start();
pub const MAX_IRQ_LINE: u64 = *conflux_bootimg::IRQ_LINES.end();
/// `irqs.*.bit`: a bit of the notification's 64-bit word.
pub const MAX_NOTIFICATION_BIT: u64 = 63;

/// `ioports.*`: the x86 I/O port space is 64 KiB.
pub const IO_PORTS: u64 = 0x1_0000;

/// Where a task's first region or MMIO range is mapped, and the end of the
/// window; mappings follow each other with one unmapped guard page between.
pub const REGION_BASE: u64 = conflux_abi::layout::REGION_BASE;
pub const REGION_END: u64 = conflux_abi::layout::REGION_END;

// A task's mappings always fit the window: at most every slot holds a
// largest region, each followed by a guard page. So no manifest can fail
// on it and the rule needs no error message.
const _: () =
    assert!(CAP_SLOTS as u64 * (MAX_REGION_SIZE + PAGE_SIZE as u64) <= REGION_END - REGION_BASE);

/// `[devices.*]`: at most one device per PCI INTx line (q35 routes the
/// INTA# of bus-0 slots onto four lines, GSIs 20..=23).
pub const MAX_DEVICES: usize = 4;
/// The PCI slot (bus 0) of the first declared device; the next ones follow.
pub const FIRST_DEVICE_SLOT: u8 = 0x08;
/// The BAR of QEMU's modern virtio-pci devices that holds their registers.
pub const VIRTIO_BAR: u8 = 4;
/// `devices.*.dma_pool`: default size in bytes.
pub const DEFAULT_DMA_POOL: u64 = 256 * 1024;
/// `devices.*.size_mib`: the largest fresh disk.
pub const MAX_DISK_MIB: u32 = 4096;
/// `devices.*.forwards[].host`: the lowest host port (no privileged ports).
pub const MIN_HOST_PORT: u16 = 1024;
/// Longest device name: object names (`NAME.config`, `NAME.notify`) must
/// fit the boot image's 31 bytes.
pub const MAX_DEVICE_NAME_LEN: usize = MAX_NAME_LEN - ".config".len();

/// `devices.*.generate[].size`: the largest generated file (the runner
/// keeps a copy in memory to check what the guest serves).
pub const MAX_GENERATED_SIZE: u64 = 256 * MIB as u64;
/// `devices.*.generate`: most generated files on one disk.
pub const MAX_GENERATED_FILES: usize = 256;
/// `devices.*.generate[].files`: most files in one generated directory
/// (`mke2fs -d` fills a 50,000-entry directory in seconds; the bound
/// keeps a typo from building millions).
pub const MAX_GENERATED_DIR_FILES: u32 = 100_000;

/// `test.http[]`: default and largest deadline, clients and requests.
pub const DEFAULT_HTTP_DEADLINE_SECS: u32 = 30;
pub const MAX_HTTP_CLIENTS: u32 = 256;
pub const MAX_HTTP_REQUESTS: u32 = 100_000;
/// `test.http[].peers`: most connections one hold exchange opens (enough
/// to fill every connection httpd serves and the 503s it sends).
pub const MAX_HOLD_PEERS: u32 = 128;
/// `test.http[].clients` of a crowd: most connections opened at once.
pub const MAX_CROWD_CLIENTS: u32 = 1000;
/// `test.http[].probe_secs`: the default time a hold's probe may take.
pub const DEFAULT_PROBE_SECS: u32 = 10;
/// `test.http[].send_header_bytes`: the largest header flood.
pub const MAX_FLOOD_BYTES: u64 = 64 * MIB as u64;

/// `tasks.*.caps.*.root`: the longest name in a file-server client's root
/// and the longest root, in bytes. They are the file server's limits
/// (`conflux_ext4::MAX_NAME` and `MAX_PATH`; the manifest's tests check
/// that they agree), so a root the manifest accepts is one the server
/// can use.
pub const MAX_ROOT_NAME: usize = 255;
pub const MAX_ROOT_PATH: usize = 4096;
