//! Hold exchanges against the tiny server: a server that cuts held
//! answers passes, one that sends them whole or leaves them open fails;
//! a probe is served after 503s, and fails when they never end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::server::{self, Fault};
use super::{files, hold, Expected, HoldPlan, Probe, Target};

fn plan(port: u16, peers: u32, cut: bool) -> HoldPlan {
    HoldPlan {
        target: Target::loopback(port),
        path: "/big.bin".into(),
        peers,
        served: 0,
        hold: Duration::from_millis(200),
        cut,
        probe: None,
        deadline: Duration::from_secs(20),
    }
}

fn probe(within: Duration) -> Probe {
    Probe {
        path: "/a.txt".into(),
        expected: Expected::Bytes(Arc::from(files()["/a.txt"].clone())),
        within,
    }
}

#[test]
fn held_answers_the_server_cut_pass() {
    let port = server::start(files(), Fault::CutHalf);
    let p = plan(port, 3, true);
    let report = hold(&p).unwrap();
    assert_eq!((report.served, report.turned_away), (3, 0));
    assert_eq!(report.cut, Some((3, 0)));
    assert!(report.summary(&p).contains("every answer served was cut"));
}

#[test]
fn held_answers_sent_whole_are_not_cut() {
    let port = server::start(files(), Fault::None);
    let error = hold(&plan(port, 2, true)).unwrap_err();
    assert!(
        error.contains("held answer 0 was not cut: once read, all 300000 bytes of its body came"),
        "{error}"
    );
    // Without `cut` the same server passes.
    assert!(hold(&plan(port, 2, false)).is_ok());
}

#[test]
fn a_held_answer_left_open_is_not_cut() {
    let port = server::start(files(), Fault::StallHalf);
    let error = hold(&plan(port, 1, true)).unwrap_err();
    assert!(
        error.contains("was not cut: the connection was still open after reading on for 5 s"),
        "{error}"
    );
}

#[test]
fn silence_instead_of_an_answer_fails() {
    let port = server::start(files(), Fault::Silent);
    let mut p = plan(port, 1, false);
    p.deadline = Duration::from_secs(2);
    let error = hold(&p).unwrap_err();
    assert!(
        error.starts_with("peer 0: no answer before the deadline"),
        "{error}"
    );
}

#[test]
fn the_probe_is_tried_again_after_503s_until_served() {
    let busy = Instant::now() + Duration::from_millis(700);
    let port = server::start(files(), Fault::BusyUntil(busy));
    let mut p = plan(port, 2, false);
    p.probe = Some(probe(Duration::from_secs(5)));
    let report = hold(&p).unwrap();
    assert_eq!((report.served, report.turned_away), (0, 2), "full: 503s");
    let (tries, _) = report.probe.expect("probed");
    assert!(tries > 1, "{tries} tries");
    assert!(report
        .summary(&p)
        .contains("/a.txt served to a normal client"));
}

#[test]
fn a_probe_locked_out_fails_in_time() {
    let busy = Instant::now() + Duration::from_secs(60);
    let port = server::start(files(), Fault::BusyUntil(busy));
    let mut p = plan(port, 1, false);
    p.probe = Some(probe(Duration::from_secs(1)));
    let start = Instant::now();
    let error = hold(&p).unwrap_err();
    assert!(
        error.contains("still 503 after 1 s: the held peers lock it out"),
        "{error}"
    );
    assert!(start.elapsed() < Duration::from_secs(3));
    p.peers = 2;
    p.served = 1;
    let error = hold(&p).unwrap_err();
    assert!(
        error.contains("only 0 of 2 peers were served 200 (2 answered 503); at least 1 must be"),
        "{error}"
    );
}
