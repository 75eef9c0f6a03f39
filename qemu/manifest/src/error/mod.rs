//! Every way a manifest can be rejected, one variant per rule.
//!
//! Each message says where (the file, then the TOML path such as
//! `tasks.hello.priority`), what is wrong, and what to do about it. The
//! messages are part of the crate's interface: tests assert them word for
//! word, so change them deliberately. The wording lives in `describe`, the
//! shared phrasing (sizes, ranges, references) in `format`. Suggestions
//! are boxed to keep the error small on the success path.

mod describe;
mod extends;
mod file_rights;
mod format;
mod http;

pub use extends::ExtendsRule;
pub use file_rights::FileRightsRule;
pub use http::{ExchangeRule, GeneratedRule};

use std::fmt;

use crate::model::{DeviceKind, Mode};
use crate::suggest::Suggestion;
use conflux_abi::devices::KernelDevice;

/// Why a manifest was rejected. `Display` gives the full message, starting
/// with the manifest's origin.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The manifest file could not be read.
    Read {
        origin: String,
        source: std::io::Error,
    },
    /// The text is not valid TOML.
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A key the schema does not know, in the table at `table` ("" is the
    /// top level).
    UnknownKey {
        origin: String,
        table: String,
        key: String,
        suggestion: Box<Suggestion>,
    },
    /// A value of the wrong TOML type.
    WrongType {
        origin: String,
        path: String,
        expected: &'static str,
        found: String,
    },
    /// A required key is absent from the table at `table`.
    MissingKey {
        origin: String,
        table: String,
        key: &'static str,
        expected: &'static str,
    },
    /// A system, task or crate name that breaks its syntax rule.
    InvalidName {
        origin: String,
        path: String,
        what: &'static str,
        name: String,
        rule: &'static str,
    },
    /// A system or task name longer than `max` bytes.
    NameTooLong {
        origin: String,
        path: String,
        what: &'static str,
        name: String,
        max: usize,
    },
    /// An integer outside its allowed range (priority, sizes, memory, cpus,
    /// timeout, ...); `bytes` says whether it is a size in bytes.
    OutOfRange {
        origin: String,
        path: String,
        value: i64,
        min: i64,
        max: i64,
        bytes: bool,
    },
    /// A stack or heap size that is not a whole number of pages.
    NotPageMultiple {
        origin: String,
        path: String,
        value: i64,
    },
    /// An entry of `test.modes` that names no mode.
    UnknownMode {
        origin: String,
        path: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A mode listed twice in `test.modes`.
    DuplicateMode { origin: String, mode: Mode },
    /// `test.expect` has no entries.
    EmptyExpect { origin: String },
    /// An empty string in `test.expect` or `test.forbid`.
    EmptyPattern { origin: String, path: String },
    /// `test.crash.kill_after_ms` is not two numbers.
    CrashWindowShape {
        origin: String,
        path: String,
        len: usize,
    },
    /// `test.crash.kill_after_ms` has its minimum above its maximum.
    CrashWindowReversed {
        origin: String,
        path: String,
        min: i64,
        max: i64,
    },
    /// `test.crash` in a system without a disk to crash.
    CrashWithoutDisk { origin: String },
    /// `test.nmi_after_ms` not strictly increasing.
    NmiTimesNotIncreasing {
        origin: String,
        path: String,
        value: i64,
        previous: i64,
    },
    /// `test.outcome` names no outcome.
    UnknownOutcome {
        origin: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// `test.network` names no network backend.
    UnknownNetwork {
        origin: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// The system has no task.
    NoTasks { origin: String },
    /// The system has more tasks than [`crate::limits::MAX_TASKS`].
    TooManyTasks {
        origin: String,
        count: usize,
        max: usize,
    },
    /// Two tasks share a `start_order`.
    DuplicateStartOrder {
        origin: String,
        first: String,
        second: String,
        start_order: u32,
    },
    /// A task's `cpu` is not one of the system's CPUs.
    CpuOutOfRange {
        origin: String,
        task: String,
        cpu: u32,
        cpus: u32,
    },
    /// The tasks' stacks and heaps need more than half the guest memory.
    MemoryBudget {
        origin: String,
        requested: u64,
        available: u64,
        memory_mib: u32,
    },
    /// `tasks.*.restart` names no restart policy.
    UnknownRestart {
        origin: String,
        path: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// `system.supervisor` names no task.
    UnknownSupervisor {
        origin: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// The supervisor itself has a restart policy: nothing restarts it.
    SupervisorRestarts {
        origin: String,
        task: String,
        policy: &'static str,
    },
    /// A task has a restart policy but the system has no supervisor.
    RestartWithoutSupervisor {
        origin: String,
        task: String,
        policy: &'static str,
    },
    /// `endpoints.*.sessions = true` in a system without a supervisor:
    /// no one would tell the server that a client is gone.
    SessionsWithoutSupervisor { origin: String, endpoint: String },
    /// `endpoints.*.sessions = true` on an endpoint the supervisor serves
    /// (it would tell itself).
    SessionsOfSupervisor {
        origin: String,
        endpoint: String,
        supervisor: String,
    },
    /// `endpoints.*.server` names no task.
    UnknownServer {
        origin: String,
        endpoint: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// `irqs.*.notification` names no notification.
    UnknownNotification {
        origin: String,
        irq: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A capability names an object of its kind that is not declared;
    /// `kind` is the key (`endpoint`), `table` where such objects are
    /// declared (`endpoints`).
    UnknownObject {
        origin: String,
        path: String,
        kind: &'static str,
        table: &'static str,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A capability names no object, or several (`keys` are the object
    /// keys it has).
    CapObjectCount {
        origin: String,
        path: String,
        keys: Vec<&'static str>,
    },
    /// A letter in `rights` that is no right.
    UnknownRight {
        origin: String,
        path: String,
        rights: String,
        letter: char,
    },
    /// A right written twice in one `rights`.
    RepeatedRight {
        origin: String,
        path: String,
        rights: String,
        letter: char,
    },
    /// A right that means nothing for the capability's kind of object.
    RightNotMeaningful {
        origin: String,
        path: String,
        letter: char,
        kind: &'static str,
        allowed: String,
    },
    /// `badge` on a capability whose kind carries none.
    BadgeNotAllowed {
        origin: String,
        path: String,
        kind: &'static str,
    },
    /// `quota` on a capability that is not to an endpoint.
    QuotaNotAllowed {
        origin: String,
        path: String,
        kind: &'static str,
    },
    /// Two capabilities with one badge on one endpoint (one client) give
    /// it different quotas.
    ConflictingQuotas {
        origin: String,
        endpoint: String,
        badge: u64,
        first: (String, u32),
        second: (String, u32),
    },
    /// A task other than an endpoint's server holds the right to receive
    /// on it.
    NotTheServer {
        origin: String,
        path: String,
        endpoint: String,
        server: String,
    },
    /// An address that must start a page does not.
    NotPageAligned {
        origin: String,
        path: String,
        value: u64,
    },
    /// Two IRQ objects on one interrupt line.
    DuplicateIrqLine {
        origin: String,
        first: String,
        second: String,
        line: u64,
    },
    /// Two tasks hold one IRQ (an IRQ has one owner).
    SharedIrq {
        origin: String,
        irq: String,
        first: String,
        second: String,
    },
    /// Two I/O port ranges share ports.
    OverlappingIoPorts {
        origin: String,
        first: Span,
        second: Span,
    },
    /// Two MMIO ranges share addresses.
    OverlappingMmio {
        origin: String,
        first: Span,
        second: Span,
    },
    /// `ioports.*.kernel_device` names no kernel device.
    UnknownKernelDevice {
        origin: String,
        path: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// An I/O port range overlaps a kernel device it does not grant.
    KernelDeviceNotGranted {
        origin: String,
        ports: Span,
        device: KernelDevice,
    },
    /// An I/O port range that grants a kernel device reaches beyond its ports.
    KernelDeviceOutside {
        origin: String,
        ports: Span,
        device: KernelDevice,
    },
    /// A granted kernel device is held by no task (`holders` empty) or by
    /// several; `object` is the first range granting it.
    KernelDeviceHolders {
        origin: String,
        device: KernelDevice,
        object: String,
        holders: Vec<String>,
    },
    /// An MMIO range lies in guest RAM, which would hand a task the
    /// kernel's memory.
    MmioInRam {
        origin: String,
        mmio: Span,
        ram_end: u64,
        memory_mib: u32,
    },
    /// A task needs more capability slots than its table has.
    TooManyCaps {
        origin: String,
        task: String,
        count: usize,
        max: usize,
    },
    /// More kernel objects than the boot tables hold.
    TooManyObjects {
        origin: String,
        count: usize,
        max: usize,
    },
    /// More capabilities, over all tasks, than the boot tables hold.
    TooManySystemCaps {
        origin: String,
        count: usize,
        max: usize,
    },
    /// Two slots of one task would generate the same constant.
    ConstantClash {
        origin: String,
        task: String,
        first: String,
        second: String,
        constant: String,
    },
    /// Tasks that call each other in a circle (`cycle` starts and ends with
    /// the same task).
    CallCycle { origin: String, cycle: Vec<String> },
    /// More `[devices.*]` than there are PCI interrupt lines.
    TooManyDevices {
        origin: String,
        count: usize,
        max: usize,
    },
    /// `devices.*.kind` names no device kind.
    UnknownDeviceKind {
        origin: String,
        path: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A key of `[devices.*]` that the device's kind does not take.
    KeyNotForKind {
        origin: String,
        path: String,
        kind: DeviceKind,
    },
    /// A virtio-blk device with both or neither of `image` and `size_mib`.
    DiskBacking {
        origin: String,
        table: String,
        both: bool,
    },
    /// A virtio-blk `folder` with `image`, or without `size_mib`.
    FolderBacking { origin: String, table: String },
    /// Two virtio-blk devices built from folders (a system has one disk
    /// image, `target/disks/SYSTEM.img`).
    TwoFolderDisks {
        origin: String,
        first: String,
        second: String,
    },
    /// `devices.*.dma_pool` is not a size.
    BadSize {
        origin: String,
        path: String,
        value: String,
    },
    /// `devices.*.mac` is not a unicast MAC address.
    BadMac {
        origin: String,
        path: String,
        value: String,
    },
    /// A `test.udp` entry's value breaks its rule.
    BadUdpBlast {
        origin: String,
        path: String,
        why: &'static str,
    },
    /// A `test.udp` entry's port is not a UDP forward of the system.
    UdpPortNotForwarded {
        origin: String,
        path: String,
        port: u16,
        forwards: Vec<u16>,
    },
    /// A `test.tcp_sink` entry's port is not a guest forward's host port,
    /// or is listed twice.
    TcpSinkPort {
        origin: String,
        path: String,
        port: u16,
        hosts: Vec<u16>,
        twice: bool,
    },
    /// A `test.tcp_sink` entry's `file` is not a generated file the chunk
    /// divides.
    TcpSinkFile {
        origin: String,
        path: String,
        file: String,
        why: &'static str,
    },
    /// A forward's `protocol` is neither tcp nor udp.
    UnknownProtocol {
        origin: String,
        path: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// `flows.manager` or an entry of `flows.stages` names no task.
    UnknownFlowTask {
        origin: String,
        path: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A task listed twice in `flows.stages`, or the manager listed there.
    FlowStageTwice {
        origin: String,
        task: String,
        manager: bool,
    },
    /// `flows.stages` lists more tasks than the manager has slots for.
    TooManyFlowStages {
        origin: String,
        count: usize,
        max: usize,
    },
    /// `devices.*.driver` names no task.
    UnknownDriver {
        origin: String,
        device: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A device's client is not a task.
    UnknownClient {
        origin: String,
        device: String,
        value: String,
        suggestion: Box<Suggestion>,
    },
    /// A device's driver is also listed as its client.
    DriverIsClient {
        origin: String,
        device: String,
        task: String,
    },
    /// A task listed twice in one device's `clients`.
    DuplicateClient {
        origin: String,
        path: String,
        task: String,
    },
    /// More clients than one driver can tell apart.
    TooManyClients {
        origin: String,
        path: String,
        count: usize,
        max: usize,
    },
    /// Two devices would be one: the same disk image file.
    SharedDiskImage {
        origin: String,
        image: String,
        first: String,
        second: String,
    },
    /// A host port forwarded twice.
    DuplicateForward {
        origin: String,
        port: u16,
        first: String,
        second: String,
    },
    /// Two `guest_forwards` entries for one guest port.
    DuplicateGuestForward {
        origin: String,
        port: u16,
        first: String,
        second: String,
    },
    /// A disk image file that does not exist.
    MissingDiskImage {
        origin: String,
        path: String,
        image: String,
    },
    /// A disk folder that does not exist.
    MissingDiskFolder {
        origin: String,
        path: String,
        folder: String,
    },
    /// A `devices.*.generate` entry breaks a rule.
    Generated {
        origin: String,
        path: String,
        rule: GeneratedRule,
    },
    /// A `test.http` entry breaks a rule.
    Exchange {
        origin: String,
        path: String,
        rule: ExchangeRule,
    },
    /// A rule of `system.extends` (one manifest built on another).
    Extends { origin: String, rule: ExtendsRule },
    /// A capability's file rights (`root`, `access`) broke a rule; `path`
    /// names the key (or the capability). Boxed to keep the error small.
    FileRights {
        origin: String,
        path: String,
        rule: Box<FileRightsRule>,
    },
    /// A `caps` entry names one of a device's objects, which only its
    /// driver holds.
    DeviceObject {
        origin: String,
        path: String,
        object: String,
        device: String,
        driver: String,
    },
    /// A `caps` entry names an object made for `[flows]`.
    FlowObject {
        origin: String,
        path: String,
        object: String,
        manager: String,
    },
}

/// A named range of ports or addresses, `start..end`, in messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub name: String,
    pub start: u64,
    pub end: u64,
}

impl Error {
    /// The path or label of the manifest this error is about.
    pub fn origin(&self) -> &str {
        match self {
            Error::Read { origin, .. }
            | Error::Syntax { origin, .. }
            | Error::UnknownKey { origin, .. }
            | Error::WrongType { origin, .. }
            | Error::MissingKey { origin, .. }
            | Error::InvalidName { origin, .. }
            | Error::NameTooLong { origin, .. }
            | Error::OutOfRange { origin, .. }
            | Error::NotPageMultiple { origin, .. }
            | Error::UnknownMode { origin, .. }
            | Error::DuplicateMode { origin, .. }
            | Error::EmptyExpect { origin }
            | Error::EmptyPattern { origin, .. }
            | Error::NmiTimesNotIncreasing { origin, .. }
            | Error::CrashWindowShape { origin, .. }
            | Error::CrashWindowReversed { origin, .. }
            | Error::CrashWithoutDisk { origin }
            | Error::UnknownOutcome { origin, .. }
            | Error::UnknownNetwork { origin, .. }
            | Error::NoTasks { origin }
            | Error::TooManyTasks { origin, .. }
            | Error::DuplicateStartOrder { origin, .. }
            | Error::CpuOutOfRange { origin, .. }
            | Error::MemoryBudget { origin, .. }
            | Error::UnknownRestart { origin, .. }
            | Error::UnknownSupervisor { origin, .. }
            | Error::SupervisorRestarts { origin, .. }
            | Error::RestartWithoutSupervisor { origin, .. }
            | Error::SessionsWithoutSupervisor { origin, .. }
            | Error::SessionsOfSupervisor { origin, .. }
            | Error::UnknownServer { origin, .. }
            | Error::UnknownNotification { origin, .. }
            | Error::UnknownObject { origin, .. }
            | Error::CapObjectCount { origin, .. }
            | Error::UnknownRight { origin, .. }
            | Error::RepeatedRight { origin, .. }
            | Error::RightNotMeaningful { origin, .. }
            | Error::BadgeNotAllowed { origin, .. }
            | Error::QuotaNotAllowed { origin, .. }
            | Error::ConflictingQuotas { origin, .. }
            | Error::NotTheServer { origin, .. }
            | Error::NotPageAligned { origin, .. }
            | Error::DuplicateIrqLine { origin, .. }
            | Error::SharedIrq { origin, .. }
            | Error::OverlappingIoPorts { origin, .. }
            | Error::OverlappingMmio { origin, .. }
            | Error::UnknownKernelDevice { origin, .. }
            | Error::KernelDeviceNotGranted { origin, .. }
            | Error::KernelDeviceOutside { origin, .. }
            | Error::KernelDeviceHolders { origin, .. }
            | Error::MmioInRam { origin, .. }
            | Error::TooManyCaps { origin, .. }
            | Error::TooManyObjects { origin, .. }
            | Error::TooManySystemCaps { origin, .. }
            | Error::ConstantClash { origin, .. }
            | Error::CallCycle { origin, .. }
            | Error::TooManyDevices { origin, .. }
            | Error::UnknownDeviceKind { origin, .. }
            | Error::KeyNotForKind { origin, .. }
            | Error::DiskBacking { origin, .. }
            | Error::BadSize { origin, .. }
            | Error::BadMac { origin, .. }
            | Error::UnknownProtocol { origin, .. }
            | Error::BadUdpBlast { origin, .. }
            | Error::UdpPortNotForwarded { origin, .. }
            | Error::TcpSinkPort { origin, .. }
            | Error::TcpSinkFile { origin, .. }
            | Error::UnknownFlowTask { origin, .. }
            | Error::FlowStageTwice { origin, .. }
            | Error::TooManyFlowStages { origin, .. }
            | Error::UnknownDriver { origin, .. }
            | Error::UnknownClient { origin, .. }
            | Error::DriverIsClient { origin, .. }
            | Error::DuplicateClient { origin, .. }
            | Error::TooManyClients { origin, .. }
            | Error::SharedDiskImage { origin, .. }
            | Error::DuplicateForward { origin, .. }
            | Error::DuplicateGuestForward { origin, .. }
            | Error::MissingDiskImage { origin, .. }
            | Error::FolderBacking { origin, .. }
            | Error::TwoFolderDisks { origin, .. }
            | Error::MissingDiskFolder { origin, .. }
            | Error::Generated { origin, .. }
            | Error::Exchange { origin, .. }
            | Error::Extends { origin, .. }
            | Error::FileRights { origin, .. }
            | Error::DeviceObject { origin, .. }
            | Error::FlowObject { origin, .. } => origin,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Syntax {
                origin,
                line,
                column,
                ..
            } => write!(f, "{origin}:{line}:{column}: ")?,
            _ => write!(f, "{}: ", self.origin())?,
        }
        self.describe(f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}
