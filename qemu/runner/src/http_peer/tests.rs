//! The peer against a tiny server (`tests/server.rs`): every check passes
//! on a correct server and fails, with a message saying why, on a wrong
//! one.

mod hold;
pub(crate) mod server;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::disks::generate;
use server::Fault;

fn files() -> HashMap<String, Vec<u8>> {
    HashMap::from([
        ("/a.txt".to_owned(), b"hello".to_vec()),
        ("/big.bin".to_owned(), generate::bytes(7, 300_000)),
        ("/empty".to_owned(), Vec::new()),
    ])
}

fn plan(port: u16, paths: &[&str], clients: u32, requests: u32) -> FetchPlan {
    let files = files();
    FetchPlan {
        target: Target::loopback(port),
        head: false,
        paths: paths
            .iter()
            .map(|p| (p.to_string(), Expected::Bytes(Arc::from(files[*p].clone()))))
            .collect(),
        status: 200,
        clients,
        requests,
        deadline: Duration::from_secs(20),
        may_cut: None,
    }
}

fn fetch_on(fault: Fault, paths: &[&str]) -> Result<Stats, String> {
    let port = server::start(files(), fault);
    fetch(&plan(port, paths, 2, 4))
}

#[test]
fn concurrent_kept_alive_gets_pass_and_are_measured() {
    let port = server::start(files(), Fault::None);
    let stats = fetch(&plan(port, &["/big.bin", "/a.txt"], 4, 10)).unwrap();
    assert_eq!(stats.requests, 40);
    assert_eq!(stats.body_bytes, 20 * 300_000 + 20 * 5);
    assert_eq!(stats.reconnects, 0);
    assert!(stats.requests_per_sec() > 0.0 && stats.bytes_per_sec() > 0.0);
}

#[test]
fn a_server_closing_kept_alive_connections_is_reconnected_to() {
    let stats = fetch_on(Fault::CloseEvery3, &["/a.txt"]).unwrap();
    assert_eq!(stats.requests, 8);
    assert!(stats.reconnects >= 2, "{stats:?}");
}

#[test]
fn head_checks_the_length_only() {
    let port = server::start(files(), Fault::None);
    let mut p = plan(port, &["/big.bin"], 1, 3);
    p.head = true;
    assert_eq!(fetch(&p).unwrap().body_bytes, 0);
    p.paths[0].1 = Expected::Empty;
    let error = fetch(&p).unwrap_err();
    assert!(
        error.contains("expected Content-Length 0, got 300000"),
        "{error}"
    );
}

#[test]
fn empty_and_unchecked_bodies() {
    let port = server::start(files(), Fault::None);
    let mut p = plan(port, &["/empty"], 1, 2);
    p.paths[0].1 = Expected::Empty;
    fetch(&p).unwrap();
    p.paths = vec![("/big.bin".into(), Expected::Unchecked)];
    assert_eq!(fetch(&p).unwrap().body_bytes, 600_000);
    p.paths = vec![("/nope".into(), Expected::Empty)];
    p.status = 404;
    fetch(&p).unwrap();
}

#[test]
fn a_wrong_body_byte_fails() {
    let error = fetch_on(Fault::WrongByte, &["/big.bin"]).unwrap_err();
    assert!(error.contains("path /big.bin, client "), "{error}");
    assert!(error.contains("the body differs at byte 99"), "{error}");
}

#[test]
fn a_wrong_length_fails() {
    let error = fetch_on(Fault::WrongLength, &["/a.txt"]).unwrap_err();
    assert!(
        error.contains("expected Content-Length 5, got 6"),
        "{error}"
    );
}

#[test]
fn a_wrong_status_fails() {
    let error = fetch_on(Fault::WrongStatus, &["/a.txt"]).unwrap_err();
    assert!(
        error.contains("expected status 200, got \"HTTP/1.1 201 X\\r\\n"),
        "{error}"
    );
}

#[test]
fn no_answer_within_the_deadline_fails_in_time() {
    let port = server::start(files(), Fault::Silent);
    let mut p = plan(port, &["/a.txt"], 2, 1);
    p.deadline = Duration::from_millis(500);
    let start = std::time::Instant::now();
    let error = fetch(&p).unwrap_err();
    assert!(error.contains("no answer before the deadline"), "{error}");
    assert!(start.elapsed() < Duration::from_secs(3));
}

/// A plan that allows cuts, against a server that misbehaves with `fault`.
fn cut_plan(fault: Fault) -> FetchPlan {
    let port = server::start(files(), fault);
    let mut p = plan(port, &["/big.bin"], 2, 3);
    p.may_cut = Some(Duration::from_millis(500));
    p
}

#[test]
fn a_cut_answer_fails_unless_cuts_are_allowed() {
    let mut p = cut_plan(Fault::CutHalf);
    let error = fetch(&{
        p.may_cut = None;
        p.clone()
    })
    .unwrap_err();
    assert!(
        error.contains("the server closed after 150000 of 300000 body bytes"),
        "{error}"
    );
    p.may_cut = Some(Duration::from_millis(500));
    let stats = fetch(&p).unwrap();
    assert_eq!((stats.cut, stats.requests), (2, 0), "{stats:?}");
    let first = stats.first_cut.unwrap();
    assert!(
        first.contains("path /big.bin, client ") && first.contains("closed after 150000 of 300000"),
        "{first}"
    );
}

#[test]
fn a_stalled_answer_is_cut_after_the_stall_time() {
    let start = std::time::Instant::now();
    let stats = fetch(&cut_plan(Fault::StallHalf)).unwrap();
    assert_eq!(stats.cut, 2, "{stats:?}");
    let first = stats.first_cut.unwrap();
    assert!(
        first.contains("no byte for 0.5 s after 150000 of 300000"),
        "{first}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_wrong_byte_fails_even_where_cuts_are_allowed() {
    let error = fetch(&cut_plan(Fault::WrongByteThenCut)).unwrap_err();
    assert!(error.contains("the body differs at byte 99"), "{error}");
}

#[test]
fn complete_answers_pass_where_cuts_are_allowed() {
    let stats = fetch(&cut_plan(Fault::None)).unwrap();
    assert_eq!((stats.cut, stats.requests), (0, 6));
}

fn raw_plan(port: u16, send: &[u8], then: RawThen, expect_status: Option<u16>) -> RawPlan {
    RawPlan {
        target: Target::loopback(port),
        send: send.to_vec(),
        then,
        expect_status,
        deadline: Duration::from_secs(5),
    }
}

#[test]
fn garbage_gets_its_status() {
    let port = server::start(files(), Fault::None);
    let report = raw(&raw_plan(
        port,
        b"GARBAGE\r\n\r\n",
        RawThen::Wait,
        Some(400),
    ))
    .unwrap();
    assert!(
        report.summary().starts_with("answered \"HTTP/1.1 400 X\""),
        "{}",
        report.summary()
    );
    let error = raw(&raw_plan(
        port,
        b"GARBAGE\r\n\r\n",
        RawThen::Wait,
        Some(401),
    ))
    .unwrap_err();
    assert!(
        error.starts_with("expected a status line with 401; got \"HTTP/1.1 400 X\\r\\n"),
        "{error}"
    );
}

#[test]
fn a_header_flood_gets_431_even_when_the_server_closes_early() {
    let port = server::start(files(), Fault::None);
    let flood = flood_head(1 << 20);
    assert!(flood.len() >= 1 << 20 && flood.ends_with(b"\r\n\r\n"));
    let report = raw(&raw_plan(port, &flood, RawThen::Wait, Some(431))).unwrap();
    assert_eq!(status_of(&report.answer), Some(431));
}

#[test]
fn a_truncated_request_must_be_closed() {
    let port = server::start(files(), Fault::None);
    raw(&raw_plan(port, b"GET /a.txt HT", RawThen::Close, None)).unwrap();
    let silent = server::start(files(), Fault::Silent);
    let mut p = raw_plan(silent, b"GET /a.txt HTTP/1.1\r\n\r\n", RawThen::Close, None);
    p.deadline = Duration::from_millis(700);
    let error = raw(&p).unwrap_err();
    assert!(
        error.contains("expected the server to close the connection"),
        "{error}"
    );
}

#[test]
fn an_idle_connection_gets_408_or_a_close_in_time() {
    let port = server::start(files(), Fault::None);
    let idle = RawThen::Idle(Duration::from_secs(3));
    raw(&raw_plan(port, b"GET / HTTP/1.1\r\n", idle, Some(408))).unwrap();
    // Too short a wait: the server's 1 s timer has not run out.
    let hasty = RawThen::Idle(Duration::from_millis(300));
    let error = raw(&raw_plan(port, b"GET / HTTP/1.1\r\n", hasty, Some(408))).unwrap_err();
    assert!(
        error.contains("or a close with nothing sent, within 0.3 s"),
        "{error}"
    );
    // A server that answers idleness with another status fails.
    let error = raw(&raw_plan(port, b"GET / HTTP/1.1\r\n", idle, Some(400))).unwrap_err();
    assert!(error.contains("got \"HTTP/1.1 408 X"), "{error}");
}

#[test]
fn status_lines_are_recognised_whole() {
    assert_eq!(status_of(b"HTTP/1.1 200 OK\r\n"), Some(200));
    assert_eq!(status_of(b"HTTP/1.0 404\r\n"), Some(404));
    assert_eq!(status_of(b"HTTP/1.1 200 OK"), None);
    assert_eq!(status_of(b"HTTP/1.1 20x OK\r\n"), None);
    assert_eq!(status_of(b"HTTP/1.1 2000\r\n"), None);
    assert_eq!(escape(b"a\r\n\x00"), "\"a\\r\\n\\x00\"");
    assert!(escape(&[b'x'; 200]).ends_with("(and 80 more bytes)"));
}
