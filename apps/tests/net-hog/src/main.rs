//! Net hog: an attacker's client of the network server, on a server whose
//! heap (8 MiB) holds far fewer stream buffers than one `listen(64)` asks
//! for. It opens listeners with small backlogs, then one with the largest
//! backlog, then sockets until refused: every stack socket it causes must
//! count against its quota, the refusal must be `QuotaExceeded` (not a
//! crash of the server, not `NoBuffers` for everyone), and a badge it
//! mints from an unbadged capability must get no session of its own
//! (`UnknownClient`), so it cannot multiply its quota. Then it tells the
//! bystander, which checks that it is still served.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::cap::rights::{GRANT, WRITE};
use conflux_net_client::{Caps, Error, Net, NetError, SockAddr, SockKind, Socket};
use conflux_socket_protocol::ops::MAX_BACKLOG;
use conflux_userlib::ipc::{Notification, Slot};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Small listeners opened before the large one.
const SMALL_LISTENERS: u16 = 4;
const SMALL_BACKLOG: u64 = 4;
/// The badge minted from the unbadged capability: one the manifest does
/// not give.
const MINTED_BADGE: u64 = 0x99;

fn err<T>(r: Result<T, Error>) -> Option<NetError> {
    r.err().and_then(Error::net)
}

/// A stream bound to `port`, listening with `backlog`.
fn listen(net: &mut Net, port: u16, backlog: u64) -> Result<Socket, Error> {
    let s = net.socket(SockKind::Stream)?;
    net.bind(s, SockAddr::new([0; 4], port))?;
    net.listen(s, backlog)?;
    Ok(s)
}

fn main() {
    let mut c = Checks::new();
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish();
        }
    };
    for i in 0..SMALL_LISTENERS {
        let l = listen(&mut net, 7000 + i, SMALL_BACKLOG);
        c.that("a listener with backlog 4", l.is_ok(), l);
    }
    let big = listen(&mut net, 7100, MAX_BACKLOG);
    c.that(
        "listen(64) with an 8 MiB server heap is taken, its pool clamped to the quota",
        big.is_ok(),
        big,
    );
    let mut opened = 0;
    let refusal = loop {
        match net.socket(SockKind::Stream) {
            Ok(_) => opened += 1,
            Err(e) => break e.net(),
        }
        if opened > 1000 {
            break None;
        }
    };
    println!("opened {opened} more streams after the listeners, then: {refusal:?}");
    c.eq(
        "a stream past the quota",
        refusal,
        Some(NetError::QuotaExceeded),
    );
    c.eq(
        "a datagram socket past the quota",
        err(net.socket(SockKind::Datagram)),
        Some(NetError::QuotaExceeded),
    );
    if let Ok(info) = net.info() {
        let n = info.counts;
        println!(
            "the server holds {} of its {} sockets",
            n.stack_sockets, n.stack_limit
        );
    }
    c.eq(
        "a session under a badge minted outside the manifest",
        sybil(),
        Some(NetError::UnknownClient),
    );
    // The bystander goes on while this task's sockets stay held: the
    // server hears of no client's exit.
    let told = Notification(config::caps::HOGGING).signal();
    c.that("told the bystander", told.is_ok(), told);
    c.finish();
}

/// Mints a new badge from the unbadged capability and connects with it.
fn sybil() -> Option<NetError> {
    let minted = config::caps::FIRST_FREE;
    if let Err(e) = Slot(config::caps::NET_RAW).mint(minted, WRITE | GRANT, MINTED_BADGE) {
        println!("CHECK FAILED: minting badge {MINTED_BADGE:#x}: {e}");
        return None;
    }
    err(Net::connect(Caps {
        endpoint: minted,
        control: config::caps::SYBIL_CONTROL,
        control_addr: config::caps::SYBIL_CONTROL_ADDR,
    }))
}
