//! Exchanges from a manifest, run against the peer's test server with a
//! console that shows fixed text: passes, logs and failure messages.

use std::collections::HashMap;
use std::path::PathBuf;

use super::*;
use crate::http_peer::tests::server::{self, Fault};

/// A folder with `index.html`, and a server serving it and a generated
/// file; returns the folder and the port.
fn setup(name: &str, fault: Fault) -> (PathBuf, u16) {
    let folder =
        std::env::temp_dir().join(format!("conflux-exchanges-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("index.html"), b"<p>hi</p>").unwrap();
    let files = HashMap::from([
        ("/index.html".to_owned(), b"<p>hi</p>".to_vec()),
        ("/data/g.bin".to_owned(), generate::bytes(7, 100_000)),
    ]);
    (folder, server::start(files, fault))
}

fn manifest(folder: &std::path::Path, port: u16, test: &str) -> Manifest {
    let text = format!(
        "[system]\nname = \"t\"\n[tasks.httpd]\ncrate = \"httpd\"\npriority = 1\nstart_order = 1\n\
         [devices.disk0]\nkind = \"virtio-blk\"\ndriver = \"httpd\"\nfolder = \"{}\"\nsize_mib = 16\n\
         generate = [{{ path = \"data/g.bin\", size = 100000, seed = 7 }}]\n\
         [devices.net0]\nkind = \"virtio-net\"\ndriver = \"httpd\"\nforwards = [{{ host = {port}, guest = 80 }}]\n\
         [test]\nexpect = [\"httpd: ready\"]\n{test}\n",
        folder.display()
    );
    conflux_manifest::parse(&text.replace("{port}", &port.to_string()), "/t.toml").unwrap()
}

fn run_with(manifest: &Manifest, console: &str) -> (BesideReport, bool) {
    let beside = beside(manifest, Duration::from_secs(2)).unwrap().unwrap();
    ((beside.work)(&Console::showing(console)), beside.stop)
}

#[test]
fn a_serving_test_passes_logs_its_rates_and_asks_to_stop() {
    let (folder, port) = setup("pass", Fault::None);
    let m = manifest(
        &folder,
        port,
        "outcome = \"serving\"\nhttp = [\n\
         { port = {port}, after = \"httpd: ready\", send = \"GARBAGE\\r\\n\\r\\n\", expect_status = 400, background = true },\n\
         { port = {port}, after = \"httpd: ready\", get = \"/data/g.bin\", body = \"generated\", clients = 4, requests = 5 },\n\
         { port = {port}, after = \"ready\", head = \"/index.html\", body = \"folder\" },\n]",
    );
    let (report, stop) = run_with(&m, "httpd: ready\n");
    assert!(stop);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let lines: Vec<&str> = report.log.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "[runner] http #0 (raw, port {port}): ok: answered \"HTTP/1.1 400 X\""
        )),
        "{}",
        report.log
    );
    assert!(
        lines[1].starts_with(&format!(
            "[runner] http #1 (get, port {port}, /data/g.bin): ok: 20 requests in "
        )),
        "{}",
        report.log
    );
    assert!(
        lines[1].contains("requests/s") && lines[1].contains("2000000 body bytes"),
        "{}",
        report.log
    );
    assert!(
        lines[2].starts_with(&format!(
            "[runner] http #2 (head, port {port}, /index.html): ok"
        )),
        "{}",
        report.log
    );
    assert_eq!(
        lines[3],
        "[runner] serving: every exchange judged, every expected line out"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn failures_name_the_exchange_and_what_came() {
    let (folder, port) = setup("fail", Fault::WrongByte);
    let m = manifest(
        &folder,
        port,
        "http = [\n\
         { port = {port}, after = \"httpd: ready\", get = \"/index.html\", body = \"folder\" },\n\
         { port = {port}, after = \"never\", send = \"x\", close = true },\n]",
    );
    let (report, stop) = run_with(&m, "httpd: ready\n");
    assert!(!stop);
    assert_eq!(
        report.problems,
        [
            format!("http #0 (get, port {port}, /index.html): path /index.html, client 0, request 0: the body differs at byte 8: expected \">\", got \"\\x1e\""),
            format!("http #1 (truncated, port {port}): never started: the console never showed \"never\""),
        ]
    );
    assert!(report.log.contains(&format!(
        "[runner] http #0 (get, port {port}, /index.html): FAILED: path /index.html"
    )));
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_missing_folder_file_fails_before_qemu_starts() {
    let (folder, port) = setup("missing", Fault::None);
    let m = manifest(
        &folder,
        port,
        "http = [{ port = {port}, after = \"x\", get = \"/nope.html\", body = \"folder\" }]",
    );
    let error = beside(&m, Duration::from_secs(1)).err().unwrap();
    assert!(
        error.starts_with("test.http[0]: /nope.html is checked against the file "),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_system_without_a_folder_disk_checks_unchecked_bodies() {
    let (folder, port) = setup("nofolder", Fault::None);
    let text = format!(
        "[system]\nname = \"t\"\n[tasks.httpd]\ncrate = \"httpd\"\npriority = 1\nstart_order = 1\n\
         [devices.net0]\nkind = \"virtio-net\"\ndriver = \"httpd\"\nforwards = [{{ host = {port}, guest = 80 }}]\n\
         [test]\nexpect = [\"x\"]\nhttp = [{{ port = {port}, after = \"up\", get = \"/index.html\", body = \"none\" }}]\n"
    );
    let m = conflux_manifest::parse(&text, "/t.toml").unwrap();
    let (report, _) = run_with(&m, "up\n");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let _ = std::fs::remove_dir_all(&folder);
}
