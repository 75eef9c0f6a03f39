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
use cosy_abi::{Builder, Compound, Outcome};

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
/// it with its status and (for op 0) its value.
fn run(net: &mut Net, compound: &[u8], params: &[u64]) -> Result<u64, (u16, u16, u64)> {
    let reply = net
        .run(compound, params)
        .map_err(|e| (0xFFFF, 0, e_code(e)))?;
    if reply.outcome == Outcome::Finished as u16 && reply.failures == 0 {
        return Ok(reply.exit_value);
    }
    let at = net.compound_offset(compound.len()).unwrap_or(0);
    let view = Compound::new_checked(&net.control()[at..at + compound.len()]);
    let failed = view.ok().and_then(|v| {
        (0..v.op_count()).find_map(|i| {
            let r = v.op_result(i)?;
            (r.status > 1).then_some((i, r.status, v.op_result(0).map_or(0, |a| a.value)))
        })
    });
    Err(failed.unwrap_or((0xFFFF, reply.stop_code, 0)))
}

fn e_code(e: Error) -> u64 {
    e.net().map_or(0, |n| u64::from(n.code()))
}

/// A compound op status for `e`.
fn status(e: NetError) -> u16 {
    cosy_abi::CallError::from(e).code()
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
        Err((1, st, conn)) if st == status(NetError::WouldBlock) => {
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
