//! A connection's deadlines and pipelining, with the time passed in.

use conflux_http::conn::{Conn, Step, HEAD_DEADLINE_MS, IDLE_MS};
use conflux_http::request::HEAD_MAX;
use conflux_http::Status;

fn served_path(step: Step) -> String {
    match step {
        Step::Serve(r) => r.path,
        other => panic!("expected a request, got {other:?}"),
    }
}

#[test]
fn pipelined_requests_come_out_one_by_one() {
    let mut c = Conn::new(0);
    c.received(
        b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHo",
        10,
    );
    assert_eq!(served_path(c.next(10)), "/a");
    assert_eq!(c.next(11), Step::WaitUntil(10 + HEAD_DEADLINE_MS));
    c.received(b"st: x\r\n\r\n", 20);
    assert_eq!(served_path(c.next(20)), "/b");
    assert_eq!(c.next(20), Step::WaitUntil(20 + IDLE_MS));
}

#[test]
fn a_slow_head_gets_408_however_its_bytes_are_spaced() {
    let mut c = Conn::new(0);
    let head = b"GET / HTTP/1.1\r\nHost: x\r\n";
    for (i, b) in head.iter().enumerate() {
        let now = 100 + i as u64 * 100;
        c.received(&[*b], now);
        if now - 100 < HEAD_DEADLINE_MS {
            assert!(matches!(c.next(now), Step::WaitUntil(t) if t == 100 + HEAD_DEADLINE_MS));
        }
    }
    match c.next(100 + HEAD_DEADLINE_MS) {
        Step::Refuse { status, .. } => assert_eq!(status, Status::RequestTimeout),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_silent_kept_alive_connection_is_closed() {
    let mut c = Conn::new(5);
    assert_eq!(c.next(5 + IDLE_MS - 1), Step::WaitUntil(5 + IDLE_MS));
    assert_eq!(c.next(5 + IDLE_MS), Step::Close);
}

#[test]
fn a_flood_is_bounded_and_refused() {
    let mut c = Conn::new(0);
    let chunk = vec![b'a'; 4096];
    c.received(b"GET / HTTP/1.1\r\nX: ", 0);
    for _ in 0..300 {
        c.received(&chunk, 1);
    }
    assert_eq!(c.room(), 0, "nothing past the limit is kept");
    match c.next(2) {
        Step::Refuse { status, .. } => assert_eq!(status, Status::HeaderTooLarge),
        other => panic!("{other:?}"),
    }
    let _ = HEAD_MAX;
}

#[test]
fn a_head_cut_by_the_peer_is_a_bad_request() {
    let mut c = Conn::new(0);
    assert_eq!(c.peer_closed(), Step::Close);
    c.received(b"GET / HT", 1);
    assert!(matches!(
        c.peer_closed(),
        Step::Refuse {
            status: Status::BadRequest,
            ..
        }
    ));
}

#[test]
fn quiet_since_is_the_idle_start_or_the_head_s_first_byte() {
    let mut c = Conn::new(40);
    assert_eq!(c.quiet_since(), 40, "accepted, nothing came");
    c.received(b"GET / HTTP/1.1\r\n", 100);
    c.received(b"Ho", 2_000);
    assert_eq!(
        c.quiet_since(),
        100,
        "a head dragging on counts from its first byte"
    );
    c.received(b"st: x\r\n\r\n", 2_500);
    assert!(matches!(c.next(2_500), Step::Serve(_)));
    assert_eq!(c.quiet_since(), 2_500, "idle from the request's end");
}
