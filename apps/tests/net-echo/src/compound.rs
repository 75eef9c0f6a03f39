//! One connection echoed by a compound: `accept → recv → send → close`
//! as one IPC (fail-fast). No op inside a compound waits, so the task
//! first waits (one per-call `wait`) until the listener has a connection.
//! The peer's bytes may still be on their way then: if `recv` fails with
//! `WouldBlock`, the task waits on the accepted socket and runs the rest,
//! `recv → send → close`, as a second compound.

use alloc::vec::Vec;

use conflux_net_client::{Error, Events, Net, NetError, PollEntry, Socket};
use conflux_socket_protocol::ops::{self, WAIT_FOREVER};
use conflux_userlib::testing::Checks;
use cosy_abi::typed::OpValue;
use cosy_abi::Builder;

/// Bytes one compound echoes at most (region 0 from offset 0).
const ROOM: u32 = 2048;

/// `accept(r0) → recv → send → close`, exit: bytes echoed.
fn accept_and_echo() -> Vec<u8> {
    let mut b = Builder::new();
    let (listener, conn, n) = (b.reg(), b.reg(), b.reg());
    let buf = b.buf(0, 0, ROOM);
    b.fail_fast(true).step_budget(16);
    b.call(conn, ops::ACCEPT, (listener,));
    b.call(n, ops::RECV, (conn, buf, u64::from(ROOM)));
    b.call(n, ops::SEND, (conn, buf, n));
    b.call_void(ops::CLOSE, (conn,));
    b.exit(n);
    b.build().unwrap_or_default()
}

/// `recv(r0) → send → close`, exit: bytes echoed.
fn echo() -> Vec<u8> {
    let mut b = Builder::new();
    let (conn, n) = (b.reg(), b.reg());
    let buf = b.buf(0, 0, ROOM);
    b.fail_fast(true).step_budget(16);
    b.call(n, ops::RECV, (conn, buf, u64::from(ROOM)));
    b.call(n, ops::SEND, (conn, buf, n));
    b.call_void(ops::CLOSE, (conn,));
    b.exit(n);
    b.build().unwrap_or_default()
}

/// Waits until `s` has `events` (a per-call `wait`, parked in the server).
fn wait_for(net: &mut Net, s: Socket, events: Events) -> Result<usize, Error> {
    let mut entry = [PollEntry {
        handle: s.0 as u32,
        events,
        revents: Events::NONE,
    }];
    net.wait(&mut entry, WAIT_FOREVER)
}

/// What a compound run came to: `Ok(exit value)`, or the op that stopped
/// it (with its socket error) and the value op 0 left (the connection
/// `accept` made).
fn run(
    net: &mut Net,
    compound: &[u8],
    params: &[u64],
) -> Result<u64, (Option<u16>, Option<NetError>, u64)> {
    match net.run(compound, params) {
        Ok(report) => report
            .clean()
            .map(|r| r.exit_value)
            .map_err(|f| (f.op, f.error.service(), 0)),
        Err(Error::Compound(stop)) => {
            let conn = match net.results().next() {
                Some(OpValue::Ok(conn)) => conn,
                _ => 0,
            };
            Err((stop.op, stop.error.service(), conn))
        }
        Err(e) => Err((None, e.net(), 0)),
    }
}

/// Echoes one connection on `listener` by compound; checks the outcome.
pub fn echo_one(net: &mut Net, listener: Socket, checks: &mut Checks) {
    conflux_userlib::println!("compound echo ready");
    let ready = wait_for(net, listener, Events::READABLE);
    checks.that("wait: the listener has a connection", ready == Ok(1), ready);
    let first = run(net, &accept_and_echo(), &[listener.0]);
    let echoed = match first {
        Ok(n) => Ok(n),
        // recv (op 1) would block: the bytes are not in yet.
        Err((Some(1), Some(NetError::WouldBlock), conn)) => {
            let conn = Socket(conn);
            let ready = wait_for(net, conn, Events::READABLE);
            checks.that("wait: the accepted socket has data", ready == Ok(1), ready);
            run(net, &echo(), &[conn.0])
        }
        Err(other) => Err(other),
    };
    checks.that(
        "a connection echoed by compound (accept, recv, send, close)",
        echoed.is_ok_and(|n| n > 0),
        echoed,
    );
}
