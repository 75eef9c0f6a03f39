//! The validated manifest: the types other crates consume.
//!
//! A value of these types has passed every check in `schema` and
//! `validate`, so consumers (image builder, runner, code generator) can use
//! it without re-checking. Kernel objects and capabilities are in
//! [`objects`]; fields are added as the schema grows, each as a new field or
//! a new list beside `tasks`, so existing users keep working.

mod devices;
mod files;
mod flows;
mod http;
mod objects;
mod tcp;
mod udp;

use std::fmt;
use std::str::FromStr;

pub use devices::{
    Device, DeviceClient, DeviceKind, DeviceObjects, DiskImage, Forward, GuestForward, Protocol,
    GUEST_FORWARD_ADDR,
};
pub use files::{Access, FileRights};
pub use flows::{FlowSlot, FlowStage, Flows, BELL_BIT, EDGES, EDGE_SIZE};
pub use http::{
    BodyCheck, Conditional, Crowd, Fetch, GeneratedFile, Hold, HoldProbe, HttpExchange, HttpKind,
    Method, Raw, RawSend, Then,
};
pub use objects::{
    constant_name, rights_text, Cap, Object, ObjectSpec, Restart, BAR_WINDOW, RIGHT_LETTERS,
};
pub use tcp::{SinkContent, TcpSink};
pub use udp::UdpBlast;

/// One system image: what it is called, what it runs, and, for an in-guest
/// test image, what the runner must see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The path or label the manifest came from, used in messages and in
    /// the header of generated code.
    pub origin: String,
    pub system: System,
    /// Every task, sorted by `start_order` (the index is the task's index in
    /// start order, `TASK_INDEX` in its generated constants).
    pub tasks: Vec<Task>,
    /// Every kernel object; the index is the object id.
    pub objects: Vec<Object>,
    /// The `[devices.*]` PCI devices, in document order (the order of
    /// their PCI slots).
    pub devices: Vec<Device>,
    /// `[flows]`: the flow manager and its stage tasks, if the system has one.
    pub flows: Option<Flows>,
    /// The endpoints declared with `sessions = true` (object ids,
    /// ascending): their servers keep per-client sessions and end one when
    /// the supervisor says its client is gone (see `sessions`).
    pub sessions: Vec<usize>,
    /// Present only in in-guest test systems.
    pub test: Option<TestSpec>,
}

/// The `[system]` table: the machine the image needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct System {
    pub name: String,
    pub description: Option<String>,
    /// Guest memory, in MiB.
    pub memory_mib: u32,
    pub cpus: u32,
    /// The task that receives every other task's fault messages.
    pub supervisor: Option<String>,
}

/// One `[tasks.NAME]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub name: String,
    /// The cargo package that builds the task's ELF (`crate` in TOML).
    pub crate_name: String,
    /// 0 is the most urgent.
    pub priority: u8,
    /// Bytes, a whole number of pages.
    pub stack_size: u32,
    /// Bytes, a whole number of pages.
    pub heap_size: u32,
    /// Unique across tasks; tasks start in ascending order.
    pub start_order: u32,
    /// What the supervisor does after this task faults.
    pub restart: Restart,
    /// The CPU that runs the task (`cpu`, default 0), below `system.cpus`.
    pub cpu: u32,
    /// The task's initial capabilities, in slot order.
    pub caps: Vec<Cap>,
}

/// The `[test]` table: how the runner judges an in-guest test image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestSpec {
    pub timeout_secs: u32,
    /// The modes to run the image in, each once, in the order given.
    pub modes: Vec<Mode>,
    /// Substrings the serial console must print, in this order.
    pub expect: Vec<String>,
    /// Substrings the serial console must never print.
    pub forbid: Vec<String>,
    pub outcome: Outcome,
    /// Kernel command line for this test (e.g. `selftest=panic`); empty for none.
    pub kernel_args: String,
    /// Lets MMIO ranges lie in guest RAM, which the manifest otherwise
    /// refuses, so that the image reaches the kernel and the test can show
    /// the kernel's own check (against the firmware's memory map) stops
    /// the boot.
    pub allow_mmio_in_ram: bool,
    /// When the runner injects an NMI (QMP `inject-nmi`), in milliseconds
    /// after the kernel's banner line; strictly increasing, empty for none.
    pub nmi_after_ms: Vec<u32>,
    /// A crash test: boots killed with SIGKILL on one disk image.
    pub crash: Option<CrashSpec>,
    /// Bytes the runner types on the serial console once the kernel's
    /// banner is out (as a person would); empty for none.
    pub input: String,
    /// Exchanges the runner performs against forwarded ports, in order.
    pub http: Vec<HttpExchange>,
    /// Datagrams the runner sends to UDP forwards, in order.
    pub udp: Vec<UdpBlast>,
    /// Streams the runner receives from the guest through guest forwards.
    pub tcp_sink: Vec<TcpSink>,
    /// Host ports the runner listens on at every address of this machine
    /// (`0.0.0.0`) for the whole run; a connection to one fails the test
    /// (something for a guest that got out to reach).
    pub listen: Vec<u16>,
    /// The user-mode network backend the test needs (`network = "passt"`),
    /// whatever the runner's default; `None` takes the default.
    pub network: Option<Network>,
}

/// `[test] crash = { rounds, after, kill_after_ms = [min, max] }`: the
/// runner boots the system `rounds` times on the same disk image; in every
/// round but the last it waits for the console line `after`, then kills
/// QEMU with SIGKILL after a random delay in `kill_after_ms` (seeded), and
/// the last round runs to the end (judged like any test, then e2fsck).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashSpec {
    pub rounds: u32,
    pub after: String,
    /// The delay's range in milliseconds, `min <= max`.
    pub kill_after_ms: (u32, u32),
}

/// How QEMU runs the guest (see the design brief, "Measuring without
/// hardware counters").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// TCG, guest time from the TSC.
    Tcg,
    /// TCG with `-icount shift=0,sleep=off`: deterministic, counts
    /// instructions.
    Icount,
    /// Hardware KVM, only where the host has it.
    Kvm,
}

/// QEMU's user-mode network backend behind a system's virtio-net devices
/// (the runner's choice is `qemu/runner/src/netback.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Network {
    /// QEMU's built-in slirp (`-netdev user,restrict=on`).
    Slirp,
    /// A `passt` process beside QEMU (`-netdev stream`).
    Passt,
}

/// The exit the kernel must report for a test to pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Every task ended and the kernel exited with success.
    Pass,
    /// The kernel reported a fault of its own.
    KernelFault,
    /// A task powered the machine off (ACPI S5): QEMU exits with status 0.
    PowerOff,
    /// The system never ends by itself (a server): the runner stops QEMU
    /// once every exchange is judged and every expected line is out.
    Serving,
}

/// A string that names no variant of [`Mode`] or [`Outcome`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant {
    /// What was being parsed: "mode", "outcome" or "restart policy".
    pub what: &'static str,
    pub given: String,
    pub allowed: &'static [&'static str],
}

impl Manifest {
    /// The first task built by `crate_name`, with its index in start order.
    pub fn task_for_crate(&self, crate_name: &str) -> Option<(usize, &Task)> {
        self.tasks
            .iter()
            .enumerate()
            .find(|(_, task)| task.crate_name == crate_name)
    }

    /// The indices (start order) of every task built by `crate_name`.
    pub fn tasks_of_crate<'m>(&'m self, crate_name: &'m str) -> impl Iterator<Item = usize> + 'm {
        self.tasks
            .iter()
            .enumerate()
            .filter(move |(_, task)| task.crate_name == crate_name)
            .map(|(i, _)| i)
    }

    /// The task called `name`, with its index in start order.
    pub fn task(&self, name: &str) -> Option<(usize, &Task)> {
        self.tasks
            .iter()
            .enumerate()
            .find(|(_, task)| task.name == name)
    }

    /// The supervisor task, with its index in start order.
    pub fn supervisor(&self) -> Option<(usize, &Task)> {
        self.task(self.system.supervisor.as_deref()?)
    }

    /// The object `cap` names.
    pub fn object_of(&self, cap: &Cap) -> &Object {
        &self.objects[cap.object]
    }

    /// Whether `cap`, held by task `task`, receives on an endpoint `task`
    /// serves.
    pub fn receives_through(&self, task: usize, cap: &Cap) -> bool {
        is_receive_cap(self.object_of(cap), task, cap)
    }

    /// The badges of every capability that can send on endpoint `object`
    /// (a server knows its clients by them), ascending, each once. Receive
    /// capabilities are not clients.
    pub fn endpoint_clients(&self, object: usize) -> Vec<u64> {
        self.endpoint_client_priorities(object)
            .into_iter()
            .map(|(badge, _)| badge)
            .collect()
    }

    /// [`Self::endpoint_clients`] with each badge's file rights (which every
    /// capability with that badge gives alike: `file_rights::check`
    /// refuses a manifest where two differ).
    pub fn endpoint_client_files(&self, object: usize) -> Vec<(u64, FileRights)> {
        let mut clients: Vec<(u64, FileRights)> = self
            .client_caps(object)
            .map(|(_, c)| (c.badge, c.files.clone()))
            .collect();
        clients.sort_by_key(|(badge, _)| *badge);
        clients.dedup_by_key(|(badge, _)| *badge);
        clients
    }

    /// Every capability that can send on endpoint `object`, with its
    /// holder (receive capabilities are not clients).
    /// The supervisor's capability to a sessions endpoint is no client.
    pub fn client_caps(&self, object: usize) -> impl Iterator<Item = (&Task, &Cap)> {
        self.tasks
            .iter()
            .flat_map(|t| t.caps.iter().map(move |c| (t, c)))
            .filter(move |(_, c)| {
                c.object == object
                    && c.rights & conflux_abi::cap::rights::READ == 0
                    && c.badge != conflux_abi::ipc::SUPERVISOR_BADGE
            })
    }

    /// [`Self::endpoint_clients`] with each badge's priority: the least
    /// urgent of the tasks that call with it. A server runs that client's
    /// long work at it, so sharing a badge with a more urgent task never
    /// gets a client more of the CPU.
    pub fn endpoint_client_priorities(&self, object: usize) -> Vec<(u64, u8)> {
        let mut clients: Vec<(u64, u8)> = self
            .client_caps(object)
            .map(|(t, c)| (c.badge, t.priority))
            .collect();
        // Ascending badges, the least urgent priority first within each.
        clients.sort_unstable_by_key(|&(badge, p)| (badge, core::cmp::Reverse(p)));
        clients.dedup_by_key(|(badge, _)| *badge);
        clients
    }

    /// The quota the manifest gives the client of endpoint `object` with
    /// `badge`, if any (validation made sure its capabilities agree).
    pub fn client_quota(&self, object: usize, badge: u64) -> Option<u32> {
        self.client_caps(object)
            .filter(|(_, c)| c.badge == badge)
            .find_map(|(_, c)| c.quota)
    }
}

/// Whether `cap` (to `object`), held by task `task`, receives on an
/// endpoint `task` serves.
pub(crate) fn is_receive_cap(object: &Object, task: usize, cap: &Cap) -> bool {
    object.spec == ObjectSpec::Endpoint { server: task }
        && cap.rights & conflux_abi::cap::rights::READ != 0
}

impl Task {
    /// Bytes of guest memory this task's stack and heap take.
    pub fn memory_bytes(&self) -> u64 {
        u64::from(self.stack_size) + u64::from(self.heap_size)
    }
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Tcg, Mode::Icount, Mode::Kvm];
    pub const NAMES: &'static [&'static str] = &["tcg", "icount", "kvm"];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Tcg => "tcg",
            Mode::Icount => "icount",
            Mode::Kvm => "kvm",
        }
    }
}

impl Network {
    pub const ALL: [Network; 2] = [Network::Slirp, Network::Passt];
    pub const NAMES: &'static [&'static str] = &["slirp", "passt"];

    pub fn as_str(self) -> &'static str {
        match self {
            Network::Slirp => "slirp",
            Network::Passt => "passt",
        }
    }
}

impl FromStr for Network {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        variant(&Network::ALL, Network::NAMES, "network backend", text)
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Outcome {
    pub const ALL: [Outcome; 4] = [
        Outcome::Pass,
        Outcome::KernelFault,
        Outcome::PowerOff,
        Outcome::Serving,
    ];
    pub const NAMES: &'static [&'static str] = &["pass", "kernel-fault", "power-off", "serving"];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::KernelFault => "kernel-fault",
            Outcome::PowerOff => "power-off",
            Outcome::Serving => "serving",
        }
    }
}

/// Finds the variant whose `as_str` is `text`.
fn variant<T: Copy>(
    all: &[T],
    names: &'static [&'static str],
    what: &'static str,
    text: &str,
) -> Result<T, UnknownVariant> {
    names
        .iter()
        .position(|name| *name == text)
        .map(|index| all[index])
        .ok_or_else(|| UnknownVariant {
            what,
            given: text.to_owned(),
            allowed: names,
        })
}

impl FromStr for Mode {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        variant(&Mode::ALL, Mode::NAMES, "mode", text)
    }
}

impl FromStr for Outcome {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        variant(&Outcome::ALL, Outcome::NAMES, "outcome", text)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let allowed: Vec<String> = self.allowed.iter().map(|a| format!("`{a}`")).collect();
        write!(
            f,
            "unknown {} `{}`; use one of {}",
            self.what,
            self.given,
            allowed.join(", ")
        )
    }
}

impl std::error::Error for UnknownVariant {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_variants() {
        let modes: Vec<&str> = Mode::ALL.iter().map(|mode| mode.as_str()).collect();
        assert_eq!(modes, Mode::NAMES);
        let outcomes: Vec<&str> = Outcome::ALL
            .iter()
            .map(|outcome| outcome.as_str())
            .collect();
        assert_eq!(outcomes, Outcome::NAMES);
    }
}
