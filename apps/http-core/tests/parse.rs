//! Request heads as a client or an attacker sends them: each refusal must
//! carry its own status, and nothing may panic on arbitrary bytes.

use conflux_http::request::{HEADERS_MAX, HEAD_MAX};
use conflux_http::{parse, Method, Parsed, Request, Status};
use proptest::prelude::*;

fn complete(buf: &[u8]) -> (Request, usize) {
    match parse(buf) {
        Parsed::Complete { request, consumed } => (request, consumed),
        other => panic!("expected a complete request, got {other:?}"),
    }
}

fn refused(buf: &[u8]) -> (Status, String) {
    match parse(buf) {
        Parsed::Refused { status, why } => (status, why),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_get_with_keep_alive_defaults_by_version() {
    let buf = b"GET /README HTTP/1.1\r\nHost: x\r\n\r\nGET /next";
    let (r, n) = complete(buf);
    assert_eq!(r.method, Method::Get);
    assert_eq!(r.path, "/README");
    assert!(r.keep_alive);
    assert_eq!(
        &buf[n..],
        b"GET /next",
        "pipelined bytes are left for the next request"
    );
    let (r, _) = complete(b"HEAD / HTTP/1.0\r\n\r\n");
    assert_eq!((r.method, r.keep_alive), (Method::Head, false));
    let (r, _) = complete(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
    assert!(r.keep_alive);
    let (r, _) = complete(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: foo, close\r\n\r\n");
    assert!(!r.keep_alive);
}

#[test]
fn partial_heads_wait_until_the_limit() {
    assert_eq!(parse(b"GET /README HTTP/1.1\r\nHost"), Parsed::Partial);
    assert_eq!(parse(b""), Parsed::Partial);
    let mut long = b"GET / HTTP/1.1\r\nX-Pad: ".to_vec();
    long.resize(HEAD_MAX, b'a');
    assert_eq!(refused(&long).0, Status::HeaderTooLarge);
    let mut huge = b"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ".to_vec();
    huge.resize(1 << 20, b'a');
    huge.extend_from_slice(b"\r\n\r\n");
    assert_eq!(refused(&huge).0, Status::HeaderTooLarge);
}

#[test]
fn each_refusal_has_its_status() {
    assert_eq!(
        refused(b"POST / HTTP/1.1\r\nHost: x\r\n\r\n").0,
        Status::MethodNotAllowed
    );
    assert_eq!(
        refused(b"GET / HTTP/2.0\r\nHost: x\r\n\r\n").0,
        Status::VersionNotSupported
    );
    assert_eq!(
        refused(b"GET / HTTP/1.1\r\n\r\n").1,
        "an HTTP/1.1 request needs a Host header"
    );
    let (s, why) = refused(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    assert_eq!(s, Status::BadRequest);
    assert!(why.contains("Content-Length"), "{why}");
    assert!(
        refused(b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            .1
            .contains("Transfer-Encoding")
    );
    assert_eq!(refused(b"\x00\x01garbage\r\n\r\n").0, Status::BadRequest);
    assert_eq!(
        refused(b"GET /../etc HTTP/1.1\r\nHost: x\r\n\r\n").1,
        "the path climbs above the root with .."
    );
    assert_eq!(
        refused(b"GET x HTTP/1.1\r\nHost: x\r\n\r\n").0,
        Status::BadRequest
    );
    let mut many = b"GET / HTTP/1.1\r\n".to_vec();
    for i in 0..=HEADERS_MAX {
        many.extend_from_slice(format!("X-{i}: y\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    assert_eq!(
        refused(&many).1,
        "the request has more than 32 header lines"
    );
}

#[test]
fn a_zero_content_length_is_no_body() {
    let (r, _) = complete(b"GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(r.path, "/a");
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn a_complete_request_never_leaves_the_tree(target in "/[a-z./%0-9]{0,40}") {
        let head = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
        if let Parsed::Complete { request, .. } = parse(head.as_bytes()) {
            prop_assert!(request.path.starts_with('/'));
            prop_assert!(!request.path.split('/').any(|s| s == ".." || s == "."));
        }
    }
}
