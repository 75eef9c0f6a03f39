//! A network-server client that dies with sockets open and is restarted.
//!
//! The first instance connects, listens on port 7001, binds a UDP socket
//! to port 7002, starts a non-blocking connect to the gateway (a socket
//! with a handshake under way), and faults on purpose. init restarts it
//! (`restart = "on-fault"`); the new instance — it knows it is one from a
//! mark in a region of its own, which outlives the task — connects with
//! the same badge, which ends the old session in the server: every socket
//! of the dead instance is closed, so both ports can be bound again, and
//! the handles the old instance had name nothing. The other clients of
//! the server (the echo task, serving the runner) are served throughout.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_net_client::{Error, Net, NetError, SockAddr, SockKind, Socket};
use conflux_userlib::ipc::Region;
use conflux_userlib::println;
use conflux_userlib::testing::{fault_on_purpose, Checks};

conflux_userlib::entry!(main);

const TCP_PORT: u16 = 7001;
const UDP_PORT: u16 = 7002;
/// Written into the mark region by the first instance.
const MARK: u64 = 0x6e65_745f_6372_6173;

fn main() {
    let mark = Region(config::caps::MARK).premapped(config::caps::MARK_ADDR, 4096);
    let restarted = mark.read_u64(0) == Ok(MARK);
    let mut c = Checks::new();
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish();
        }
    };
    if restarted {
        after_restart(&mut net, c);
    }
    let held = hold_sockets(&mut net);
    c.that("sockets open before the fault", held.is_ok(), held);
    let _ = mark.write_u64(0, MARK);
    println!(
        "holding a listener on port {TCP_PORT}, a UDP socket on port {UDP_PORT} and a connect in progress; faulting on purpose"
    );
    fault_on_purpose();
}

/// A listener, a bound UDP socket and a connect under way; the listener.
fn hold_sockets(net: &mut Net) -> Result<Socket, Error> {
    let l = net.socket(SockKind::Stream)?;
    net.bind(l, SockAddr::new([0; 4], TCP_PORT))?;
    net.listen(l, 4)?;
    let u = net.socket(SockKind::Datagram)?;
    net.bind(u, SockAddr::new([0; 4], UDP_PORT))?;
    let s = net.socket(SockKind::Stream)?;
    net.set_nonblocking(s, true)?;
    match net.connect_to(s, SockAddr::new([10, 0, 2, 2], 9)) {
        Ok(()) | Err(Error::Net(NetError::InProgress)) => Ok(l),
        Err(e) => Err(e),
    }
}

/// The restarted instance: the old session's sockets are gone.
fn after_restart(net: &mut Net, mut c: Checks) -> ! {
    println!("restarted: connected again with the same badge");
    c.eq(
        "the old instance's first handle names nothing",
        net.close(Socket(1)).map_err(|e| e.net()),
        Err(Some(NetError::BadSocket)),
    );
    let l = net.socket(SockKind::Stream).and_then(|l| {
        net.bind(l, SockAddr::new([0; 4], TCP_PORT))?;
        net.listen(l, 4)
    });
    c.eq(
        "port 7001 can be listened on again (the old listener was closed)",
        l,
        Ok(()),
    );
    let u = net
        .socket(SockKind::Datagram)
        .and_then(|u| net.bind(u, SockAddr::new([0; 4], UDP_PORT)));
    c.eq(
        "port 7002 can be bound again (the old UDP socket was closed)",
        u,
        Ok(()),
    );
    c.finish();
}
