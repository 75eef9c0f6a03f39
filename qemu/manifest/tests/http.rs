//! `devices.*.generate` and `[test] http`, `outcome = "serving"`: valid
//! manifests, and each rule's message word for word.

mod common;

use common::{message, ok, SYSTEM};
use conflux_manifest::{
    BodyCheck, Conditional, DiskImage, Fetch, GeneratedFile, Hold, HoldProbe, HttpExchange,
    HttpKind, Method, Outcome, Raw, RawSend, Then,
};

/// A server system: a folder disk with `generate`, a network with one
/// forward (8080), and a `[test]` with `test` lines.
fn server(generate: &str, test: &str) -> String {
    format!(
        "{SYSTEM}\
         [tasks.httpd]\ncrate = \"httpd\"\npriority = 1\nstart_order = 1\n\
         [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"httpd\"\nfolder = \"disk\"\nsize_mib = 32\n{generate}\n\
         [devices.net0]\nkind = \"virtio-net\"\ndriver = \"httpd\"\nforwards = [{{ host = 8080, guest = 80 }}]\n\
         [test]\ntimeout_secs = 60\nexpect = [\"httpd: ready\"]\n{test}\n"
    )
}

const GEN: &str = "generate = [{ path = \"data/16m.bin\", size = 16777216, seed = 7 }]";

fn http(entries: &str) -> String {
    server(GEN, &format!("http = [{entries}]"))
}

fn exchanges(text: &str) -> Vec<HttpExchange> {
    ok(text).test.unwrap().http
}

#[test]
fn generated_files_are_read() {
    let m = ok(&server(GEN, ""));
    let Some(DiskImage::Folder { generate, .. }) = &m.devices[0].disk else {
        panic!("not a folder disk");
    };
    assert_eq!(
        generate,
        &[GeneratedFile {
            path: "data/16m.bin".into(),
            size: 16 << 20,
            seed: 7,
            files: None,
        }]
    );
}

#[test]
fn generated_directories_are_read_and_checked() {
    let m = ok(&server(
        "generate = [{ dir = \"ls/5000\", files = 5000, size = 0, seed = 5 }]",
        "",
    ));
    let Some(DiskImage::Folder { generate, .. }) = &m.devices[0].disk else {
        panic!("not a folder disk");
    };
    assert_eq!(
        generate,
        &[GeneratedFile {
            path: "ls/5000".into(),
            size: 0,
            seed: 5,
            files: Some(5000),
        }]
    );
    let either = "systems/t.toml: `devices.disk0.generate[0]`: an entry is either a file, `{ path, size, seed }`, or a directory of files, `{ dir, files, size, seed }`; write exactly one of `path` and `dir`, and `files` only with `dir`";
    for bad in [
        "{ dir = \"d\", size = 0, seed = 0 }",
        "{ path = \"d\", files = 3, size = 0, seed = 0 }",
        "{ path = \"d\", dir = \"d\", files = 3, size = 0, seed = 0 }",
        "{ size = 0, seed = 0 }",
    ] {
        assert_eq!(generate_error(bad), either, "{bad}");
    }
    assert_eq!(
        generate_error("{ dir = \"d\", files = 100001, size = 0, seed = 0 }"),
        "systems/t.toml: `devices.disk0.generate[0].files` is 100001, out of range; use a value from 1 to 100000"
    );
    assert_eq!(
        generate_error("{ dir = \"/d\", files = 1, size = 0, seed = 0 }"),
        "systems/t.toml: `devices.disk0.generate[0].dir`: the path \"/d\" is not relative; write it inside the disk, as `data/file.bin`"
    );
    // Every file counts against the disk.
    assert!(
        generate_error("{ dir = \"d\", files = 9, size = 4194304, seed = 0 }")
            .contains("the generated files take 37748736 bytes"),
    );
}

#[test]
fn a_serving_test_with_every_kind_is_read() {
    let text = server(
        GEN,
        "outcome = \"serving\"\nhttp = [\n\
         { port = 8080, after = \"httpd: ready\", get = \"/data/16m.bin\", paths = [\"/data/16m.bin\"], body = \"generated\", clients = 32, requests = 100 },\n\
         { port = 8080, after = \"httpd: ready\", head = \"/index.html\", body = \"folder\", background = true, deadline_secs = 20 },\n\
         { port = 8080, after = \"x\", send = \"GARBAGE\\r\\n\\r\\n\", expect_status = 400 },\n\
         { port = 8080, after = \"x\", send_header_bytes = 1048576, expect_status = 431 },\n\
         { port = 8080, after = \"x\", send = \"GET / HT\", close = true },\n\
         { port = 8080, after = \"x\", send = \"GET / HTTP/1.1\\r\\n\", idle_secs = 5, expect_status = 408 },\n]",
    );
    let m = ok(&text);
    let test = m.test.unwrap();
    assert_eq!(test.outcome, Outcome::Serving);
    let http = test.http;
    assert_eq!(
        http[0],
        HttpExchange {
            port: 8080,
            after: "httpd: ready".into(),
            background: false,
            deadline_secs: 30,
            kind: HttpKind::Fetch(Fetch {
                method: Method::Get,
                paths: vec!["/data/16m.bin".into(), "/data/16m.bin".into()],
                status: 200,
                body: BodyCheck::Generated,
                clients: 32,
                requests: 100,
                may_cut_secs: None,
            }),
        }
    );
    assert!(http[1].background);
    let HttpKind::Fetch(cut) = &exchanges(&self::http(
        "{ port = 8080, after = \"x\", get = \"/\", body = \"none\", may_cut_secs = 5 }",
    ))[0]
        .kind
    else {
        panic!("a get is a fetch");
    };
    assert_eq!(cut.may_cut_secs, Some(5));
    assert_eq!(http[1].deadline_secs, 20);
    assert_eq!(http[1].kind.name(), "head");
    let raw = |send, expect_status, then| {
        HttpKind::Raw(Raw {
            send,
            expect_status,
            then,
        })
    };
    let text = |t: &str| RawSend::Text(t.into());
    assert_eq!(
        http[2].kind,
        raw(text("GARBAGE\r\n\r\n"), Some(400), Then::Wait)
    );
    assert_eq!(
        http[3].kind,
        raw(RawSend::HeaderFlood(1 << 20), Some(431), Then::Wait)
    );
    assert_eq!(http[4].kind, raw(text("GET / HT"), None, Then::Close));
    assert_eq!(
        http[5].kind,
        raw(text("GET / HTTP/1.1\r\n"), Some(408), Then::Idle(5))
    );
    let names: Vec<&str> = http.iter().map(|e| e.kind.name()).collect();
    assert_eq!(
        names,
        ["get", "head", "raw", "header flood", "truncated", "idle"]
    );
}

#[test]
fn a_short_timeout_bounds_the_default_deadline() {
    let text = http("{ port = 8080, after = \"x\", get = \"/\", body = \"none\" }")
        .replace("timeout_secs = 60", "timeout_secs = 10");
    assert_eq!(exchanges(&text)[0].deadline_secs, 10);
}

/// The message for `generate = [ENTRY]`.
fn generate_error(entry: &str) -> String {
    message(&server(&format!("generate = [{entry}]"), ""))
}

#[test]
fn generated_path_rules() {
    assert_eq!(
        generate_error("{ path = \"/etc/x\", size = 1, seed = 0 }"),
        "systems/t.toml: `devices.disk0.generate[0].path`: the path \"/etc/x\" is not relative; write it inside the disk, as `data/file.bin`"
    );
    for odd in ["../x", "a/./b", "a//b", "a/"] {
        assert_eq!(
            generate_error(&format!("{{ path = \"{odd}\", size = 1, seed = 0 }}")),
            format!("systems/t.toml: `devices.disk0.generate[0].path`: the path {odd:?} has a `..`, `.` or empty component; name the file plainly (`dir/file`), inside the disk")
        );
    }
    assert_eq!(
        generate_error("{ path = \"a\", size = 1, seed = 0 }, { path = \"a\", size = 2, seed = 1 }"),
        "systems/t.toml: `devices.disk0.generate[1].path`: the path \"a\" is generated already by entry [0]; generate each file once"
    );
}

#[test]
fn generated_size_and_seed_rules() {
    assert_eq!(
        generate_error("{ path = \"a\", size = 268435457, seed = 0 }"),
        "systems/t.toml: `devices.disk0.generate[0].size` is 268435457 (268435457 bytes), out of range; use a value from 0 to 268435456 (256 MiB)"
    );
    assert_eq!(
        generate_error("{ path = \"a\", size = 1, seed = -1 }"),
        "systems/t.toml: `devices.disk0.generate[0].seed` is -1, out of range; use a value from 0 to 9223372036854775807"
    );
    assert_eq!(
        generate_error("{ path = \"a\", size = 1 }"),
        "systems/t.toml: `[devices.disk0.generate[0]]` is missing the required key `seed` (an integer); add it"
    );
    assert_eq!(
        generate_error("{ path = \"a\", size = 1, seed = 1, mode = 1 }"),
        "systems/t.toml: unknown key `mode` in `[devices.disk0.generate[0]]`; the keys allowed there are `path`, `dir`, `files`, `size`, `seed`"
    );
}

#[test]
fn generated_files_must_fit_the_disk() {
    let files = "{ path = \"a\", size = 268435456, seed = 0 }";
    assert_eq!(
        generate_error(files),
        "systems/t.toml: `devices.disk0.generate`: the generated files take 268435456 bytes, more than the disk's 33554432; make the disk (`size_mib`) larger or the files smaller"
    );
}

#[test]
fn at_most_256_files_are_generated() {
    let files: Vec<String> = (0..257)
        .map(|i| format!("{{ path = \"f{i}\", size = 0, seed = 0 }}"))
        .collect();
    assert_eq!(
        generate_error(&files.join(", ")),
        "systems/t.toml: `devices.disk0.generate`: 257 files are generated, more than the 256 a disk may have; put the rest in the folder"
    );
}

#[test]
fn generated_files_need_a_folder_disk() {
    let text = format!(
        "{SYSTEM}[tasks.b]\ncrate = \"b\"\npriority = 1\nstart_order = 1\n\
         [devices.d]\nkind = \"virtio-blk\"\ndriver = \"b\"\nsize_mib = 8\n{GEN}\n"
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `devices.d.generate`: generated files are added to a disk built from a folder: give the device `folder` and `size_mib`"
    );
}

#[test]
fn an_exchange_does_exactly_one_thing() {
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\" }")),
        "systems/t.toml: `test.http[0]` says nothing to do; give exactly one of `get`, `head`, `send`, `send_header_bytes`, `hold`, `conditional` or `crowd`"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/\", send = \"x\" }")),
        "systems/t.toml: `test.http[0]` has `get` and `send`; give exactly one of `get`, `head`, `send`, `send_header_bytes`, `hold`, `conditional` or `crowd` (one exchange does one thing)"
    );
}

#[test]
fn keys_of_the_other_kind_are_refused() {
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/\", body = \"none\", expect_status = 200 }")),
        "systems/t.toml: `test.http[0]` has `expect_status`, which a get exchange does not take; remove it or change the kind"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", send = \"x\", expect_status = 400, clients = 2 }")),
        "systems/t.toml: `test.http[0]` has `clients`, which a raw exchange does not take; remove it or change the kind"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", send = \"x\", expect_status = 400, may_cut_secs = 5 }")),
        "systems/t.toml: `test.http[0]` has `may_cut_secs`, which a raw exchange does not take; remove it or change the kind"
    );
}

#[test]
fn the_port_must_be_forwarded() {
    assert_eq!(
        message(&http("{ port = 8081, after = \"x\", get = \"/\", body = \"none\" }")),
        "systems/t.toml: `test.http[0]` `port` is 8081, which is not a forwarded host port of the system (those are 8080); use one of them"
    );
    assert_eq!(
        message(&http(
            "{ port = 80, after = \"x\", get = \"/\", body = \"none\" }"
        )),
        "systems/t.toml: `test.http[0].port` is 80, out of range; use a value from 1024 to 65535"
    );
}

#[test]
fn a_system_without_forwards_says_so() {
    let text = server(
        GEN,
        "http = [{ port = 8080, after = \"x\", get = \"/\", body = \"none\" }]",
    )
    .replace("forwards = [{ host = 8080, guest = 80 }]\n", "");
    assert_eq!(
        message(&text),
        "systems/t.toml: `test.http[0]` `port` is 8080, but the system forwards no port; add `forwards = [{ host = 8080, guest = ... }]` to its virtio-net device"
    );
}

#[test]
fn body_rules() {
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/\", body = \"generatd\" }")),
        "systems/t.toml: `test.http[0]` `body` is \"generatd\", which is not a body check; did you mean \"generated\"?"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/data/16m.bin\", paths = [\"/data/8m.bin\"], body = \"generated\" }")),
        "systems/t.toml: `test.http[0]` checks \"/data/8m.bin\" against a generated file, but that path is not generated (generated: /data/16m.bin); fix the path or use `body = \"folder\"`"
    );
    assert_eq!(
        message(&server("", "http = [{ port = 8080, after = \"x\", get = \"/a\", body = \"generated\" }]")),
        "systems/t.toml: `test.http[0]` checks \"/a\" against a generated file, but the system generates none; add it to its disk's `generate` or use `body = \"folder\"`"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/\" }")),
        "systems/t.toml: `[test.http[0]]` is missing the required key `body` (a string); add it"
    );
}

#[test]
fn a_folder_body_needs_a_folder_disk() {
    let text = format!(
        "{SYSTEM}[tasks.httpd]\ncrate = \"httpd\"\npriority = 1\nstart_order = 1\n\
         [devices.net0]\nkind = \"virtio-net\"\ndriver = \"httpd\"\nforwards = [{{ host = 8080, guest = 80 }}]\n\
         [test]\nexpect = [\"x\"]\nhttp = [{{ port = 8080, after = \"x\", get = \"/\", body = \"folder\" }}]\n"
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `test.http[0]` has `body = \"folder\"`, but the system has no disk built from a folder; add one or check the body another way"
    );
}

#[test]
fn url_paths_start_with_a_slash() {
    for bad in ["index.html", "/a b", ""] {
        assert_eq!(
            message(&http(&format!("{{ port = 8080, after = \"x\", get = \"/\", paths = [\"{bad}\"], body = \"none\" }}"))),
            format!("systems/t.toml: `test.http[0]` the path {bad:?} is not a URL path; start it with `/` and use no spaces or control characters")
        );
    }
}

#[test]
fn counts_and_deadlines_are_bounded() {
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", get = \"/\", body = \"none\", clients = 257 }"
        )),
        "systems/t.toml: `test.http[0].clients` is 257, out of range; use a value from 1 to 256"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", get = \"/\", body = \"none\", requests = 0 }"
        )),
        "systems/t.toml: `test.http[0].requests` is 0, out of range; use a value from 1 to 100000"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/\", body = \"none\", deadline_secs = 61 }")),
        "systems/t.toml: `test.http[0].deadline_secs` is 61, out of range; use a value from 1 to 60"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", send = \"x\", idle_secs = 31, expect_status = 408 }"
        )),
        "systems/t.toml: `test.http[0].idle_secs` is 31, out of range; use a value from 1 to 30"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", get = \"/\", body = \"none\", deadline_secs = 20, may_cut_secs = 21 }"
        )),
        "systems/t.toml: `test.http[0].may_cut_secs` is 21, out of range; use a value from 1 to 20"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", send_header_bytes = 0, expect_status = 431 }")),
        "systems/t.toml: `test.http[0].send_header_bytes` is 0, out of range; use a value from 1 to 67108864 (64 MiB)"
    );
}

#[test]
fn raw_exchange_rules() {
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", send = \"\" }")),
        "systems/t.toml: `test.http[0]` has `send = \"\"`; send at least one byte (to test an idle connection, send a partial request and use `idle_secs`)"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", send = \"x\", close = true, idle_secs = 2 }")),
        "systems/t.toml: `test.http[0]` has both `close` (shut the sending side at once) and `idle_secs` (stay connected and quiet); choose one"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", send = \"x\" }")),
        "systems/t.toml: `test.http[0]` waits for an answer but has no `expect_status`; say which status the server must answer (for example 400)"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"\", send = \"x\", close = true }")),
        "systems/t.toml: `test.http[0].after` is an empty string, which matches any output; remove it or write the text to look for"
    );
}

#[test]
fn a_crash_test_has_no_exchanges() {
    let text = http("{ port = 8080, after = \"x\", send = \"x\", close = true }").replace(
        "[test]\n",
        "[test]\ncrash = { rounds = 2, after = \"x\", kill_after_ms = [1, 2] }\n",
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `test.http[0]` is in a crash test; a crash test kills QEMU on its own schedule, so exchanges and `crash` do not go together: make a separate test"
    );
}

#[test]
fn a_hold_is_read_with_and_without_a_probe() {
    let http = exchanges(&http(
        "{ port = 8080, after = \"x\", hold = \"/data/16m.bin\", peers = 48, served = 40, hold_secs = 20, cut = true, probe = \"/data/16m.bin\", body = \"generated\", probe_secs = 5 },\n\
         { port = 8080, after = \"x\", hold = \"/\", hold_secs = 3 }",
    ));
    assert_eq!(
        http[0].kind,
        HttpKind::Hold(Hold {
            path: "/data/16m.bin".into(),
            peers: 48,
            served: 40,
            hold_secs: 20,
            cut: true,
            probe: Some(HoldProbe {
                path: "/data/16m.bin".into(),
                body: BodyCheck::Generated,
                within_secs: 5,
            }),
        })
    );
    assert_eq!(
        http[1].kind,
        HttpKind::Hold(Hold {
            path: "/".into(),
            peers: 1,
            served: 0,
            hold_secs: 3,
            cut: false,
            probe: None,
        })
    );
    assert_eq!(http[1].kind.name(), "hold");
}

#[test]
fn a_conditional_exchange_needs_bytes_to_compare() {
    let read = exchanges(&http(
        "{ port = 8080, after = \"x\", conditional = \"/data/16m.bin\", body = \"generated\" }",
    ));
    assert_eq!(
        read[0].kind,
        HttpKind::Conditional(Conditional {
            path: "/data/16m.bin".into(),
            body: BodyCheck::Generated,
        })
    );
    assert_eq!(read[0].kind.name(), "conditional");
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", conditional = \"/data/16m.bin\", body = \"none\" }")),
        "systems/t.toml: `test.http[0]` is a conditional exchange with `body = \"none\"`, but its ranges are checked byte for byte: use `body = \"generated\"` or `body = \"folder\"`"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", conditional = \"/data/16m.bin\", body = \"generated\", clients = 2 }")),
        "systems/t.toml: `test.http[0]` has `clients`, which a conditional exchange does not take; remove it or change the kind"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", conditional = \"/data/nope.bin\", body = \"generated\" }")),
        "systems/t.toml: `test.http[0]` checks \"/data/nope.bin\" against a generated file, but that path is not generated (generated: /data/16m.bin); fix the path or use `body = \"folder\"`"
    );
}

#[test]
fn hold_rules() {
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", hold = \"/\" }")),
        "systems/t.toml: `[test.http[0]]` is missing the required key `hold_secs` (an integer); add it"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", hold = \"/\", hold_secs = 1, peers = 129 }"
        )),
        "systems/t.toml: `test.http[0].peers` is 129, out of range; use a value from 1 to 128"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", hold = \"/\", hold_secs = 31 }"
        )),
        "systems/t.toml: `test.http[0].hold_secs` is 31, out of range; use a value from 1 to 30"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", hold = \"x\", hold_secs = 1 }")),
        "systems/t.toml: `test.http[0]` the path \"x\" is not a URL path; start it with `/` and use no spaces or control characters"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", hold = \"/\", hold_secs = 1, body = \"none\" }")),
        "systems/t.toml: `test.http[0]` has `body`, which is about a hold's probe, but no `probe`; add `probe = \"/path\"` (a normal client's GET beside the held peers) or remove `body`"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", hold = \"/\", hold_secs = 1, probe = \"/\" }"
        )),
        "systems/t.toml: `[test.http[0]]` is missing the required key `body` (a string); add it"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", hold = \"/\", hold_secs = 1, probe = \"/a\", body = \"generated\" }")),
        "systems/t.toml: `test.http[0]` checks \"/a\" against a generated file, but that path is not generated (generated: /data/16m.bin); fix the path or use `body = \"folder\"`"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", hold = \"/\", hold_secs = 1, clients = 2 }")),
        "systems/t.toml: `test.http[0]` has `clients`, which a hold exchange does not take; remove it or change the kind"
    );
    assert_eq!(
        message(&http("{ port = 8080, after = \"x\", get = \"/\", body = \"none\", peers = 2 }")),
        "systems/t.toml: `test.http[0]` has `peers`, which a get exchange does not take; remove it or change the kind"
    );
}

#[test]
fn a_crowd_is_read_and_bounded() {
    let got = exchanges(&http(
        "{ port = 8080, after = \"x\", crowd = \"/data/16m.bin\", body = \"generated\", clients = 500, probe_secs = 5 }",
    ));
    assert_eq!(
        got[0].kind,
        HttpKind::Crowd(conflux_manifest::Crowd {
            path: "/data/16m.bin".into(),
            body: BodyCheck::Generated,
            clients: 500,
            probe_secs: 5,
        })
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", crowd = \"/data/16m.bin\", body = \"generated\", clients = 1001 }"
        )),
        "systems/t.toml: `test.http[0].clients` is 1001, out of range; use a value from 1 to 1000"
    );
    assert_eq!(
        message(&http(
            "{ port = 8080, after = \"x\", crowd = \"/data/16m.bin\", body = \"generated\", clients = 2, peers = 3 }"
        )),
        "systems/t.toml: `test.http[0]` has `peers`, which a crowd exchange does not take; remove it or change the kind"
    );
}

#[test]
fn a_test_names_a_known_network_and_listens_on_host_ports() {
    let m = ok(&server(GEN, "network = \"passt\"\nlisten = [5611, 5612]"));
    let test = m.test.unwrap();
    assert_eq!(test.network, Some(conflux_manifest::Network::Passt));
    assert_eq!(test.listen, [5611, 5612]);
    assert_eq!(
        message(&server(GEN, "network = \"pasta\"")),
        "systems/t.toml: `test.network` is \"pasta\", which is not a network backend; did you mean \"passt\"?"
    );
    assert_eq!(
        message(&server(GEN, "listen = [80]")),
        "systems/t.toml: `test.listen[0]` is 80, out of range; use a value from 1024 to 65535"
    );
}
