//! The COSY loops: each step is one prepared compound on the network
//! server, its buffers in the control region (no copy in this task).
//!
//! No op inside a compound waits (the network server never parks one),
//! so a step that needs bytes from the peer is preceded by a per-call
//! `wait`: an echo round trip is `wait` + `recv → send` (two IPCs, as
//! VAN's blocking `recv` + `send`), while a request is the dispatcher's
//! `wait` + `accept → recv → send → close` (one IPC for four). When the
//! request's bytes are not in yet at `accept`, the compound hands back
//! the accepted socket and the task waits on it and runs
//! `recv → send → close` (two IPCs more; counted as *late*).
//!
//! Control region layout: the client library's per-call staging area
//! starts at 0 (the `wait` records go there); the compounds' receive
//! buffer is at [`BUF`] and the fixed answer at [`ANSWER`], above
//! anything a per-call operation of this task stages (at most [`ROOM`]
//! bytes). Compounds themselves go at the region's end.

use alloc::vec::Vec;

use conflux_net_client::{Error, Net, NetError, Socket};
use conflux_socket_protocol::ops;
use cosy_abi::typed::Failure;
use cosy_abi::{code, Builder, Cmp};

use crate::{wait_readable, Tally, RESPONSE, ROOM};

/// Offset of the receive buffer in the control region.
const BUF: u32 = 4096;
/// Offset of the fixed answer in the control region.
const ANSWER: u32 = 8192;
/// An echo compound's exit value when the peer closed.
const CLOSED: u64 = 1 << 62;
/// A request compound's exit flag: the request was not in yet; the low
/// bits are the accepted socket.
const PENDING: u64 = 1 << 61;
/// Steps a compound may take (each runs at most 9).
const BUDGET: u32 = 16;

/// The three compounds, prepared (verified once) on the network server.
pub struct Compounds {
    echo: u64,
    request: u64,
    tail: u64,
}

/// An exit value, or the socket error of the failed op whose result
/// (`-code`, cosy-abi §8) the compound exited with. (The code is the
/// service's `0x8000 | error`: compare typed errors, not raw numbers.)
fn decode(v: u64) -> Result<u64, Error> {
    match code::failure_of(v).map(Failure::<NetError>::from_code) {
        None => Ok(v),
        Some(Failure::Service(e)) => Err(Error::Net(e)),
        Some(Failure::Abi(c)) => Err(Error::Request(c)),
    }
}

/// A compound's exit decoded: the peer's bytes were not in yet.
const WOULD_BLOCK: Result<u64, Error> = Err(Error::Net(NetError::WouldBlock));

impl Compounds {
    /// Writes the fixed answer into the control region and prepares the
    /// compounds.
    pub fn prepare(net: &mut Net) -> Result<Compounds, Error> {
        let at = ANSWER as usize;
        net.control()[at..at + RESPONSE.len()].copy_from_slice(RESPONSE);
        Ok(Compounds {
            echo: net.prepare(&echo_step())?,
            request: net.prepare(&request_step())?,
            tail: net.prepare(&request_tail())?,
        })
    }
}

/// `r0` = connection: `n = recv; send(n)`. Exits with the bytes sent
/// (all `n` of them), `n << 32 | sent` when only part went, [`CLOSED`]
/// when the peer closed, or a failed op's `-code`.
fn echo_step() -> Vec<u8> {
    let mut b = Builder::new();
    let (conn, n, m, t) = (b.reg(), b.reg(), b.reg(), b.reg());
    let buf = b.buf(0, BUF, ROOM);
    let (failed_n, failed_m, closed, partial) = (b.label(), b.label(), b.label(), b.label());
    b.step_budget(BUDGET);
    b.call(n, ops::RECV, (conn, buf, u64::from(ROOM)));
    b.branch(Cmp::LtS, n, 0u64, failed_n);
    b.branch(Cmp::Eq, n, 0u64, closed);
    b.call(m, ops::SEND, (conn, buf, n));
    b.branch(Cmp::LtS, m, 0u64, failed_m);
    b.branch(Cmp::Ne, m, n, partial);
    b.exit(m);
    b.bind(partial);
    b.shl(t, n, 32u64).or(t, t, m).exit(t);
    b.bind(closed).exit(CLOSED);
    b.bind(failed_n).exit(n);
    b.bind(failed_m).exit(m);
    b.build().unwrap_or_default()
}

/// `r0` = listener: `c = accept; recv(c); send(answer); close(c)`. Exits
/// with the answer's bytes sent (0 if `send` failed; `c` is closed
/// either way), `PENDING | c` when the request was not in (or `recv`
/// failed otherwise: the tail finds out), or `accept`'s `-code`.
fn request_step() -> Vec<u8> {
    let mut b = Builder::new();
    let (listener, conn, n, s) = (b.reg(), b.reg(), b.reg(), b.reg());
    let buf = b.buf(0, BUF, ROOM);
    let answer = b.buf(0, ANSWER, RESPONSE.len() as u32);
    let (failed, pending, lost) = (b.label(), b.label(), b.label());
    b.step_budget(BUDGET);
    b.call(conn, ops::ACCEPT, (listener,));
    b.branch(Cmp::LtS, conn, 0u64, failed);
    b.call(n, ops::RECV, (conn, buf, u64::from(ROOM)));
    b.branch(Cmp::LtS, n, 0u64, pending);
    b.call(s, ops::SEND, (conn, answer, RESPONSE.len() as u64));
    b.call_void(ops::CLOSE, (conn,));
    b.branch(Cmp::LtS, s, 0u64, lost);
    b.exit(s);
    b.bind(lost).exit(0u64);
    b.bind(pending).or(s, conn, PENDING).exit(s);
    b.bind(failed).exit(conn);
    b.build().unwrap_or_default()
}

/// `r0` = accepted connection: `recv; send(answer); close`. Exits with
/// the answer's bytes sent (0 if `send` failed; closed either way), or
/// `recv`'s `-code` (the connection still open).
fn request_tail() -> Vec<u8> {
    let mut b = Builder::new();
    let (conn, n, s) = (b.reg(), b.reg(), b.reg());
    let buf = b.buf(0, BUF, ROOM);
    let answer = b.buf(0, ANSWER, RESPONSE.len() as u32);
    let (failed, lost) = (b.label(), b.label());
    b.step_budget(BUDGET);
    b.call(n, ops::RECV, (conn, buf, u64::from(ROOM)));
    b.branch(Cmp::LtS, n, 0u64, failed);
    b.call(s, ops::SEND, (conn, answer, RESPONSE.len() as u64));
    b.call_void(ops::CLOSE, (conn,));
    b.branch(Cmp::LtS, s, 0u64, lost);
    b.exit(s);
    b.bind(lost).exit(0u64);
    b.bind(failed).exit(n);
    b.build().unwrap_or_default()
}

/// Runs prepared compound `handle` with `params`; its exit value.
fn run(net: &mut Net, handle: u64, params: &[u64], tally: &mut Tally) -> Result<u64, Error> {
    tally.ipcs += 1;
    Ok(net.run_prepared(handle, params)?.exit_value)
}

/// Accepts the connection waiting on `listener` (per call: set-up, not
/// part of the loop) and echoes it by compound until the peer closes.
pub fn echo(
    net: &mut Net,
    compounds: &Compounds,
    listener: Socket,
    tally: &mut Tally,
) -> Result<(), Error> {
    let c = net.accept(listener)?;
    tally.ipcs += 1;
    let result = loop {
        tally.ipcs += 1;
        if let Err(e) = wait_readable(net, c) {
            break Err(e);
        }
        let exit = match run(net, compounds.echo, &[c.0], tally) {
            Ok(v) => decode(v),
            Err(e) => break Err(e),
        };
        match exit {
            Ok(CLOSED) => break Ok(()),
            Ok(v) if v >> 32 != 0 => {
                // Part of it went: the rest per call, from the buffer.
                let (n, m) = ((v >> 32) as usize, (v & 0xFFFF_FFFF) as usize);
                let at = BUF as usize;
                let rest = net.control()[at + m..at + n].to_vec();
                tally.ipcs += 1;
                if let Err(e) = net.send_all(c, &rest) {
                    break Err(e);
                }
            }
            Ok(_) => {}
            e if e == WOULD_BLOCK => continue,
            Err(e) => break Err(e),
        }
        tally.served += 1;
    };
    tally.ipcs += 1;
    let closed = net.close(c);
    result.and(closed)
}

/// Answers the connection waiting on `listener` by compound.
pub fn request(
    net: &mut Net,
    compounds: &Compounds,
    listener: Socket,
    tally: &mut Tally,
) -> Result<(), Error> {
    let exit = decode(run(net, compounds.request, &[listener.0], tally)?);
    let sent = match exit {
        Ok(v) if v & PENDING != 0 => late(net, compounds, Socket(v & !PENDING), tally)?,
        Ok(sent) => sent,
        Err(e) => return Err(e),
    };
    answered(sent, tally)
}

/// The request of accepted `c` was not in: waits for it, then answers.
fn late(net: &mut Net, compounds: &Compounds, c: Socket, tally: &mut Tally) -> Result<u64, Error> {
    tally.late += 1;
    loop {
        tally.ipcs += 1;
        let exit = wait_readable(net, c)
            .and_then(|()| run(net, compounds.tail, &[c.0], tally))
            .map(decode);
        match exit {
            Ok(Ok(sent)) => return Ok(sent),
            Ok(e) if e == WOULD_BLOCK => {}
            Ok(Err(e)) => return close_failed(net, c, tally, e),
            Err(e) => return close_failed(net, c, tally, e),
        }
    }
}

/// Closes `c` after its request failed; gives the failure.
fn close_failed(net: &mut Net, c: Socket, tally: &mut Tally, e: Error) -> Result<u64, Error> {
    tally.ipcs += 1;
    let _ = net.close(c);
    Err(e)
}

/// Counts a request whose answer went out whole; says so if it did not
/// (the runner's client then fails on the short answer, too).
fn answered(sent: u64, tally: &mut Tally) -> Result<(), Error> {
    if sent == RESPONSE.len() as u64 {
        tally.served += 1;
    } else {
        conflux_userlib::println!(
            "request COSY: {sent} of the answer's {} bytes went out; the connection is closed",
            RESPONSE.len()
        );
    }
    Ok(())
}
