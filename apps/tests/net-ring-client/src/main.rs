//! A well-behaved client of the network server's rings (tests net-ring
//! and net-ring-2cpu). Through its submission ring: NOPs in batches; a
//! UDP socket's `recvfrom` with nothing to read, which the server parks
//! (a NOP submitted after it is answered first) and answers when the
//! host's datagrams come; 32 `wait`s on an idle socket parked at once —
//! the 33rd entry refused with `Full` — all answered at their deadline;
//! a compound whose `recvfrom` would wait, which fails with `WouldBlock`
//! instead (compounds never park); a listener whose parked `accept` is
//! answered when the host connects, and that connection echoed by ring
//! `recv` and `send` until the host closes. Beside the ring, a call by
//! IPC. Then it waits until the hostile client is done and checks it is
//! still served.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;

use conflux_net_client::{Error, Events, Net, NetError, Operand, PollEntry, Reaped, SockAddr};
use conflux_socket_protocol::ops;
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::Checks;
use conflux_userlib::{println, sys};
use cosy_abi::ring::{RingError, DEPTH};
use cosy_abi::typed::{op_values, OpValue};
use cosy_abi::{code, Builder, Compound};

conflux_userlib::entry!(main);

/// NOPs pushed through the ring, in batches of the depth.
const NOPS: u32 = 1000;
/// The TCP echo port (forwarded from the host) and the UDP port the
/// host's datagrams come to.
const ECHO_PORT: u16 = 7;
const UDP_PORT: u16 = 9;
/// Datagrams the host sends, and their size.
const DATAGRAMS: u64 = 4;
const DATAGRAM: u64 = 512;
/// Where buffers sit in the control region: received bytes, a sender's
/// address, the poll list of the parked waits.
const BUF: u32 = 0;
const ROOM: u32 = 2048;
const FROM: u32 = 4096;
const POLL: u32 = 8192;
/// How long each parked wait waits.
const WAIT_MS: u64 = 100;
/// Looks at the server's counts while the hostile client's end is on its
/// way (the supervisor tells the server after the task exits).
const GONE_TRIES: u32 = 1000;

fn buf(offset: u32, len: u32) -> Operand {
    Operand::Buf {
        region: 0,
        offset,
        len,
    }
}

use Operand::Value;

/// Submits one operation and waits for its answer (nothing else is in
/// flight): (status, value).
fn one(net: &mut Net, op: u16, operands: &[Operand]) -> Result<(u16, u64), Error> {
    let t = net.ring_submit(op, operands)?;
    net.ring_flush()?;
    let r = net.ring_wait()?;
    if r.ticket != t {
        println!("CHECK FAILED: answer for {:?}, expected {t:?}", r.ticket);
    }
    Ok((r.completion.status, r.completion.value))
}

/// One operation that must succeed: its value.
fn ok(net: &mut Net, op: u16, operands: &[Operand]) -> Result<u64, Error> {
    match one(net, op, operands)? {
        (code::OK, v) => Ok(v),
        (status, _) => Err(Error::from_status(u32::from(status), 0)),
    }
}

/// NOPs in batches of the depth: every answer OK, each ticket once.
fn nops(net: &mut Net, count: u32) -> Result<u32, Error> {
    let mut done = 0;
    let mut left = count;
    while left > 0 {
        let batch = left.min(DEPTH);
        let mut tickets = Vec::new();
        for _ in 0..batch {
            tickets.push(net.ring_submit(ops::NOP, &[])?);
        }
        net.ring_flush()?;
        for _ in 0..batch {
            let r = net.ring_wait()?;
            if r.completion.is_ok() && tickets.contains(&r.ticket) {
                tickets.retain(|t| *t != r.ticket);
                done += 1;
            }
        }
        left -= batch;
    }
    Ok(done)
}

/// A socket of `kind` bound to `port`, through the ring.
fn bound(net: &mut Net, kind: u64, port: u16) -> Result<u64, Error> {
    let s = ok(net, ops::SOCKET, &[Value(kind)])?;
    let addr = SockAddr::new([0; 4], port).to_word();
    ok(net, ops::BIND, &[Value(s), Value(addr)])?;
    Ok(s)
}

/// A `recvfrom` parked until the host's datagrams come.
fn parked_recv(net: &mut Net, c: &mut Checks) -> Result<(), Error> {
    let udp = bound(net, 2, UDP_PORT)?;
    let recv = net.ring_submit(
        ops::RECVFROM,
        &[
            Value(udp),
            buf(BUF, ROOM),
            Value(u64::from(ROOM)),
            buf(FROM, SockAddr::SIZE as u32),
        ],
    )?;
    let nop = net.ring_submit(ops::NOP, &[])?;
    net.ring_flush()?;
    let first = net.ring_wait()?;
    c.eq(
        "a recvfrom with nothing to read is parked: the NOP after it is answered first",
        first.ticket,
        nop,
    );
    println!("ready: udp port {UDP_PORT}");
    let got = net.ring_wait()?;
    c.eq(
        "the parked recvfrom is answered when the host's datagram comes",
        (got.ticket, got.completion.status, got.completion.value),
        (recv, code::OK, DATAGRAM),
    );
    // The rest of the datagrams, one ring entry each.
    let mut more = 0;
    for _ in 1..DATAGRAMS {
        let (status, n) = one(
            net,
            ops::RECVFROM,
            &[
                Value(udp),
                buf(BUF, ROOM),
                Value(u64::from(ROOM)),
                buf(FROM, SockAddr::SIZE as u32),
            ],
        )?;
        more += u64::from(status == code::OK && n == DATAGRAM);
    }
    c.eq("and the other datagrams by ring", more, DATAGRAMS - 1);
    ok(net, ops::CLOSE, &[Value(udp)])?;
    Ok(())
}

/// 32 waits parked at once on an idle socket: the 33rd entry is refused,
/// and all 32 are answered (0 sockets ready) at their deadline.
fn parked_depth(net: &mut Net, c: &mut Checks) -> Result<(), Error> {
    let idle = bound(net, 2, UDP_PORT + 1)?;
    let entry = PollEntry {
        handle: idle as u32,
        events: Events::READABLE,
        revents: Events(0),
    };
    entry.encode(&mut net.control()[POLL as usize..]);
    let list = buf(POLL, PollEntry::SIZE as u32);
    let mut tickets = Vec::new();
    for _ in 0..DEPTH {
        tickets.push(net.ring_submit(ops::WAIT, &[list, Value(1), Value(WAIT_MS)])?);
    }
    let past = net.ring_submit(ops::NOP, &[]);
    net.ring_flush()?;
    c.eq(
        "the 33rd entry in flight (32 waits parked) is refused: Full",
        past.err(),
        Some(Error::Ring(RingError::Full { depth: DEPTH })),
    );
    let mut answered = 0;
    for _ in 0..DEPTH {
        let r = net.ring_wait()?;
        if r.completion.is_ok() && r.completion.value == 0 && tickets.contains(&r.ticket) {
            tickets.retain(|t| *t != r.ticket);
            answered += 1;
        }
    }
    c.eq(
        "32 parked waits, each answered once at its deadline: 0 ready",
        answered,
        DEPTH,
    );
    // A compound never parks: its recvfrom fails with WouldBlock.
    let mut b = Builder::new();
    let n = b.reg();
    let into = b.buf(0, BUF, ROOM);
    let from = b.buf(0, FROM, SockAddr::SIZE as u32);
    b.call(n, ops::RECVFROM, (idle, into, u64::from(ROOM), from));
    b.exit(n);
    let compound = b.build().unwrap_or_default();
    net.ring_submit_compound(&compound, &[])?;
    net.ring_flush()?;
    let r = net.ring_wait()?;
    let would_block = net
        .ring_entry(&r)
        .map(|bytes| {
            op_values::<NetError>(bytes).next().is_some_and(
                |v| matches!(v, OpValue::Err(f) if f.service() == Some(NetError::WouldBlock)),
            )
        })
        .unwrap_or(false);
    c.that(
        "a compound entry whose recvfrom would wait is not parked: WouldBlock in its results",
        r.completion.is_ok() && would_block,
        r.completion,
    );
    ok(net, ops::CLOSE, &[Value(idle)])?;
    Ok(())
}

/// A listener's parked accept, answered when the host connects; the
/// connection echoed by ring until the host closes. The bytes echoed.
fn echo(net: &mut Net, c: &mut Checks) -> Result<u64, Error> {
    let listener = bound(net, 1, ECHO_PORT)?;
    ok(net, ops::LISTEN, &[Value(listener), Value(2)])?;
    let accept = net.ring_submit(ops::ACCEPT, &[Value(listener)])?;
    net.ring_flush()?;
    println!("ring echo ready");
    let got = net.ring_wait()?;
    c.eq(
        "the parked accept is answered when the host connects",
        (got.ticket, got.completion.status),
        (accept, code::OK),
    );
    let conn = got.completion.value;
    let mut total = 0;
    loop {
        let n = ok(
            net,
            ops::RECV,
            &[Value(conn), buf(BUF, ROOM), Value(u64::from(ROOM))],
        )?;
        if n == 0 {
            break;
        }
        let mut sent = 0;
        while sent < n {
            sent += ok(
                net,
                ops::SEND,
                &[
                    Value(conn),
                    buf(BUF + sent as u32, (n - sent) as u32),
                    Value(n - sent),
                ],
            )?;
        }
        total += n;
    }
    ok(net, ops::CLOSE, &[Value(conn)])?;
    ok(net, ops::CLOSE, &[Value(listener)])?;
    Ok(total)
}

fn compound_entry(net: &mut Net, c: &mut Checks) -> Result<(), Error> {
    let mut b = Builder::new();
    let x = b.reg();
    b.call_void(ops::NOP, ());
    b.add(x, x, 5u64);
    b.exit(x);
    let compound = b.build().unwrap_or_default();
    net.ring_submit_compound(&compound, &[37])?;
    net.ring_flush()?;
    let r: Reaped = net.ring_wait()?;
    c.eq(
        "a compound through the ring: its exit value",
        (r.completion.status, r.completion.value),
        (code::OK, 42),
    );
    let clean = net.ring_entry(&r).and_then(|bytes| {
        Compound::new_checked(bytes)
            .ok()
            .map(|v| v.report().is_clean())
    });
    c.eq("its results area says clean", clean, Some(true));
    Ok(())
}

fn run(net: &mut Net, c: &mut Checks) -> Result<(), Error> {
    net.ring_open(config::caps::RING, config::caps::RING_ADDR)?;
    c.that("the ring region is attached and named", true, ());
    c.eq("1000 NOPs through the ring", nops(net, NOPS), Ok(NOPS));
    compound_entry(net, c)?;
    c.eq(
        "and a NOP by IPC beside the ring",
        net.call(ops::NOP, &[]),
        Ok(0),
    );
    parked_recv(net, c)?;
    parked_depth(net, c)?;
    let echoed = echo(net, c)?;
    c.that(
        "the host's connection echoed through the ring",
        echoed > 0,
        echoed,
    );
    c.eq(
        "waiting with nothing in flight is an error, not a hang",
        net.ring_wait().err(),
        Some(Error::NothingInFlight),
    );
    // The hostile client says when it is done.
    let _ = Notification(config::caps::DONE).wait();
    c.eq(
        "still served through the ring after the hostile client",
        nops(net, 100),
        Ok(100),
    );
    c.eq("and by IPC", net.call(ops::NOP, &[]), Ok(0));
    // The hostile client ended with ring entries parked: once the
    // supervisor has said so, its socket is gone (this client holds none).
    let mut counts = None;
    for _ in 0..GONE_TRIES {
        let now = net.info()?.counts;
        counts = Some(now);
        if now.datagrams == 0 && now.clients == 0 {
            break;
        }
        sys::yield_now();
    }
    c.that(
        "the hostile client's session ended with its parked entries: its socket is gone",
        counts.is_some_and(|n| n.datagrams == 0 && n.clients == 0),
        counts,
    );
    Ok(())
}

fn main() {
    let mut c = Checks::new();
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish()
        }
    };
    if let Err(e) = run(&mut net, &mut c) {
        c.that("the ring path", false, e);
    }
    c.finish()
}
