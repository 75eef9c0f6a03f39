//! A client that takes everything its quotas allow and exits, over and
//! over: restarted by init (`restart = "always"`), each instance is one
//! round.
//!
//! An instance reads its round from a region of its own (regions outlive
//! the task), tells the observer it is there (`ready`) and waits for its
//! go-ahead (`go`): before giving it, the observer checks that the
//! previous instance's sockets and open files are gone from the servers'
//! counts — given back because init told the servers the client was gone
//! when it exited, since this instance has not connected yet. Then the
//! instance connects to both servers, takes its quota of sockets (three
//! UDP sockets and a listener, on the same ports every round, so a port
//! the previous instance kept would be refused with `AddressInUse`) and
//! of open files, checks that one more of each is refused, counts the
//! round and exits. After the last round it says so, lets the observer
//! check the last departure, and waits for ever.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_fs_client::{Error as FsErr, Fs};
use conflux_fs_protocol::{ops, FsError};
use conflux_net_client::{Error as NetErr, Net, NetError, SockAddr, SockKind};
use conflux_userlib::ipc::{Notification, Region};
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Departures the test makes.
const ROUNDS: u64 = 1000;
/// The quotas the manifest gives this client (sockets; open files).
const SOCKETS: u16 = 4;
const FILES: usize = 4;
/// Its sockets' ports: three UDP sockets and a listener.
const FIRST_PORT: u16 = 7100;

fn main() {
    let state = Region(config::caps::STATE).premapped(config::caps::STATE_ADDR, 4096);
    let round = state.read_u64(0).unwrap_or(0);
    if round >= ROUNDS {
        println!("all {ROUNDS} rounds done; waiting for ever");
    }
    let _ = Notification(config::caps::READY).signal();
    // After the last round the observer gives no go-ahead.
    let _ = Notification(config::caps::GO).wait();
    if let Err(what) = take_everything() {
        // The observer sees the round not counted and says so.
        println!("CHECK FAILED: round {round}: {what}");
        loop {
            let _ = Notification(config::caps::GO).wait();
        }
    }
    let _ = state.write_u64(0, round + 1);
    if round < 3 {
        println!("round {round}: holding {SOCKETS} sockets and {FILES} open files; exiting");
    }
    conflux_userlib::sys::exit(0);
}

/// Connects to both servers and takes the quota of each; the sessions
/// stay open when the task exits.
fn take_everything() -> Result<(), &'static str> {
    let mut net = Net::connect(conflux_net_client::manifest_caps!())
        .map_err(|_| "connect to the network server")?;
    for i in 0..SOCKETS - 1 {
        let s = net.socket(SockKind::Datagram).map_err(|_| "a UDP socket")?;
        net.bind(s, SockAddr::new([0; 4], FIRST_PORT + i))
            .map_err(|_| "bind a UDP socket to its port (still held?)")?;
    }
    let l = net
        .socket(SockKind::Stream)
        .map_err(|_| "a stream socket")?;
    net.bind(l, SockAddr::new([0; 4], FIRST_PORT + SOCKETS - 1))
        .and_then(|()| net.listen(l, 1))
        .map_err(|_| "listen on its port (still held?)")?;
    match net.socket(SockKind::Datagram) {
        Err(NetErr::Net(NetError::QuotaExceeded)) => {}
        _ => return Err("one socket past the quota is refused with QuotaExceeded"),
    }
    let mut fs = Fs::connect(conflux_fs_client::manifest_caps!())
        .map_err(|_| "connect to the file server")?;
    for _ in 0..FILES {
        fs.open("/README", ops::O_RDONLY, 0)
            .map_err(|_| "open /README")?;
    }
    match fs.open("/README", ops::O_RDONLY, 0) {
        Err(FsErr::Fs(FsError::TooManyOpen)) => Ok(()),
        _ => Err("one file past the quota is refused with TooManyOpen"),
    }
}
