//! Network-server client test, beside the echo task: every malformed or
//! misdirected request gets its own error, and the server's parking and
//! timer work (a non-blocking `accept` gets `WouldBlock`; a `wait` with a
//! timeout is parked and answered 0 when its deadline passes), a session
//! holds `MAX_PREPARED` compounds and refuses one more, a compound runs
//! to `MAX_OPS` ops and `MAX_STEPS` steps and no further (`limits`), and
//! memory cannot be pulled from under it (a shared region is refused; after this
//! client revokes the server's copy of its lent control region, a parked
//! wait still reads its entries there and writes its answer back).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_net_client::{Error, Events, Net, NetError, PollEntry, SockAddr, SockKind, Socket};
use conflux_socket_protocol::ops;
use conflux_userlib::ipc::{Endpoint, Message, Slot};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const VAN_BASE: u32 = ops::VAN_BASE;

/// The status a per-call reply carries for `e`.
fn status(e: NetError) -> u32 {
    u32::from(cosy_abi::CallError::from(e).code())
}

/// Sends `msg` on the server's endpoint as it is; the reply's label.
fn raw(msg: &Message) -> u32 {
    Endpoint(config::caps::NET)
        .call(msg)
        .map_or(u32::MAX, |r| r.label)
}

fn err<T>(r: Result<T, Error>) -> Option<NetError> {
    r.err().and_then(Error::net)
}

mod limits;

fn main() {
    let mut c = Checks::new();
    let socket = Message::new(VAN_BASE + u32::from(ops::SOCKET), &[1]);
    c.eq(
        "a call before CONNECT",
        raw(&socket),
        status(NetError::NoSession),
    );
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish();
        }
    };
    sockets(&mut net, &mut c);
    requests(&mut c);
    parking(&mut net, &mut c);
    limits::prepared(&mut net, &mut c);
    limits::compound(&mut net, &mut c);
    lending(&mut net, &mut c);
    let _ = net.detach();
    c.eq(
        "a call after DETACH",
        raw(&socket),
        status(NetError::NoSession),
    );
    rejoin(&mut c);
    c.finish();
}

/// Socket operations' errors.
fn sockets(net: &mut Net, c: &mut Checks) {
    let s = net.socket(SockKind::Stream);
    c.eq("the first socket is handle 0", s, Ok(Socket(0)));
    let s = Socket(0);
    let kind = net.call(ops::SOCKET, &[conflux_net_client::Operand::Value(9)]);
    c.eq(
        "socket of kind 9",
        err(kind),
        Some(NetError::ProtocolNotSupported),
    );
    let here = SockAddr::new([0; 4], 8000);
    c.eq("bind to port 8000", net.bind(s, here), Ok(()));
    let t = net.socket(SockKind::Stream).unwrap_or(Socket(1));
    c.eq(
        "bind a second socket to port 8000",
        err(net.bind(t, here)),
        Some(NetError::AddressInUse),
    );
    let far = SockAddr::new([10, 9, 9, 9], 80);
    c.eq(
        "bind to an address not the interface's",
        err(net.bind(t, far)),
        Some(NetError::AddressNotAvailable),
    );
    c.eq(
        "listen with backlog 0",
        err(net.listen(s, 0)),
        Some(NetError::Invalid),
    );
    c.eq(
        "listen with a backlog past MAX_BACKLOG",
        err(net.listen(s, conflux_socket_protocol::ops::MAX_BACKLOG + 1)),
        Some(NetError::Invalid),
    );
    c.eq("listen with backlog 2", net.listen(s, 2), Ok(()));
    c.eq("set_nonblocking", net.set_nonblocking(s, true), Ok(()));
    c.eq(
        "a non-blocking accept with no connection",
        err(net.accept(s)),
        Some(NetError::WouldBlock),
    );
    c.eq("close handle 1", net.close(t), Ok(()));
    // The echo task holds handles 0 and up in its own table; here they
    // name nothing.
    c.eq(
        "handle 1, open in the echo task's table only",
        err(net.close(Socket(1))),
        Some(NetError::BadSocket),
    );
    c.eq(
        "a handle past 32 bits",
        err(net.close(Socket(1 << 40))),
        Some(NetError::BadSocket),
    );
    c.eq(
        "run_prepared with a bad handle",
        err(net.run_prepared(7, &[])),
        Some(NetError::BadPrepared),
    );
    c.eq(
        "release a bad handle",
        err(net.release(0)),
        Some(NetError::BadPrepared),
    );
}

/// Malformed requests.
fn requests(c: &mut Checks) {
    let close = VAN_BASE + u32::from(ops::CLOSE);
    let long = Message::new(close, &[0, 0, 0]);
    c.eq(
        "close with three words",
        raw(&long),
        status(NetError::TooManyWords),
    );
    let short = Message::new(VAN_BASE + u32::from(ops::BIND), &[0]);
    c.eq("bind with one word", raw(&short), status(NetError::Invalid));
    let unknown = Message::new(VAN_BASE + 999, &[]);
    c.eq("op 999", raw(&unknown), status(NetError::NoSuchOp));
    let label = Message::new(0x42, &[]);
    c.eq("label 0x42", raw(&label), status(NetError::NoSuchOp));
    let attach = Message::new(conflux_net_client::ipc::ATTACH, &[]);
    c.eq(
        "ATTACH without a region",
        raw(&attach),
        status(NetError::MissingCap),
    );
}

/// Parked requests: a wait that times out.
fn parking(net: &mut Net, c: &mut Checks) {
    let mut entry = [PollEntry {
        handle: 0,
        events: Events::READABLE,
        revents: Events::NONE,
    }];
    let got = net.wait(&mut entry, 50);
    c.eq(
        "a 50 ms wait with nothing ready, answered at its deadline",
        got,
        Ok(0),
    );
    c.eq("its entry's revents", entry[0].revents, Events::NONE);
}

/// A region shared instead of lent is refused; one revoked after it was
/// lent stays mapped in the server, which keeps using it.
fn lending(net: &mut Net, c: &mut Checks) {
    let shared =
        Message::new(conflux_net_client::ipc::ATTACH, &[]).with_cap(config::caps::NET_CONTROL);
    c.eq(
        "ATTACH of a region shared, not lent",
        raw(&shared),
        status(NetError::NotLent),
    );
    c.eq(
        "revoke the server's copy of the control region",
        Slot(config::caps::NET_CONTROL).revoke().map(|n| n > 0),
        Ok(true),
    );
    let mut entry = [PollEntry {
        handle: 0,
        events: Events::READABLE,
        revents: Events::NONE,
    }];
    c.eq(
        "a parked wait over the revoked control region, answered at its deadline",
        net.wait(&mut entry, 20),
        Ok(0),
    );
}

/// Connects with the waiter task's badge (as the waiter would after a
/// restart): the server ends the waiter's session, cancelling its parked
/// `accept`, and starts a new one for this badge.
fn rejoin(c: &mut Checks) {
    let caps = conflux_net_client::Caps {
        endpoint: config::caps::NET_AS_WAITER,
        control: config::caps::REJOIN_CONTROL,
        control_addr: config::caps::REJOIN_CONTROL_ADDR,
    };
    let net = Net::connect(caps);
    c.that(
        "connect with the waiter's badge",
        net.is_ok(),
        net.as_ref().err(),
    );
    if let Ok(mut net) = net {
        // The new session has none of the old one's sockets.
        let old = net.close(Socket(0));
        c.eq(
            "the old session's listener",
            err(old),
            Some(NetError::BadSocket),
        );
        let _ = net.detach();
    }
}
