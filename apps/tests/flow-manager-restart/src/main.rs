//! Test task: `flowmgr` restarting under a running flow, ownership, and
//! pause/resume, as an application sees them.
//!
//! It holds two `flowmgr` capabilities with different badges, so it is two
//! applications. Flow A (pattern → check, a million records: it runs
//! until something stops it) belongs to the first: the second is refused
//! `NotYours` for every operation on it. Pausing A stops its edges (two
//! looks a tick apart see the same counts); resuming moves them again.
//! Then `flowmgr`'s first instance faults on purpose serving the LIST
//! that follows (only in this system, `flowmgr/server/src/fault.rs`); init restarts it, and the
//! new instance stops A's stages and revokes every slot before serving.
//! The app sees one `DeadPeer`, then A's id answers `UnknownFlow`, LIST is
//! empty, and a new flow B through the same stage task carries every
//! record whole, once, in order: nothing of A is left in the stages.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::SysError;
use conflux_flow_protocol::api::{FlowRequest, FlowStatus};
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::StageSpec;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use flow_client::Refusal;
use flow_client::{Error, FlowId, FlowState, Flows};

conflux_userlib::entry!(main);

const BUFFER: u32 = 1024;
const B_RECORDS: u64 = 2000;
/// Ticks (10 ms) waited for B to finish.
const PATIENCE_TICKS: u32 = 3000;

struct Checks(u32);

impl Checks {
    fn check(&mut self, what: &str, ok: bool) {
        if ok {
            println!("ok: {what}");
        } else {
            self.0 += 1;
            println!("FAIL: {what}");
        }
    }
}

fn request(count: u64, seed: u64) -> FlowRequest {
    let source = StageSpec::Pattern { count, seed };
    FlowRequest::new(source, &[], StageSpec::Check { seed }, 0, 0, BUFFER)
        .expect("pattern → check is a valid flow")
}

fn sleep(clock: Notification, ticks: u64) {
    if clock.timer(ticks).is_ok() {
        let _ = clock.wait();
    }
}

fn refused(r: Result<impl Sized, Error>, status: FlowStatus) -> bool {
    matches!(r, Err(Error::Refused(Refusal { status: s, .. })) if s == status)
}

/// Buffers the source has sent so far.
fn sent(flows: &Flows, id: FlowId) -> Option<u64> {
    Some(flows.stats(id).ok()?.edges[0].buffers)
}

/// The flow's state from LIST, waiting up to the patience for `want`.
fn wait_for(flows: &Flows, clock: Notification, id: FlowId, want: FlowState) -> bool {
    for _ in 0..PATIENCE_TICKS / 5 {
        let mut out = [(FlowId(0), FlowState::Running); 4];
        if let Ok(n) = flows.list(&mut out) {
            if out[..n.min(4)].iter().any(|(f, s)| *f == id && *s == want) {
                return true;
            }
        }
        sleep(clock, 5);
    }
    false
}

fn main() {
    let app = Flows::new(config::caps::FLOWMGR);
    let other = Flows::new(config::caps::OTHER);
    let clock = Notification(config::caps::CLOCK);
    let mut c = Checks(0);
    let a = match app.create(&request(1_000_000, 5)) {
        Ok(id) => id,
        Err(e) => {
            println!("FAIL: create A: {e}");
            return;
        }
    };
    c.check(
        "another badge's stats: NotYours",
        refused(other.stats(a), FlowStatus::NotYours),
    );
    c.check(
        "another badge's pause: NotYours",
        refused(other.pause(a), FlowStatus::NotYours),
    );
    c.check(
        "another badge's destroy: NotYours",
        refused(other.destroy(a), FlowStatus::NotYours),
    );
    let mut out = [(FlowId(0), FlowState::Running); 4];
    c.check(
        "another badge's list is empty",
        other.list(&mut out) == Ok(0),
    );
    c.check(
        "a second flow under this badge: OverQuota (the other badge is owed the second slot)",
        refused(app.create(&request(1_000, 7)), FlowStatus::OverQuota),
    );

    c.check("pause", app.pause(a).is_ok());
    let paused = sent(&app, a);
    sleep(clock, 20);
    let still = sent(&app, a);
    c.check(
        "paused: STATS says so",
        app.stats(a).is_ok_and(|s| s.state == FlowState::Paused),
    );
    c.check(
        "paused: nothing moves in 200 ms",
        paused.is_some() && paused == still,
    );
    c.check("resume", app.resume(a).is_ok());
    let mut moved = false;
    for _ in 0..100 {
        sleep(clock, 2);
        if sent(&app, a) > still {
            moved = true;
            break;
        }
    }
    c.check("resumed: buffers move again", moved);
    // flowmgr's first instance dies serving this LIST (A still running).
    let dead = matches!(app.list(&mut out), Err(Error::Ipc(SysError::DeadPeer)));
    c.check("flowmgr's restart shows as DeadPeer once", dead);
    // init restarts flowmgr after the fault report: until the new instance
    // serves, calls fail (said once on the console).
    let mut listed = app.list(&mut out);
    for _ in 0..200 {
        if listed.is_ok() {
            break;
        }
        sleep(clock, 1);
        listed = app.list(&mut out);
    }
    if let Err(e) = listed {
        println!("LIST after the restart: {e}");
    }
    c.check("the new flowmgr answers LIST: no flows", listed == Ok(0));
    c.check(
        "A's id names nothing",
        refused(app.stats(a), FlowStatus::UnknownFlow),
    );
    c.check(
        "A cannot be destroyed",
        refused(app.destroy(a), FlowStatus::UnknownFlow),
    );

    let b = match app.create(&request(B_RECORDS, 9)) {
        Ok(id) => id,
        Err(e) => {
            println!("FAIL: create B after the restart: {e}");
            return;
        }
    };
    c.check("B has a new id", b != a);
    c.check("B finishes", wait_for(&app, clock, b, FlowState::Done));
    match app.stats(b) {
        Ok(s) => {
            let tally = Tally::from_words(s.sink);
            println!("B's check sink: {tally:?} (good, missing, repeated, damaged)");
            c.check(
                "every record of B whole, once, in order",
                tally == (B_RECORDS, 0, 0, 0),
            );
        }
        Err(e) => c.check(alloc_free_reason(e), false),
    }
    c.check("destroy B", app.destroy(b).is_ok());
    if c.0 == 0 {
        println!("all checks passed");
    }
}

/// A failed STATS as a check's name (no allocator in this task).
fn alloc_free_reason(e: Error) -> &'static str {
    match e {
        Error::Refused(_) => "STATS of B was refused",
        Error::Ipc(_) => "STATS of B did not reach flowmgr",
        Error::BadAnswer => "STATS of B was answered with nonsense",
    }
}
