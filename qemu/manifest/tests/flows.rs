//! `[flows]`: the objects and capabilities made for the flow manager and
//! its stage tasks, the constants they are built with, and each refusal.

mod common;

use common::{message, ok, SYSTEM};
use conflux_manifest::{task_constants, ObjectSpec, SinkContent, BELL_BIT, EDGE_SIZE};

const TASKS: &str = "\
[tasks.blk]\ncrate = \"virtio-blk\"\npriority = 1\nstart_order = 1\n\
[tasks.soft]\ncrate = \"flowsoft\"\npriority = 2\nstart_order = 2\n\
[tasks.mgr]\ncrate = \"flowmgr\"\npriority = 2\nstart_order = 3\n\
[tasks.app]\ncrate = \"app\"\npriority = 3\nstart_order = 4\n\
[devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"blk\"\nsize_mib = 8\n";

#[test]
fn an_edge_region_holds_the_protocols_edge() {
    assert_eq!(
        EDGE_SIZE,
        conflux_flow_protocol::edge::EDGE_BYTES as u64,
        "the manifest makes edge regions of the size the stages and flowmgr check"
    );
}

fn system(flows: &str) -> String {
    format!("{SYSTEM}{TASKS}[flows]\n{flows}")
}

fn caps_of(m: &conflux_manifest::Manifest, task: &str) -> Vec<(String, String, u8, u64)> {
    let t = m.tasks.iter().find(|t| t.name == task).unwrap();
    t.caps
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                m.objects[c.object].name.clone(),
                c.rights,
                c.badge,
            )
        })
        .collect()
}

#[test]
fn stages_get_an_endpoint_and_a_bell_and_the_manager_gets_everything_else() {
    let m = ok(&system(
        "manager = \"mgr\"\nslots = 2\npool_size = \"1MiB\"\nstages = [\"blk\", \"soft\"]\n",
    ));
    let f = m.flows.as_ref().unwrap();
    assert_eq!(f.slots.len(), 2);
    assert_eq!(f.pool_size, 1 << 20);
    // A driver's bell is its device's notification; others get their own.
    assert!(!f.stages[0].own_bell && f.stages[1].own_bell);
    assert_eq!(m.objects[f.stages[0].bell].name, "disk0.notify");
    assert_eq!(m.objects[f.stages[1].bell].name, "soft.bell");
    assert_eq!(
        m.objects[f.slots[1].pool].spec,
        ObjectSpec::Region { size: 1 << 20 }
    );
    assert_eq!(m.objects[f.slots[1].edges[4]].name, "flow1.edge4");
    let blk = caps_of(&m, "blk");
    assert!(
        blk.contains(&("flow".into(), "blk.flow".into(), 1, 0)),
        "{blk:?}"
    );
    assert!(!blk.iter().any(|c| c.0 == "flow_bell"));
    let soft = caps_of(&m, "soft");
    assert!(
        soft.contains(&("flow_bell".into(), "soft.bell".into(), 3, 0)),
        "{soft:?}"
    );
    let mgr = caps_of(&m, "mgr");
    let names: Vec<&str> = mgr.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        &names[..4],
        ["stage_blk", "bell_blk", "stage_soft", "bell_soft"]
    );
    assert_eq!(mgr[1].3, BELL_BIT);
    assert_eq!(mgr[0].2, 2 | 4, "write and grant on a stage's endpoint");
    assert!(names.contains(&"flow1_edge4"));
    assert_eq!(
        mgr.iter().find(|c| c.0 == "flow0_pool").unwrap().2,
        1 | 2 | 8
    );
    // The app holds nothing of it.
    assert!(caps_of(&m, "app").is_empty());
    // Stage tasks keep their flows on a stack of at least 32 KiB.
    let stack = |n: &str| m.tasks.iter().find(|t| t.name == n).unwrap().stack_size;
    assert_eq!(
        (stack("blk"), stack("soft"), stack("app")),
        (32768, 32768, 16384)
    );
}

#[test]
fn the_manager_and_stages_are_built_with_flow_constants() {
    let m = ok(&system(
        "manager = \"mgr\"\nslots = 1\nstages = [\"soft\"]\n",
    ));
    let mgr = task_constants(&m, "flowmgr");
    assert!(mgr.contains("pub const STAGES: &[(&str, usize, usize)] = &[(\"soft\", super::caps::STAGE_SOFT, super::caps::BELL_SOFT)];"), "{mgr}");
    assert!(mgr.contains("super::caps::FLOW0_EDGE4_ADDR"));
    assert!(mgr.contains("pub const POOL_SIZE: usize = 2097152;"));
    let soft = task_constants(&m, "flowsoft");
    assert!(soft.contains("pub const FLOW: usize"));
    assert!(soft.contains("pub const FLOW_BELL: usize"));
    assert!(soft.contains("pub const BELL_BIT: u64 = 0x4000000000000000;"));
    let app = task_constants(&m, "app");
    assert!(!app.contains("mod flows"));
}

#[test]
fn refusals_name_the_key_and_the_fix() {
    let m = message(&system("manager = \"mgrr\"\n"));
    assert!(
        m.contains("`flows.manager` is \"mgrr\", which is not a task") && m.contains("mgr"),
        "{m}"
    );
    let m = message(&system("manager = \"mgr\"\nstages = [\"sof\"]\n"));
    assert!(m.contains("`flows.stages` is \"sof\""), "{m}");
    let m = message(&system(
        "manager = \"mgr\"\nstages = [\"soft\", \"soft\"]\n",
    ));
    assert!(m.contains("lists task `soft` twice"), "{m}");
    let m = message(&system("manager = \"mgr\"\nstages = [\"mgr\"]\n"));
    assert!(m.contains("the flow manager itself"), "{m}");
    let m = message(&system("manager = \"mgr\"\nslots = 7\n"));
    assert!(m.contains("flows.slots"), "{m}");
    let m = message(&system("manager = \"mgr\"\npool_size = \"1000\"\n"));
    assert!(m.contains("flows.pool_size"), "{m}");
    let m = message(&system("manager = \"mgr\"\nbogus = 1\n"));
    assert!(m.contains("bogus"), "{m}");
    // No task reaches a flow's objects through `caps`.
    let text = format!(
        "{}[tasks.app.caps]\npool = {{ region = \"flow0.pool\" }}\n",
        system("manager = \"mgr\"\n")
    );
    let m = message(&text);
    assert!(
        m.contains("an object made for `[flows]`") && m.contains("`mgr`"),
        "{m}"
    );
}

const NET: &str = "\
[tasks.nic]\ncrate = \"virtio-net\"\npriority = 1\nstart_order = 5\n\
[devices.net0]\nkind = \"virtio-net\"\ndriver = \"nic\"\n\
forwards = [{ host = 5700, guest = 5700, protocol = \"udp\" }, { host = 8080, guest = 80 }]\n";

fn udp_test(entry: &str) -> String {
    format!(
        "{}{NET}[test]\nexpect = [\"x\"]\nudp = [{{ {entry} }}]\n",
        system("manager = \"mgr\"\n")
    )
}

const GOOD: &str = "port = 5700, after = \"ready\", count = 1000, size = 1024, seed = 7, key = \"000102030405060708090a0b0c0d0e0f\", iv = \"ffeeddccbbaa99887766554433221100\"";

#[test]
fn udp_blasts_are_read_whole() {
    let m = ok(&udp_test(&format!("{GOOD}, rate = 5000")));
    let b = &m.test.unwrap().udp[0];
    assert_eq!(
        (b.port, b.count, b.size, b.seed, b.rate),
        (5700, 1000, 1024, 7, 5000)
    );
    assert_eq!(b.key[15], 0x0f);
    assert_eq!(b.iv[0], 0xff);
}

#[test]
fn udp_blasts_refuse_what_cannot_be_sent() {
    let m = message(&udp_test(&GOOD.replace("size = 1024", "size = 1000")));
    assert!(
        m.contains("`test.udp[0].size`: use whole 16-byte AES blocks"),
        "{m}"
    );
    let m = message(&udp_test(&GOOD.replace("size = 1024", "size = 2048")));
    assert!(m.contains("test.udp[0].size"), "{m}");
    let m = message(&udp_test(&GOOD.replace("0e0f\"", "0e\"")));
    assert!(
        m.contains("`test.udp[0].key`: write 16 bytes as 32 hex digits"),
        "{m}"
    );
    let m = message(&udp_test(&GOOD.replace("ffee", "zzee")));
    assert!(m.contains("test.udp[0].iv"), "{m}");
    // 8080 is a TCP forward, not a UDP one.
    let m = message(&udp_test(&GOOD.replace("port = 5700", "port = 8080")));
    assert!(
        m.contains("not one of the system's UDP forwards ([5700])"),
        "{m}"
    );
}

fn tcp_sink_test(entry: &str) -> String {
    format!(
        "{}{NET}guest_forwards = [{{ guest_port = 5800, host = 5900 }}]\n[test]\nexpect = [\"x\"]\ntcp_sink = [{{ {entry} }}]\n",
        system("manager = \"mgr\"\n")
    )
}

const SINK: &str = "port = 5900, count = 300, size = 1024, seed = 7";

#[test]
fn tcp_sinks_are_read_with_or_without_a_cipher() {
    let m = ok(&tcp_sink_test(SINK));
    let s = &m.test.unwrap().tcp_sink[0];
    assert_eq!(
        (s.port, &s.content, s.cipher),
        (
            5900,
            &SinkContent::Records {
                count: 300,
                size: 1024,
                seed: 7
            },
            None
        )
    );
    let m = ok(&tcp_sink_test(&format!(
        "{SINK}, key = \"000102030405060708090a0b0c0d0e0f\", iv = \"ffeeddccbbaa99887766554433221100\""
    )));
    let (key, iv) = m.test.unwrap().tcp_sink[0].cipher.unwrap();
    assert_eq!((key[15], iv[0]), (0x0f, 0xff));
}

#[test]
fn tcp_sinks_refuse_a_port_no_guest_forward_reaches_and_half_a_cipher() {
    // 8080 is a host port of `forwards` (into the guest), not of
    // `guest_forwards`.
    let m = message(&tcp_sink_test(&SINK.replace("5900", "8080")));
    assert!(
        m.contains("`test.tcp_sink[0].port` is 8080, which is not a host port of the system's guest forwards ([5900])"),
        "{m}"
    );
    let m = message(&tcp_sink_test(&format!(
        "{SINK}, key = \"000102030405060708090a0b0c0d0e0f\""
    )));
    assert!(
        m.contains("`test.tcp_sink[0].iv`: give `iv` with `key`"),
        "{m}"
    );
    let m = message(&tcp_sink_test(&SINK.replace("1024", "1000")));
    assert!(m.contains("whole 16-byte AES blocks"), "{m}");
    let twice = tcp_sink_test(SINK).replace(
        "tcp_sink = [{ port",
        "tcp_sink = [{ port = 5900, count = 1, size = 64, seed = 1 }, { port",
    );
    assert!(message(&twice).contains("one receiver per port"));
}

#[test]
fn a_file_sink_names_a_generated_file_its_chunk_divides() {
    // TASKS's disk0 becomes a folder disk with a generated file.
    let text = |entry: &str| {
        tcp_sink_test(entry).replace(
            "size_mib = 8\n",
            "size_mib = 64\nfolder = \"../disk\"\n\
             generate = [{ path = \"bench/in.bin\", size = 65536, seed = 3 }]\n",
        )
    };
    let m = ok(&text("port = 5900, file = \"bench/in.bin\", chunk = 4096"));
    assert_eq!(
        m.test.unwrap().tcp_sink[0].content,
        SinkContent::File {
            path: "bench/in.bin".into(),
            chunk: 4096
        }
    );
    let m = message(&text("port = 5900, file = \"bench/in.bin\", chunk = 48"));
    assert!(m.contains("has a size `chunk` does not divide"), "{m}");
    let m = message(&text(
        "port = 5900, file = \"bench/other.bin\", chunk = 4096",
    ));
    assert!(m.contains("is not a `generate` file"), "{m}");
    let m = message(&text(
        "port = 5900, file = \"bench/in.bin\", chunk = 4096, seed = 1",
    ));
    assert!(m.contains("a `file` sink takes `chunk`"), "{m}");
}
