//! File rights on a client's endpoint capability (`root`, `access`): what
//! is accepted and what the server is generated from it, and one test per
//! rule asserting the exact message.

mod common;

use common::{message, ok, SYSTEM};
use conflux_manifest::{limits, task_constants, Access, FileRights};

/// Server `fs` serving endpoint `fs`; task `web` with capability `caps`
/// (one line per entry) and task `sh` with `sh_caps`.
fn system(caps: &str, sh_caps: &str) -> String {
    format!(
        "{SYSTEM}[endpoints.fs]\nserver = \"fs\"\n[regions.shared]\nsize = 8192\n[notifications.ev]\n\
         [tasks.fs]\ncrate = \"fs\"\npriority = 2\nstart_order = 1\n\
         [tasks.web]\ncrate = \"web\"\npriority = 3\nstart_order = 2\n[tasks.web.caps]\n{caps}\
         [tasks.sh]\ncrate = \"sh\"\npriority = 3\nstart_order = 3\n[tasks.sh.caps]\n{sh_caps}"
    )
}

/// `web` holding `fs` with the extra keys `keys`.
fn web(keys: &str) -> String {
    system(
        &format!("fs = {{ endpoint = \"fs\", badge = 2{keys} }}\n"),
        "fs = { endpoint = \"fs\", badge = 3 }\n",
    )
}

#[test]
fn rights_are_read_from_the_capability() {
    let m = ok(&web(", root = \"/www/site\", access = \"read-only\""));
    let (_, client) = m.task("web").unwrap();
    assert_eq!(
        client.caps[0].files,
        FileRights {
            root: "/www/site".into(),
            access: Access::ReadOnly
        }
    );
    let (_, sh) = m.task("sh").unwrap();
    assert_eq!(sh.caps[0].files, FileRights::default(), "unwritten");
    let m = ok(&web(", root = \"/www\""));
    assert_eq!(
        m.task("web").unwrap().1.caps[0].files.access,
        Access::ReadWrite
    );
}

#[test]
fn the_server_gets_each_clients_root_and_access_aligned_with_its_badges() {
    let m = ok(&system(
        "fs = { endpoint = \"fs\", badge = 9, root = \"/www\", access = \"read-only\" }\n\
         fs-again = { endpoint = \"fs\", badge = 9, root = \"/www\", access = \"read-only\" }\n",
        "fs = { endpoint = \"fs\", badge = 3 }\nfs-open = { endpoint = \"fs\", access = \"read-only\" }\n",
    ));
    let caps = task_constants(&m, "fs");
    for line in [
        "    pub const FS_CLIENTS: &[u64] = &[0x0, 0x3, 0x9];\n",
        "    pub const FS_CLIENT_ROOTS: &[&str] = &[\"/\", \"/\", \"/www\"];\n",
        "    pub const FS_CLIENT_READ_ONLY: &[bool] = &[true, false, true];\n",
    ] {
        assert!(caps.contains(line), "{line} in:\n{caps}");
    }
    assert!(
        !task_constants(&m, "web").contains("_CLIENT_ROOTS"),
        "only servers"
    );
}

#[test]
fn limits_are_the_file_servers() {
    assert_eq!(limits::MAX_ROOT_NAME, conflux_ext4::MAX_NAME);
    assert_eq!(limits::MAX_ROOT_PATH, conflux_ext4::MAX_PATH);
}

#[test]
fn a_misspelt_key_gets_a_suggestion() {
    assert_eq!(
        message(&web(", rooot = \"/www\"")),
        "systems/t.toml: unknown key `rooot` in `[tasks.web.caps.fs]`; did you mean `root`?"
    );
}

#[test]
fn root_of_the_wrong_type() {
    assert_eq!(
        message(&web(", root = 5")),
        "systems/t.toml: `tasks.web.caps.fs.root` must be a string, but it is an integer"
    );
}

#[test]
fn root_not_absolute() {
    assert_eq!(
        message(&web(", root = \"www\"")),
        "systems/t.toml: `tasks.web.caps.fs.root` is \"www\", which is not an absolute path; a root starts with `/` (such as \"/www\")"
    );
}

#[test]
fn root_with_a_trailing_slash() {
    assert_eq!(
        message(&web(", root = \"/www/\"")),
        "systems/t.toml: `tasks.web.caps.fs.root` is \"/www/\", which has `.`, `..`, an empty name or a trailing `/`; write it as \"/www\""
    );
}

#[test]
fn root_with_dot_dot() {
    assert_eq!(
        message(&web(", root = \"/www/../etc\"")),
        "systems/t.toml: `tasks.web.caps.fs.root` is \"/www/../etc\", which has `.`, `..`, an empty name or a trailing `/`; write it as \"/etc\""
    );
}

#[test]
fn root_with_a_nul_byte() {
    assert_eq!(
        message(&web(", root = \"/w\\u0000w\"")),
        "systems/t.toml: `tasks.web.caps.fs.root` is \"/w\\0w\", which holds a NUL byte, and no file name may; remove it"
    );
}

#[test]
fn root_with_a_name_too_long() {
    let root = format!("/{}", "n".repeat(256));
    assert_eq!(
        message(&web(&format!(", root = \"{root}\""))),
        format!("systems/t.toml: `tasks.web.caps.fs.root` is \"{root}\", which has a name of 256 bytes; a file name has at most 255")
    );
}

#[test]
fn root_too_long() {
    let root = "/abc".repeat(1025);
    assert_eq!(
        message(&web(&format!(", root = \"{root}\""))),
        "systems/t.toml: `tasks.web.caps.fs.root` is 4100 bytes long; the file server takes paths of at most 4096 bytes"
    );
}

#[test]
fn unknown_access_suggests() {
    assert_eq!(
        message(&web(", access = \"readonly\"")),
        "systems/t.toml: `tasks.web.caps.fs.access` is \"readonly\", which is not an access; did you mean \"read-only\"?"
    );
}

#[test]
fn file_rights_on_a_region() {
    assert_eq!(
        message(&system(
            "mem = { region = \"shared\", root = \"/www\" }\n",
            ""
        )),
        "systems/t.toml: `tasks.web.caps.mem.root` is a file right, which only a client's endpoint capability carries, and this capability is to a region; remove it"
    );
}

#[test]
fn access_on_a_notification() {
    assert_eq!(
        message(&system(
            "ev = { notification = \"ev\", access = \"read-only\" }\n",
            ""
        )),
        "systems/t.toml: `tasks.web.caps.ev.access` is a file right, which only a client's endpoint capability carries, and this capability is to a notification; remove it"
    );
}

#[test]
fn file_rights_on_the_servers_own_capability() {
    let text = format!(
        "{SYSTEM}[endpoints.fs]\nserver = \"fs\"\n\
         [tasks.fs]\ncrate = \"fs\"\npriority = 2\nstart_order = 1\n\
         [tasks.fs.caps]\nfs = {{ endpoint = \"fs\", root = \"/www\" }}\n"
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `tasks.fs.caps.fs` gives file rights (`root`, `access`), which bound what a client may do, but this task serves endpoint `fs` itself; remove them, and give them on its clients' capabilities"
    );
}

#[test]
fn one_badge_with_two_sets_of_rights() {
    assert_eq!(
        message(&system(
            "fs = { endpoint = \"fs\", badge = 4, root = \"/www\", access = \"read-only\" }\n",
            "fs = { endpoint = \"fs\", badge = 4 }\n"
        )),
        "systems/t.toml: `tasks.sh.caps.fs` calls endpoint `fs` with badge 0x4 as `tasks.web.caps.fs` does, but gives other file rights (root \"/\", read-write here; root \"/www\", read-only there); the server tells its clients apart by badge alone: give one of them another badge, or both the same `root` and `access`"
    );
}
