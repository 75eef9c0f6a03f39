//! Manifests with kernel objects and capabilities that must be accepted,
//! and the objects, slots and mappings they turn into.

mod common;

use common::{ok, SYSTEM};
use conflux_abi::cap::rights::{DMA, GRANT, READ, WRITE};
use conflux_abi::layout::{PAGE_SIZE, REGION_BASE};
use conflux_manifest::{Cap, FileRights, Object, ObjectSpec, Restart};

fn task(name: &str, order: u32) -> String {
    format!("[tasks.{name}]\ncrate = \"{name}\"\npriority = 2\nstart_order = {order}\n")
}

fn cap(name: &str, slot: usize, object: usize, rights: u8, badge: u64) -> Cap {
    Cap {
        name: name.into(),
        slot,
        object,
        rights,
        badge,
        quota: None,
        map_vaddr: None,
        files: FileRights::default(),
    }
}

fn object(name: &str, spec: ObjectSpec) -> Object {
    Object {
        name: name.into(),
        spec,
    }
}

const SYSTEM_WITH_OBJECTS: &str = r#"
[system]
name = "t"
supervisor = "init"

[endpoints.echo]
server = "server"

[endpoints.log]
server = "server"

[notifications.ev]

[regions.big]
size = 16384

[regions.small]
size = 4096

[mmio.uart]
phys = 0xfebd0000
size = 4096

[irqs.com2]
line = 3
notification = "ev"
bit = 63

[ioports.com2]
base = 0x2f8
count = 8

[tasks.client]
crate = "client"
priority = 3
start_order = 3
restart = "on-fault"

[tasks.client.caps]
echo = { endpoint = "echo", rights = "gw", badge = 7 }
log = { endpoint = "log" }
small = { region = "small", rights = "rwd" }
dev = { mmio = "uart" }
big = { region = "big", rights = "r" }

[tasks.server]
crate = "server"
priority = 2
start_order = 2

[tasks.server.caps]
requests = { endpoint = "log" }
irq = { irq = "com2" }
io = { ioports = "com2" }
ev = { notification = "ev", badge = 9 }

[tasks.init]
crate = "init"
priority = 1
start_order = 1
"#;

#[test]
fn objects_are_numbered_by_kind_then_document_order() {
    let manifest = ok(SYSTEM_WITH_OBJECTS);
    assert_eq!(
        manifest.objects,
        [
            object("echo", ObjectSpec::Endpoint { server: 1 }),
            object("log", ObjectSpec::Endpoint { server: 1 }),
            object("ev", ObjectSpec::Notification),
            object("big", ObjectSpec::Region { size: 16384 }),
            object("small", ObjectSpec::Region { size: 4096 }),
            object(
                "uart",
                ObjectSpec::Mmio {
                    phys: 0xfebd_0000,
                    size: 4096
                }
            ),
            object(
                "com2",
                ObjectSpec::Irq {
                    line: 3,
                    notification: 2,
                    bit: 63
                }
            ),
            object(
                "com2",
                ObjectSpec::IoPorts {
                    base: 0x2f8,
                    count: 8,
                    device: None
                }
            ),
            object("faults", ObjectSpec::Faults { supervisor: 0 }),
        ]
    );
    assert_eq!(
        manifest.supervisor().map(|(i, t)| (i, t.name.as_str())),
        Some((0, "init"))
    );
    let restart: Vec<Restart> = manifest.tasks.iter().map(|t| t.restart).collect();
    assert_eq!(restart, [Restart::Never, Restart::Never, Restart::OnFault]);
}

#[test]
fn supervisor_gets_the_fault_endpoint_in_slot_1() {
    let manifest = ok(SYSTEM_WITH_OBJECTS);
    assert_eq!(manifest.tasks[0].caps, [cap("faults", 1, 8, READ, 0)]);
}

#[test]
fn server_gets_receive_caps_for_what_it_serves() {
    let manifest = ok(SYSTEM_WITH_OBJECTS);
    // `requests` names `log` and, held by its server, defaults to receive;
    // `echo` is added after the declared capabilities.
    assert_eq!(
        manifest.tasks[1].caps,
        [
            cap("requests", 1, 1, READ, 0),
            cap("irq", 2, 6, READ | WRITE, 0),
            cap("io", 3, 7, READ | WRITE, 0),
            cap("ev", 4, 2, READ | WRITE, 9),
            cap("echo", 5, 0, READ, 0),
        ]
    );
}

#[test]
fn client_caps_are_mapped_in_slot_order_with_guard_pages() {
    let manifest = ok(SYSTEM_WITH_OBJECTS);
    let page = PAGE_SIZE;
    let mapped = |mut cap: Cap, at: u64| {
        cap.map_vaddr = Some(at);
        cap
    };
    assert_eq!(
        manifest.tasks[2].caps,
        [
            cap("echo", 1, 0, WRITE | GRANT, 7),
            cap("log", 2, 1, WRITE, 0),
            mapped(cap("small", 3, 4, READ | WRITE | DMA, 0), REGION_BASE),
            mapped(cap("dev", 4, 5, READ | WRITE, 0), REGION_BASE + 2 * page),
            mapped(cap("big", 5, 3, READ, 0), REGION_BASE + 4 * page),
        ]
    );
}

#[test]
fn a_server_calling_its_own_endpoint_and_a_diamond_are_no_cycles() {
    let manifest = ok(&format!(
        "{SYSTEM}[endpoints.ea]\nserver = \"a\"\n[endpoints.eb]\nserver = \"b\"\n[endpoints.ec]\nserver = \"c\"\n\
         {}[tasks.a.caps]\nself = {{ endpoint = \"ea\", rights = \"rw\" }}\nb = {{ endpoint = \"eb\" }}\nc = {{ endpoint = \"ec\" }}\n\
         {}[tasks.b.caps]\nc = {{ endpoint = \"ec\" }}\n{}",
        task("a", 1),
        task("b", 2),
        task("c", 3)
    ));
    // `a` receives through `self`, so it gets no second capability for `ea`.
    let names: Vec<&str> = manifest.tasks[0]
        .caps
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["self", "b", "c"]);
}

#[test]
fn a_task_may_fill_every_slot() {
    let caps: String = (0..63)
        .map(|i| format!("n{i} = {{ notification = \"ev\" }}\n"))
        .collect();
    let manifest = ok(&format!(
        "{SYSTEM}[notifications.ev]\n{}[tasks.full.caps]\n{caps}",
        task("full", 1)
    ));
    assert_eq!(manifest.tasks[0].caps.last().map(|c| c.slot), Some(63));
}

/// (The port range ends at the top of the port space but starts above the
/// kernel devices, which a range may only cover by granting them.)
#[test]
fn largest_values_are_accepted() {
    let manifest = ok(&format!(
        "{SYSTEM}memory_mib = 4096\n[regions.r]\nsize = 67108864\n[mmio.top]\nphys = 0xfffff000\nsize = 4096\n\
         [ioports.all]\nbase = 0xd00\ncount = 0xf300\n[notifications.ev]\n[irqs.i]\nline = 14\nnotification = \"ev\"\nbit = 0\n\
         {}[tasks.t.caps]\nev = {{ notification = \"ev\", badge = 9223372036854775807 }}\nr = {{ region = \"r\" }}\n",
        task("t", 1)
    ));
    assert_eq!(manifest.tasks[0].caps[0].badge, i64::MAX as u64);
    assert_eq!(manifest.objects.len(), 5);
}

#[test]
fn every_kind_has_its_default_rights() {
    let manifest = ok(&format!(
        "{SYSTEM}[endpoints.e]\nserver = \"s\"\n[notifications.n]\n[regions.r]\nsize = 4096\n\
         [mmio.m]\nphys = 0xfe000000\nsize = 4096\n[irqs.i]\nline = 4\nnotification = \"n\"\nbit = 1\n\
         [ioports.p]\nbase = 0x60\ncount = 1\n{}{}[tasks.c.caps]\n\
         e = {{ endpoint = \"e\" }}\nn = {{ notification = \"n\" }}\nr = {{ region = \"r\" }}\n\
         m = {{ mmio = \"m\" }}\ni = {{ irq = \"i\" }}\np = {{ ioports = \"p\" }}\nnone = {{ notification = \"n\", rights = \"\" }}\n",
        task("s", 1),
        task("c", 2)
    ));
    let rights: Vec<u8> = manifest.tasks[1].caps.iter().map(|c| c.rights).collect();
    let rw = READ | WRITE;
    assert_eq!(rights, [WRITE, rw, rw, rw, rw, rw, 0]);
    assert_eq!(manifest.tasks[0].caps, [cap("e", 1, 0, READ, 0)]);
}
