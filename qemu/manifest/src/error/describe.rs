//! The text of every message, one match arm per rule.

use std::fmt;

use super::format::*;
use super::Error;
use crate::limits::PAGE_SIZE;
use crate::model::DeviceKind;
use crate::model::RIGHT_LETTERS;
use crate::objects::OBJECT_KEYS;
use crate::strict::join;

impl Error {
    /// The message without the origin prefix.
    pub(super) fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { source, .. } => write!(f, "cannot read the manifest: {source}"),
            Error::Syntax { message, .. } => write!(f, "invalid TOML: {message}"),
            Error::UnknownKey { table, key, suggestion, .. } => {
                write!(f, "unknown key `{key}` {}; {suggestion}", table_place(table))
            }
            Error::WrongType { path, expected, found, .. } => {
                write!(f, "`{path}` must be {expected}, but it is {found}")
            }
            Error::MissingKey { table, key, expected, .. } => missing(f, table, key, expected),
            Error::InvalidName { path, what, name, rule, .. } => {
                write!(f, "`{path}`: the {what} {name:?} is not valid; it must {rule}")
            }
            Error::NameTooLong { path, what, name, max, .. } => write!(
                f,
                "`{path}`: the {what} {name:?} is {} bytes long; shorten it to at most {max} bytes",
                name.len()
            ),
            Error::OutOfRange { path, value, min, max, bytes, .. } => write!(
                f,
                "`{path}` is {}, out of range; use a value from {} to {}",
                quantity(*value, *bytes),
                quantity(*min, *bytes),
                quantity(*max, *bytes)
            ),
            Error::NotPageMultiple { path, value, .. } => write!(
                f,
                "`{path}` is {value}, not a whole number of {PAGE_SIZE}-byte pages; round it up to {}",
                round_up_to_page(*value)
            ),
            Error::UnknownMode { path, value, suggestion, .. } => {
                write!(f, "`{path}` is {value:?}, which is not a mode; {suggestion}")
            }
            Error::DuplicateMode { mode, .. } => write!(
                f,
                "`test.modes` lists {:?} more than once; list each mode once",
                mode.as_str()
            ),
            Error::EmptyExpect { .. } => f.write_str(
                "`test.expect` is empty; list at least one piece of text the serial console must print",
            ),
            Error::CrashWindowShape { path, len, .. } => write!(
                f,
                "`{path}` has {len} numbers; write the kill delay's range as two, `[min, max]` in milliseconds after the `after` line"
            ),
            Error::CrashWindowReversed { path, min, max, .. } => write!(
                f,
                "`{path}` is [{min}, {max}]: the minimum is above the maximum; write `[min, max]` with min <= max"
            ),
            Error::CrashWithoutDisk { .. } => f.write_str(
                "`test.crash` kills the machine to test a disk's durability, but the system has no disk; add a `[devices.NAME]` with `kind = \"virtio-blk\"` and a `folder`, or remove `crash`"
            ),
            Error::EmptyPattern { path, .. } => write!(
                f,
                "`{path}` is an empty string, which matches any output; remove it or write the text to look for"
            ),
            Error::NmiTimesNotIncreasing { path, value, previous, .. } => write!(
                f,
                "`{path}` is {value}, not after the time before it ({previous} ms); list the NMI times in increasing order, each once"
            ),
            Error::UnknownOutcome { value, suggestion, .. } => {
                write!(f, "`test.outcome` is {value:?}, which is not an outcome; {suggestion}")
            }
            Error::UnknownNetwork { value, suggestion, .. } => write!(
                f,
                "`test.network` is {value:?}, which is not a network backend; {suggestion}"
            ),
            Error::NoTasks { .. } => f.write_str(
                "the system has no tasks; add at least one `[tasks.NAME]` table with `crate`, `priority` and `start_order`",
            ),
            Error::TooManyTasks { count, max, .. } => write!(
                f,
                "the system has {count} tasks, more than the {max} a system may have; remove or merge tasks"
            ),
            Error::DuplicateStartOrder { first, second, start_order, .. } => write!(
                f,
                "tasks `{first}` and `{second}` both have `start_order = {start_order}`; give each task its own start_order"
            ),
            Error::CpuOutOfRange { task, cpu, cpus, .. } => write!(
                f,
                "task `{task}` has `cpu = {cpu}` but the system has {cpus} CPU(s), numbered from 0; give the task a cpu below {cpus} or raise `system.cpus`"
            ),
            Error::MemoryBudget { requested, available, memory_mib, .. } => {
                memory_budget(f, *requested, *available, *memory_mib)
            }
            Error::UnknownRestart { path, value, suggestion, .. } => {
                write!(f, "`{path}` is {value:?}, which is not a restart policy; {suggestion}")
            }
            Error::UnknownSupervisor { value, suggestion, .. } => {
                reference(f, "system.supervisor", value, "a task", suggestion, None)
            }
            Error::SupervisorRestarts { task, policy, .. } => write!(
                f,
                "task `{task}` is the supervisor, so nothing would restart it after a fault, yet it has `restart = \"{policy}\"`; remove that line"
            ),
            Error::RestartWithoutSupervisor { task, policy, .. } => write!(
                f,
                "task `{task}` has `restart = \"{policy}\"`, but the system has no supervisor to restart it; set `system.supervisor` to the task that restarts others, or remove that line"
            ),
            Error::SessionsWithoutSupervisor { endpoint, .. } => write!(
                f,
                "endpoints.{endpoint}.sessions: the system has no supervisor, so no one would tell `{endpoint}`'s server that a client is gone; set `system.supervisor`, or remove that line"
            ),
            Error::SessionsOfSupervisor { endpoint, supervisor, .. } => write!(
                f,
                "endpoints.{endpoint}.sessions: `{endpoint}` is served by the supervisor `{supervisor}`, which would have to tell itself that a client is gone; remove that line"
            ),
            Error::UnknownServer { endpoint, value, suggestion, .. } => {
                let path = join(&join("endpoints", endpoint), "server");
                reference(f, &path, value, "a task", suggestion, None)
            }
            Error::UnknownNotification { irq, value, suggestion, .. } => {
                let path = join(&join("irqs", irq), "notification");
                reference(f, &path, value, "a notification", suggestion, Some("notifications"))
            }
            Error::UnknownObject { path, kind, table, value, suggestion, .. } => {
                reference(f, path, value, kind, suggestion, Some(table))
            }
            Error::CapObjectCount { path, keys, .. } if keys.is_empty() => write!(
                f,
                "`{path}` names no object; give it exactly one of {}",
                OBJECT_KEYS.map(|key| format!("`{key}`")).join(", ")
            ),
            Error::CapObjectCount { path, keys, .. } => write!(
                f,
                "`{path}` names {} objects ({}); a capability names exactly one: split it into one capability per object",
                keys.len(),
                keys.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(", ")
            ),
            Error::UnknownRight { path, rights, letter, .. } => write!(
                f,
                "`{path}` is {rights:?}, and `{letter}` is not a right; use the letters {}",
                RIGHT_LETTERS.map(|(letter, _, name)| format!("`{letter}` ({name})")).join(", ")
            ),
            Error::RepeatedRight { path, rights, letter, .. } => write!(
                f,
                "`{path}` is {rights:?}, which gives `{letter}` twice; write each right once"
            ),
            Error::RightNotMeaningful { path, letter, kind, allowed, .. } => write!(
                f,
                "`{path}` gives `{letter}`, which means nothing for {kind}; use only `{allowed}`"
            ),
            Error::BadgeNotAllowed { path, kind, .. } => write!(
                f,
                "`{path}`: a capability to {kind} carries no badge (only endpoint and notification capabilities do); remove it"
            ),
            Error::QuotaNotAllowed { path, kind, .. } => write!(
                f,
                "`{path}`: a capability to {kind} carries no quota (only endpoint capabilities do: what the client may hold of the server's resources); remove it"
            ),
            Error::ConflictingQuotas { endpoint, badge, first, second, .. } => write!(
                f,
                "`{}` gives the client with badge {badge:#x} of endpoint `{endpoint}` a quota of {}, and `{}` one of {}; capabilities with one badge are one client: give the quota once, or the same",
                first.0, first.1, second.0, second.1
            ),
            Error::NotTheServer { path, endpoint, server, .. } => write!(
                f,
                "`{path}` gives `r` (receive) on endpoint `{endpoint}`, but only its server `{server}` receives there; remove `r`, or make this task the endpoint's server"
            ),
            Error::NotPageAligned { path, value, .. } => write!(
                f,
                "`{path}` is {value:#x}, not on a {PAGE_SIZE}-byte page boundary; use a multiple of {PAGE_SIZE} such as {:#x}",
                value - value % u64::from(PAGE_SIZE)
            ),
            Error::DuplicateIrqLine { first, second, line, .. } => write!(
                f,
                "IRQs `{first}` and `{second}` are both on line {line}; declare each line once and give its capability to one task"
            ),
            Error::SharedIrq { irq, first, second, .. } => write!(
                f,
                "IRQ `{irq}` is held by tasks `{first}` and `{second}`; an IRQ has one owner: give its capability to one task only"
            ),
            Error::OverlappingIoPorts { first, second, .. } => write!(
                f,
                "I/O port ranges {} and {} overlap; a port belongs to one range: make them disjoint",
                span(first),
                span(second)
            ),
            Error::OverlappingMmio { first, second, .. } => write!(
                f,
                "MMIO ranges {} and {} overlap; a device register belongs to one range: make them disjoint",
                span(first),
                span(second)
            ),
            Error::UnknownKernelDevice { path, value, suggestion, .. } => {
                write!(f, "`{path}` is {value:?}, which is not a kernel device; {suggestion}")
            }
            Error::KernelDeviceNotGranted { ports, device, .. } => {
                let (start, end) = device.ports();
                write!(
                    f,
                    "I/O port range {} overlaps ports {start:#x}..{end:#x}, {}, which the kernel keeps; to give them to one task, add `kernel_device = {:?}` to `[ioports.{}]` and keep the range inside {start:#x}..{end:#x}",
                    span(ports),
                    device.description(),
                    device.name(),
                    ports.name
                )
            }
            Error::KernelDeviceOutside { ports, device, .. } => {
                let (start, end) = device.ports();
                write!(
                    f,
                    "I/O port range {} grants kernel device {:?} but reaches beyond its ports {start:#x}..{end:#x}; keep the range inside them",
                    span(ports),
                    device.name()
                )
            }
            Error::KernelDeviceHolders { device, object, holders, .. } => {
                write!(f, "kernel device {:?} (granted by `[ioports.{object}]`) ", device.name())?;
                match holders.as_slice() {
                    [] => f.write_str("is held by no task"),
                    _ => write!(f, "is held by tasks `{}`", holders.join("`, `")),
                }?;
                f.write_str("; give a capability to it to exactly one task")
            }
            Error::MmioInRam { mmio, ram_end, memory_mib, .. } => write!(
                f,
                "MMIO range {} lies in guest RAM, which ends at {ram_end:#x} with `system.memory_mib = {memory_mib}`; a task holding it could reach the kernel's memory: use the device's register address",
                span(mmio)
            ),
            Error::TooManyCaps { task, count, max, .. } => write!(
                f,
                "task `{task}` needs {count} capability slots (slot 0 stays empty), more than the {max} a task has; remove capabilities from `[tasks.{task}.caps]`"
            ),
            Error::TooManyObjects { count, max, .. } => write!(
                f,
                "the system has {count} kernel objects (the supervisor's fault endpoint counts), more than the {max} the boot image holds; remove or merge objects"
            ),
            Error::TooManySystemCaps { count, max, .. } => write!(
                f,
                "the tasks hold {count} capabilities together, more than the {max} the boot image holds; remove capabilities"
            ),
            Error::ConstantClash { task, first, second, constant, .. } => write!(
                f,
                "task `{task}`: {first} and {second} both generate the constant `caps::{constant}`; rename one of them in `[tasks.{task}.caps]`"
            ),
            Error::CallCycle { cycle, .. } => write!(
                f,
                "the call graph has a cycle: `{}`; tasks that call each other in a circle can all block waiting for a reply: break the cycle (a server answers with `reply`, or signals a notification, instead of calling its caller)",
                cycle.join(" -> ")
            ),
            Error::TooManyDevices { count, max, .. } => write!(
                f,
                "the system has {count} devices, more than the {max} a system may have (each needs a PCI interrupt line of its own, and q35 routes bus-0 slots onto four); remove a device"
            ),
            Error::UnknownDeviceKind { path, value, suggestion, .. } => {
                write!(f, "`{path}` is {value:?}, which is not a device kind; {suggestion}")
            }
            Error::KeyNotForKind { path, kind, .. } => {
                let key = path.rsplit('.').next().unwrap_or(path);
                let takes = match kind {
                    DeviceKind::VirtioBlk => "besides `kind`, `driver` and `dma_pool` it takes `image`, or `size_mib` (with `folder` and `generate`)",
                    DeviceKind::VirtioNet => "besides `kind`, `driver` and `dma_pool` it takes `forwards`, `guest_forwards` and `mac`",
                    DeviceKind::VirtioCrypto => "it takes only `kind`, `driver` and `dma_pool`",
                };
                write!(f, "`{path}`: a {kind} device takes no `{key}`; {takes}: remove the key")
            }
            Error::DiskBacking { table, both: true, .. } => write!(
                f,
                "`[{table}]` has both `image` and `size_mib`; a virtio-blk device is backed by an existing image file or by a fresh empty one, not both: keep one of them"
            ),
            Error::DiskBacking { table, both: false, .. } => write!(
                f,
                "`[{table}]` has neither `image` nor `size_mib`; add `image = \"PATH\"` (a raw image file, relative to the manifest's directory) or `size_mib = N` (a fresh zero-filled disk for each run)"
            ),
            Error::BadSize { path, value, .. } => write!(
                f,
                "`{path}` is {value:?}, which is not a size; write a number of bytes or a string such as \"64KiB\" or \"1MiB\""
            ),
            Error::BadMac { path, value, .. } => write!(
                f,
                "`{path}` is {value:?}, which is not a unicast MAC address; write six two-digit hex octets separated by `:` with the first octet even, such as \"52:54:00:12:34:56\""
            ),
            Error::BadUdpBlast { path, why, .. } => write!(f, "`{path}`: {why}"),
            Error::TcpSinkFile { path, file, why, .. } => write!(
                f,
                "`{path}`: `{file}` {why}; name a `generate = [{{ path, size, seed }}]` entry of the virtio-blk folder disk, with a size that is a multiple of `chunk`"
            ),
            Error::TcpSinkPort { path, port, twice: true, .. } => write!(
                f,
                "`{path}` is {port}, which an earlier tcp_sink listens on already; one receiver per port"
            ),
            Error::TcpSinkPort { path, port, hosts, .. } => write!(
                f,
                "`{path}` is {port}, which is not a host port of the system's guest forwards ({hosts:?}): add `{{ guest_port = ..., host = {port} }}` to the virtio-net device's `guest_forwards`"
            ),
            Error::UdpPortNotForwarded { path, port, forwards, .. } => write!(
                f,
                "`{path}` is {port}, which is not one of the system's UDP forwards ({forwards:?}): add `{{ host = {port}, guest = ..., protocol = \"udp\" }}` to the virtio-net device's `forwards`"
            ),
            Error::UnknownProtocol {
                path,
                value,
                suggestion,
                ..
            } => reference(f, path, value, "a protocol QEMU forwards", suggestion, None),
            Error::UnknownFlowTask {
                path,
                value,
                suggestion,
                ..
            } => reference(f, path, value, "a task", suggestion, None),
            Error::FlowStageTwice { task, manager: true, .. } => write!(
                f,
                "`flows.stages` lists `{task}`, the flow manager itself; the manager wires stages and stays off the data path: list only the tasks that run stages"
            ),
            Error::FlowStageTwice { task, .. } => write!(
                f,
                "`flows.stages` lists task `{task}` twice; each stage task gets one flow endpoint: list it once"
            ),
            Error::TooManyFlowStages { count, max, .. } => write!(
                f,
                "`flows.stages` lists {count} tasks, more than the {max} the manager has capability slots for: run several stage kinds in one task"
            ),
            Error::UnknownDriver { device, value, suggestion, .. } => {
                let path = join(&join("devices", device), "driver");
                reference(f, &path, value, "a task", suggestion, None)
            }
            Error::UnknownClient { device, value, suggestion, .. } => {
                let path = join(&join("devices", device), "clients");
                reference(f, &path, value, "a task", suggestion, None)
            }
            Error::DriverIsClient { device, task, .. } => write!(
                f,
                "device `{device}` lists its own driver `{task}` as a client; a driver does not talk to itself through its device's rings: remove `{task}` from `clients`"
            ),
            Error::DuplicateClient { path, task, .. } => write!(
                f,
                "`{path}` lists task `{task}` twice; each client gets one shared region: list it once"
            ),
            Error::TooManyClients { path, count, max, .. } => write!(
                f,
                "`{path}` lists {count} clients; a driver serves at most {max} (their doorbells are bits of one notification word): split them over more devices or drivers"
            ),
            Error::SharedDiskImage { image, first, second, .. } => write!(
                f,
                "devices `{first}` and `{second}` both use the disk image `{image}`; a device has one owner and two disks on one file would corrupt it: give each device its own image"
            ),
            Error::DuplicateForward { port, first, second, .. } => {
                if first == second {
                    write!(f, "device `{first}` forwards host port {port} more than once; forward each host port once")
                } else {
                    write!(f, "devices `{first}` and `{second}` both forward host port {port}; a host port reaches one device: choose another port for one of them")
                }
            }
            Error::DuplicateGuestForward { port, first, second, .. } => {
                if first == second {
                    write!(f, "device `{first}` lists guest port {port} in `guest_forwards` more than once; 10.0.2.100:{port} can lead to one host port: list it once")
                } else {
                    write!(f, "devices `{first}` and `{second}` both list guest port {port} in `guest_forwards`; 10.0.2.100:{port} can lead to one host port: choose another guest port for one of them")
                }
            }
            Error::MissingDiskImage { path, image, .. } => write!(
                f,
                "`{path}`: the disk image `{image}` does not exist; create it (for example `truncate -s 64M {image}`, or `mke2fs -t ext4 -b 4096 -d DIR {image} 64M`), correct the path (it is relative to the manifest's directory), or use `size_mib` for a fresh empty disk"
            ),
            Error::FolderBacking { table, .. } => write!(
                f,
                "`[{table}]` has `folder`, which builds an ext4 image from that host folder: it needs `size_mib = N` (the image's size) and no `image`"
            ),
            Error::TwoFolderDisks { first, second, .. } => write!(
                f,
                "devices `{first}` and `{second}` are both built from a folder; a system has one such disk (`target/disks/SYSTEM.img`): give the other one `image` or a fresh `size_mib` disk"
            ),
            Error::MissingDiskFolder { path, folder, .. } => write!(
                f,
                "`{path}`: the disk folder `{folder}` does not exist or is not a directory; create it with the files the disk should start with, or correct the path (it is relative to the manifest's directory)"
            ),
            Error::Generated { path, rule, .. } => write!(f, "`{path}`: {rule}"),
            Error::Exchange { path, rule, .. } => write!(f, "`{path}` {rule}"),
            Error::Extends { rule, .. } => write!(f, "{rule}"),
            Error::FileRights { path, rule, .. } => write!(f, "`{path}` {rule}"),
            Error::DeviceObject { path, object, device, driver, .. } => write!(
                f,
                "`{path}` names `{object}`, an object of device `{device}`; only its driver `{driver}` holds a device's objects, and it gets them without `caps` entries: remove this entry"
            ),
            Error::FlowObject { path, object, manager, .. } => write!(
                f,
                "`{path}` names `{object}`, an object made for `[flows]`; the flow manager `{manager}` and the stage tasks get those without `caps` entries, and other tasks must not reach a flow's buffers: remove this entry"
            ),
        }
    }
}
