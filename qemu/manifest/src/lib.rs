//! `conflux-manifest`: the one description of a Conflux system image.
//!
//! Every system (the default interactive one, each in-guest test, each
//! benchmark) is one TOML manifest. This crate parses it strictly, validates
//! it, and lowers it to what other parts need: the validated [`Manifest`]
//! for the image builder and the runner, and per-task Rust constants for
//! each task's build script. Nothing is kept in sync by hand.
//!
//! Principles:
//!
//! - **Untrusted until checked.** The TOML text becomes a [`Manifest`] only
//!   through [`parse`]; a `Manifest` value is always valid.
//! - **Strict.** An unknown key anywhere is an error with a "did you mean";
//!   a wrong type names the key and both types; every limit is in
//!   [`limits`].
//! - **Messages are the interface.** Each [`Error`] variant is one rule, and
//!   its message says where (file and TOML path), what is wrong and what to
//!   do. Tests assert them word for word.
//!
//! Why tables are walked by hand instead of with `#[derive(Deserialize)]`:
//! serde's errors name neither the key path nor a close key, and their
//! wording belongs to the toml crate. Reading a [`toml::Table`] through the
//! small strict reader in `strict` gives exact, stable messages, and a new
//! table is a key list and a reader function.
//!
//! # Schema
//!
//! ```toml
//! [system]
//! name = "default"          # required; [a-z][a-z0-9-]*, at most 31 bytes
//! description = "..."       # optional
//! memory_mib = 128          # optional, default 128, 32..=4096
//! cpus = 1                  # optional, default 1, 1..=8
//! supervisor = "init"       # optional: the task that receives every task's fault messages
//! extends = "../systems/default.toml"  # optional: build on this manifest (see "Extending a
//!                           # system"), a path relative to this manifest's folder
//! without = ["tasks.shell"] # optional, only with extends: dotted keys dropped from the base
//!
//! [tasks.hello]             # [a-z][a-z0-9_-]*, at most 31 bytes; 1 to 64 tasks
//! crate = "hello"           # optional, default the task's name: the cargo package that builds
//!                           # the ELF; several tasks may run one crate (see `task_values`)
//! priority = 2              # required: 0 (most urgent) ..= 15
//! stack_size = 16384        # optional, default 16384; whole pages, 4 KiB..=1 MiB
//! heap_size = 65536         # optional, default 65536; whole pages, 0..=1 GiB
//! start_order = 1           # required; unique; tasks start in ascending order
//! restart = "never"         # optional, default "never"; "on-fault" (restarted after a fault
//!                           # or panic) or "always" (after an exit too); both need a
//!                           # supervisor, and the supervisor itself must be "never"
//! cpu = 1                   # optional, default 0; the CPU that runs the task, below
//!                           # system.cpus (under icount the kernel has one CPU and runs
//!                           # every task on CPU 0)
//!
//! [endpoints.echo]          # optional object tables; names as for tasks, unique per kind
//! server = "echo-server"    # required: the task that receives on it
//! sessions = true           # optional, default false: the server keeps per-client sessions;
//!                           # the supervisor gets `gone_echo` (badge SUPERVISOR_BADGE) and
//!                           # tells it when a client's task ends (see `sessions`)
//!
//! [notifications.events]    # a word of signal bits; no keys
//!
//! [regions.shared]          # zeroed RAM, shared by every task holding a capability
//! size = 8192               # required; whole pages, 4 KiB..=64 MiB
//!
//! [mmio.uart]               # device registers; no overlap with each other or guest RAM
//! phys = 0xfebd0000         # required; page aligned
//! size = 4096               # required; whole pages, up to 64 MiB, ending at or below 4 GiB
//!
//! [irqs.com2]               # one IRQ object per line, held by at most one task
//! line = 3                  # required; 1..=14
//! notification = "events"   # required: the notification the interrupt signals
//! bit = 0                   # required; 0..=63
//!
//! [ioports.com2]            # no overlap between ranges
//! base = 0x2f8              # required; 0..=0xffff
//! count = 8                 # required; base + count <= 0x10000
//! kernel_device = "..."     # optional: grant a device the kernel otherwise keeps:
//!                           # "pci-config" (0xcf8..0xd00, with the reset register 0xcf9),
//!                           # "system-control" (0x92, fast reset), "acpi-pm" (0x600..0x680);
//!                           # required for ranges touching one, which must stay inside it
//!                           # and be held by exactly one task
//!
//! [devices.disk0]           # PCI devices (at most 4); names as for tasks, at most 24 bytes
//! kind = "virtio-blk"       # required: "virtio-blk", "virtio-net" or "virtio-crypto"
//! driver = "blk"            # required: the task that drives it (and alone holds its objects)
//! dma_pool = "256KiB"       # optional, default 256 KiB: bytes, or "NKiB"/"NMiB"; whole pages
//! size_mib = 64             # virtio-blk: a fresh zero-filled raw disk, made again for each run
//! # image = "disk.img"      # virtio-blk, instead of size_mib: a raw image file, relative to
//!                           # this manifest's directory; it must exist; one device per file
//! # folder = "disk"        # virtio-blk, with size_mib: an ext4 image built from this host
//!                           # folder (relative to the manifest; one such disk per system)
//! # generate = [{ path = "data/16m.bin", size = 16777216, seed = 7 }]
//!                           # with folder: files added to a staging copy of the folder (never
//!                           # to the folder); path relative, plain components (no `..`), each
//!                           # once; size 0..=256 MiB, at most 256 files, together at most
//!                           # the disk; bytes: xorshift64 from the seed
//!                           # (qemu/runner/src/disks/generate.rs)
//!
//! [devices.net0]            # QEMU user networking with restrict=on: the guest reaches nothing
//! kind = "virtio-net"       # outside this machine
//! driver = "net"
//! forwards = [{ host = 5555, guest = 80 }]  # optional: 127.0.0.1:host -> guest port, TCP
//!                           # unless `protocol = "udp"`; host 1024..=65535, each host
//!                           # port once per protocol in the system
//! guest_forwards = [{ guest_port = 5800, host = 5800 }]
//!                           # optional: the guest's TCP connections to 10.0.2.100:guest_port
//!                           # reach 127.0.0.1:host (QEMU's guestfwd, the one way out
//!                           # under restrict=on; there is none for UDP). QEMU connects to
//!                           # the host port when it starts, so something must listen there
//!                           # before boot (a test's `tcp_sink` does); host 1024..=65535,
//!                           # each guest_port once in the system
//! mac = "52:54:00:12:34:56" # optional: a unicast MAC
//!
//! [devices.crypto0]         # the builtin cryptodev backend; no other keys
//! kind = "virtio-crypto"    # with a supervisor, it gets `gone_crypto0_clientI` per client
//! driver = "crypto"         # (the driver's notification, badge bit 32 + i) to say a client
//!                           # is gone (see `device_gone`)
//!
//! [tasks.client.caps]       # optional: the task's initial capabilities, one per slot name
//! echo   = { endpoint = "echo", rights = "wg", badge = 7 }
//! events = { notification = "events", rights = "r" }
//! shared = { region = "shared", rights = "rwd" }   # regions and MMIO are mapped at start
//! dev    = { mmio = "uart" }
//! irq    = { irq = "com2" }
//! io     = { ioports = "com2", rights = "rw" }
//! files  = { endpoint = "fs", badge = 2, root = "/www", access = "read-only" }
//!                           # file rights, only on a client's endpoint capability (see
//!                           # `file_rights`): `root` (default "/") is the directory it cannot
//!                           # leave, absolute and normalised; `access` "read-write" (default)
//!                           # or "read-only"; every capability with one badge to one endpoint
//!                           # gives the same rights
//!
//! [test]                    # only in in-guest test systems
//! timeout_secs = 20         # optional, default 30, 1..=600
//! modes = ["tcg", "icount"] # optional, default ["tcg"]; "tcg", "icount", "kvm"; each once
//! expect = ["...", "..."]   # required, non-empty: console text that must appear, in order
//! forbid = ["..."]          # optional: console text that must never appear
//! outcome = "pass"          # optional, default "pass"; or "kernel-fault", or
//!                           # "power-off" (a task powered the machine off, ACPI S5), or
//!                           # "serving" (never ends by itself: the runner stops QEMU once
//!                           # every `http` exchange is judged and every `expect` line is out)
//! kernel_args = "..."       # optional: kernel command line (e.g. "selftest=panic")
//! allow_mmio_in_ram = false # optional: skip the MMIO-in-RAM rule, so a test can show
//!                           # that the kernel's own check stops the boot
//! nmi_after_ms = [100, 300] # optional: the runner injects an NMI (QMP `inject-nmi` on a
//!                           # Unix socket) this many ms after the kernel's banner;
//!                           # each 1..=timeout in ms, strictly increasing
//! crash = { rounds = 6, after = "writer: writing", kill_after_ms = [200, 1500] }
//!                           # optional: a crash test (needs a `folder` disk). The runner
//!                           # boots `rounds` (2..=100) times on one disk image; in each
//!                           # round but the last it waits for the line `after`, then
//!                           # SIGKILLs QEMU a seeded random [min, max] ms later; the last
//!                           # round runs to the end and is judged, then e2fsck -fn
//! listen = [5611]          # optional: host ports the runner listens on at every address
//!                           # of this machine for the whole run; a connection fails the test
//! network = "passt"        # optional: the user-mode network backend the test needs,
//!                           # "slirp" or "passt", whatever the runner's default
//! input = "ls /\npoweroff\n" # optional: typed on the serial console after the banner
//! http = [                 # optional: exchanges with 127.0.0.1:port, each once the console
//!                           # shows `after`; not in crash tests. Every entry: port (a forwarded
//!                           # host port), after, background = false (run beside the next ones;
//!                           # all are judged at the end), deadline_secs (default 30, at most the
//!                           # timeout). Exactly one of get, head, send, send_header_bytes, hold:
//!   { port = 8080, after = "httpd: ready", get = "/data/16m.bin", body = "generated",
//!     paths = ["/index.html"], status = 200, clients = 32, requests = 100 },
//!                           # get/head: paths cycled per client (the get/head path first);
//!                           # status default 200; body required: "generated" | "folder" (the
//!                           # host file at the URL path) | "empty" | "none"; clients 1..=256
//!                           # threads, requests 1..=100000 each on one kept-alive connection;
//!                           # may_cut_secs = N (optional, 1..=deadline): an answer may be cut
//!                           # short (reset, close, N s without a byte) if every byte that came
//!                           # is right; that client stops there (a server restarted mid-transfer)
//!   { port = 8080, after = "x", send = "GARBAGE\r\n\r\n", expect_status = 400 },
//!   { port = 8080, after = "x", send_header_bytes = 1048576, expect_status = 431 },
//!   { port = 8080, after = "x", send = "GET / HT", close = true },  # truncated; then the
//!                           # server must close (expect_status optional, for any answer)
//!   { port = 8080, after = "x", send = "GET / HTTP/1.1\r\n", idle_secs = 5, expect_status = 408 },
//!                           # idle: the status, or a close with nothing sent, within idle_secs
//!   { port = 8080, after = "x", hold = "/data/16m.bin", peers = 48, hold_secs = 20, cut = true,
//!     probe = "/data/1k.bin", body = "generated", probe_secs = 10 },
//!                           # hold: peers (1..=128) each GET, read the head, stop reading;
//!                           # each gets 200 or 503, and at least served (default 0, at most
//!                           # peers) get 200; probe (optional, with body) must be served
//!                           # 200 within probe_secs (default 10), 503s tried again; with cut,
//!                           # every 200 answer must be cut by hold_secs (after the last head)
//!   { port = 8080, after = "x", crowd = "/data/1k.bin", body = "generated", clients = 500,
//!     probe_secs = 10 },    # crowd: clients (1..=1000) connect at once and each GETs the
//!                           # path: 200 (body checked) or 503 with Retry-After, or a reset
//!                           # or close without an answer (counted); then one client must be
//!                           # served 200 within probe_secs (default 10)
//! ]                         # (rules: `qemu/runner/src/http_peer/{raw,hold,crowd}.rs`)
//! tcp_sink = [{ port = 5800, count = 300, size = 1024, seed = 7 }]
//!                           # optional: before boot the runner listens on 127.0.0.1:port (a
//!                           # guest_forwards host port) and checks the stream the guest sends:
//!                           # exactly count records of size bytes from seed, or with
//!                           # `file = "data/x.bin", chunk = 4096` a generated file's bytes;
//!                           # each record or chunk AES-128-CBC encrypted on its own if key and
//!                           # iv (32 hex digits) are given (`tcp_spec`); may_cut_secs = N
//!                           # lets the stream end early or go quiet N s if all before is
//!                           # right, cut_at_unit = true only between units; `udp = [...]`
//!                           # sends datagrams in (`udp_spec`)
//! ```
//!
//! The tasks' stacks and heaps together may take at most half of
//! `memory_mib`.
//!
//! A capability names exactly one object by its kind's key. `rights` is a
//! string of distinct letters r (read/receive), w (write/send), g (grant),
//! d (DMA), each meaningful for the kind (endpoint r w g; notification,
//! MMIO, IRQ, I/O ports r w; region r w d). Without `rights`: "w" for an
//! endpoint ("r" for its own server), "rw" for the rest. Only the server
//! may receive (`r`) on an endpoint. `badge` (default 0) only on endpoint
//! and notification capabilities. A server's receive slot `NAME` also gets
//! `NAME_CLIENTS` (its clients' badges, ascending) and, aligned with it,
//! `NAME_CLIENT_PRIORITIES`, `NAME_CLIENT_ROOTS` and `NAME_CLIENT_READ_ONLY`.
//!
//! Slots: 0 stays empty; the supervisor's slot 1 is `faults`, an endpoint
//! on which the kernel reports faults (badge: the faulting task's index);
//! then the task's `caps` in document order; then, for each endpoint the
//! task serves without holding a receive capability on it, one named after
//! the endpoint with rights "r". At most 64 slots per task. Regions and
//! MMIO are mapped from `REGION_BASE` in slot order with a guard page
//! between. Client → server edges (a `w` endpoint capability to another
//! task's endpoint) must not form a cycle. Slot names become constants
//! (upper case, `-` as `_`) in the task's generated `caps` module, and
//! must not collide there.
//!
//! # Extending a system
//!
//! A manifest with `system.extends` is its base with its own keys merged
//! on top, so a test system states only how it differs from the system it
//! tests (`qemu/tests/http.toml` extends `qemu/systems/default.toml`):
//!
//! 1. The base may extend another manifest in turn (a chain, resolved
//!    from the far end); a manifest that is its own base, however far
//!    down, is refused with the chain in the message.
//! 2. `system.without` removes its dotted keys (`"tasks.shell"`,
//!    `"regions.shell_control"`, `"devices.disk0.generate"`) from the base
//!    first; each must exist there. Removing a task does not remove the
//!    objects only it used: list those too.
//! 3. Every key of the extending manifest is then merged into the base:
//!    where both hold a table (`[tasks.x]`, `[tasks.x.caps]`, an inline
//!    table such as a capability) the two merge key by key by this rule;
//!    any other value (number, string, array such as `forwards`, `expect`
//!    or `generate`) replaces the base's whole. A table on one side and a
//!    value on the other is an error. Keys keep the base's order, new ones
//!    follow.
//! 4. `extends` and `without` do not reach the result; the extending
//!    manifest must set its own `system.name`. Everything else, including
//!    `description` and `[test]`, may come from either.
//! 5. Relative file paths (`folder`, `image`) are read relative to the
//!    extending manifest's folder, wherever the key was written.
//!
//! Then the merged document is validated like any manifest, and errors
//! name the extending file. Build scripts rerun when either file changes.
//!
//! # Devices
//!
//! Each `[devices.NAME]` is a modern-only virtio-pci function on bus 0 at
//! slot 0x08 + its position among the devices (0x08, 0x09, ...), function
//! 0, with MSI-X off: it interrupts on INTA#, GSI 20 + slot % 4
//! (`conflux_abi::pci::Bdf::inta_gsi`), so a system has at most four
//! devices. Five objects are made for it, after the declared objects and
//! before the fault endpoint: `NAME.config` (its configuration page),
//! `NAME.bar` (BAR 4, the virtio registers; the kernel finds its address
//! and size at boot), `NAME.notify` (a notification), `NAME.irq` (the
//! line, signalling bit 0 of `NAME.notify`) and `NAME.dma` (a region of
//! `dma_pool` bytes whose physical addresses the driver may ask for). No
//! `caps` entry may name them. The driver gets, after its other slots and
//! in device order:
//!
//! | slot name         | object          | rights | mapped                           |
//! |-------------------|-----------------|--------|----------------------------------|
//! | `NAME_config`     | `NAME.config`   | rw     | 4 KiB                            |
//! | `NAME_bar`        | `NAME.bar`      | rw     | the BAR, in a 1 MiB window       |
//! | `NAME_irq`        | `NAME.irq`      | rw     |                                  |
//! | `NAME_irq_notify` | `NAME.notify`   | r      |                                  |
//! | `NAME_dma`        | `NAME.dma`      | rwd    | `dma_pool` bytes                 |
//!
//! so its `caps` module has `NAME_CONFIG`, `NAME_CONFIG_ADDR`,
//! `NAME_CONFIG_SIZE`, `NAME_BAR`, `NAME_BAR_ADDR`, `NAME_BAR_WINDOW`
//! (the reserved window; the BAR itself is smaller), `NAME_IRQ`,
//! `NAME_IRQ_NOTIFY`, `NAME_DMA`, `NAME_DMA_ADDR` and `NAME_DMA_SIZE`, and
//! its `devices` module `NAME_BDF` (u16), `NAME_KIND` (&str),
//! `NAME_DEVICE_ID` (the PCI device id to expect, vendor 0x1af4) and
//! `NAME_GSI` (u8); `NAME` is the device name in upper case, `-` as `_`.
//! The runner adds the QEMU arguments (see `conflux-runner`'s `devices`).
//!
//! # Flows
//!
//! `[flows]` names the task that runs `flowmgr` (`manager`), the tasks
//! that run flow stages (`stages`), how many flows can exist at once
//! (`slots`, 1..=6, default 4) and each flow's buffer pool (`pool_size`,
//! default 2 MiB). Each stage task gets an endpoint it serves (`flow`) and,
//! unless it drives a device (whose notification it already has), its own
//! doorbell notification (`flow_bell`, read and write, so the task can
//! arm its timer on it). The manager gets each stage task's
//! endpoint (`stage_T`, write and grant) and doorbell (`bell_T`, badged
//! `BELL_BIT`), and per slot a pool region (`flowN_pool`, with the DMA
//! right) and five edge pages (`flowN_edgeE`); its generated `flows` module
//! lists them (`STAGES`, `SLOTS`, `POOL_SIZE`). No `caps` entry may name
//! these objects: a flow's buffers are reached only through the manager.

mod build_script;
mod caps;
mod codegen;
mod crash_spec;
mod device_gone;
mod device_table;
mod devices;
mod error;
mod extends;
mod file_rights;
mod flow_table;
mod generated;
mod graph;
mod http_spec;
pub mod limits;
mod model;
mod objects;
mod resolve;
mod rules;
mod schema;
mod sessions;
mod slots;
mod strict;
mod suggest;
mod supervision;
mod tcp_spec;
mod test_spec;
mod udp_spec;
mod validate;

use std::path::{Path, PathBuf};

pub use build_script::{
    build_script_main, cfg_when_apart, runs_apart, CONSTANTS_FILE, MANIFEST_ENV,
};
pub use codegen::{task_constants, task_values};
pub use device_table::check_files;
pub use error::{Error, ExchangeRule, ExtendsRule, FileRightsRule, GeneratedRule, Span};
pub use model::{
    constant_name, rights_text, Access, BodyCheck, Cap, Conditional, CrashSpec, Crowd, Device,
    DeviceKind, DeviceObjects, DiskImage, Fetch, FileRights, FlowSlot, FlowStage, Flows, Forward,
    GeneratedFile, GuestForward, Hold, HoldProbe, HttpExchange, HttpKind, Manifest, Method, Mode,
    Network, Object, ObjectSpec, Outcome, Protocol, Raw, RawSend, Restart, SinkContent, System,
    Task, TcpSink, TestSpec, Then, UdpBlast, UnknownVariant, BAR_WINDOW, BELL_BIT, EDGES,
    EDGE_SIZE, GUEST_FORWARD_ADDR,
};
pub use suggest::{Suggestion, Words};
pub use tcp_spec::generated;

/// Parses and validates the manifest `text`; `origin` (a path or a label)
/// starts every error message and is kept in [`Manifest::origin`].
///
/// The steps, each of which may reject the manifest: single values
/// (`schema`), whole-system task rules (`validate`), then with tasks in
/// start order: supervision, name references (`resolve`), capability slots
/// and mappings (`slots`), device resources (`devices`), the call graph.
///
/// Text that extends another manifest (`system.extends`) needs [`load`],
/// which finds the base beside the file.
pub fn parse(text: &str, origin: &str) -> Result<Manifest, Error> {
    let document = toml_document(text, origin)?;
    extends::refuse(origin, &document)?;
    from_document(document, origin)
}

fn toml_document(text: &str, origin: &str) -> Result<toml::Table, Error> {
    text.parse().map_err(|error| syntax(text, origin, &error))
}

/// [`parse`] after the text became TOML (and any base was merged in).
fn from_document(document: toml::Table, origin: &str) -> Result<Manifest, Error> {
    let mut draft = schema::read(origin, &document)?;
    validate::system(&draft.manifest)?;
    draft.sort_tasks();
    let supervisor = supervision::check(&draft.manifest)?;
    (
        draft.manifest.objects,
        draft.manifest.devices,
        draft.manifest.flows,
    ) = resolve::objects(
        &draft.manifest,
        &draft.objects,
        &draft.devices,
        draft.flows.as_ref(),
        supervisor,
    )?;
    flow_table::stage_stacks(&mut draft.manifest);
    draft.manifest.sessions = sessions::resolve(&draft.manifest, &draft.sessions, supervisor)?;
    let caps = slots::assign(&draft.manifest, &draft.caps, supervisor)?;
    let mut manifest = draft.manifest;
    for (task, caps) in manifest.tasks.iter_mut().zip(caps) {
        task.caps = caps;
    }
    file_rights::check(&manifest)?;
    devices::check(&manifest)?;
    validate::crash_disk(&manifest)?;
    http_spec::check(&manifest)?;
    udp_spec::check(&manifest)?;
    tcp_spec::check(&manifest)?;
    graph::check(&manifest)?;
    Ok(manifest)
}

/// Reads and parses the manifest at `path`, then checks that the files it
/// names (disk images, relative to its directory) exist; the path, as
/// given, is the origin in messages.
///
/// A manifest that extends another (`system.extends`) is merged with its
/// base first (see the schema's "Extending a system").
pub fn load(path: &Path) -> Result<Manifest, Error> {
    load_with_sources(path).map(|(manifest, _)| manifest)
}

/// [`load`], and the files the manifest was made from: `path`, then each
/// base down its chain (a build script reruns when any of them changes).
pub fn load_with_sources(path: &Path) -> Result<(Manifest, Vec<PathBuf>), Error> {
    let origin = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(source) => return Err(Error::Read { origin, source }),
    };
    let (document, sources) = extends::resolve(&origin, path, toml_document(&text, &origin)?)?;
    let manifest = from_document(document, &origin)?;
    check_files(&manifest)?;
    Ok((manifest, sources))
}

/// A TOML syntax error, with the 1-based line and column where it starts.
fn syntax(text: &str, origin: &str, error: &toml::de::Error) -> Error {
    let offset = error.span().map_or(0, |span| span.start).min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    Error::Syntax {
        origin: origin.to_owned(),
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
        message: error.message().trim_end().to_owned(),
    }
}
