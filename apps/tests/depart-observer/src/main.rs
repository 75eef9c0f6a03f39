//! The observer of a thousand departures: another client of the same two
//! servers, holding its own quota of sockets and open files throughout.
//!
//! First it checks that it cannot pose as the supervisor: a
//! `CLIENT_GONE` through its own capabilities is refused with
//! `NotSupervisor` by both servers. Then it takes its quota and notes the
//! servers' counts (`net_info`'s socket counts, `statfs`'s open handles)
//! as the baseline. Each time the departer's next instance says it is
//! there (before it connects), the previous instance has exited, and the
//! counts must be back at the baseline: what it held was given back when
//! init told the servers it was gone, not when a new session began. Then
//! the observer closes and reopens one socket (same port) and one file,
//! which must never be refused, and lets the departer go on.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::CLIENT_GONE_LABEL;
use conflux_fs_client::Fs;
use conflux_fs_protocol::{ops, FsError};
use conflux_net_client::{Net, NetError, SockAddr, SockKind, Socket, SocketCounts};
use conflux_userlib::ipc::{Endpoint, Message, Notification, Region};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Departures the test makes (the departer's `ROUNDS`).
const ROUNDS: u64 = 1000;
/// This client's quotas (sockets; open files), as the manifest gives them.
const SOCKETS: u16 = 4;
const FILES: usize = 4;
const FIRST_PORT: u16 = 7200;
/// The departer's badges, to name in a forged `CLIENT_GONE`.
const DEPARTER_BADGE: u64 = 0x21;
/// A per-call failure's reply label: the service range bit and the code.
const SERVICE: u32 = 0x8000;

/// What the servers count: sockets by kind and state, open handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    sockets: SocketCounts,
    open_handles: u32,
}

fn main() {
    let mut c = Checks::new();
    let state = Region(config::caps::STATE).premapped(config::caps::STATE_ADDR, 4096);
    let mut net = Net::connect(conflux_net_client::manifest_caps!()).unwrap_or_else(|e| {
        println!("CHECK FAILED: connect to the network server: {e}");
        conflux_userlib::sys::exit(1)
    });
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    forged(&mut c);
    let mut sockets = [Socket(0); SOCKETS as usize];
    for (i, s) in sockets.iter_mut().enumerate() {
        match bound(&mut net, i as u16) {
            Ok(b) => *s = b,
            Err(e) => {
                c.that("take its quota of sockets", false, e);
                c.finish();
            }
        }
    }
    let mut files = [conflux_fs_client::Fd(0); FILES];
    for f in files.iter_mut() {
        match fs.open("/README", ops::O_RDONLY, 0) {
            Ok(fd) => *f = fd,
            Err(e) => {
                c.that("take its quota of open files", false, e);
                c.finish();
            }
        }
    }
    let baseline = match counts(&mut net, &mut fs) {
        Some(b) => b,
        None => {
            c.that("read the servers' counts", false, ());
            c.finish();
        }
    };
    c.eq(
        "the baseline: this client's sockets and files only",
        (
            baseline.sockets.clients,
            baseline.sockets.datagrams,
            baseline.open_handles,
        ),
        (1, SOCKETS, FILES as u32),
    );
    let (mut off, mut refused) = (0u64, 0u64);
    let ready = Notification(config::caps::READY);
    let go = Notification(config::caps::GO);
    loop {
        let _ = ready.wait();
        let round = state.read_u64(0).unwrap_or(0);
        if round > 0 {
            let now = counts(&mut net, &mut fs);
            if now != Some(baseline) {
                off += 1;
                if off == 1 {
                    println!(
                        "after departure {round}: counts {now:?}, baseline {baseline:?} (first difference)"
                    );
                }
            }
        }
        let i = (round % u64::from(SOCKETS)) as usize;
        if !again(
            &mut net,
            &mut fs,
            &mut sockets[i],
            &mut files[i % FILES],
            i as u16,
        ) {
            refused += 1;
        }
        if round > 0 && round.is_multiple_of(100) {
            println!("{round} departures: counts differed after {off}, refused {refused} times");
        }
        if round == ROUNDS {
            break;
        }
        let _ = go.signal();
    }
    c.eq(
        "after every one of 1000 departures, the counts were back at the baseline",
        off,
        0,
    );
    c.eq(
        "the other client was never refused a socket or a file",
        refused,
        0,
    );
    c.finish();
}

/// A UDP socket bound to this client's `i`-th port.
fn bound(net: &mut Net, i: u16) -> Result<Socket, conflux_net_client::Error> {
    let s = net.socket(SockKind::Datagram)?;
    net.bind(s, SockAddr::new([0; 4], FIRST_PORT + i))?;
    Ok(s)
}

/// Closes and opens again socket `i` (same port) and one file: false if
/// either was refused.
fn again(
    net: &mut Net,
    fs: &mut Fs,
    socket: &mut Socket,
    file: &mut conflux_fs_client::Fd,
    i: u16,
) -> bool {
    let s = net.close(*socket).and_then(|()| bound(net, i));
    let f = fs
        .close(*file)
        .and_then(|()| fs.open("/README", ops::O_RDONLY, 0));
    match (s, f) {
        (Ok(s), Ok(f)) => {
            *socket = s;
            *file = f;
            true
        }
        (s, f) => {
            println!("refused: socket {:?}, file {:?}", s.err(), f.err());
            false
        }
    }
}

fn counts(net: &mut Net, fs: &mut Fs) -> Option<Counts> {
    Some(Counts {
        sockets: net.info().ok()?.counts,
        open_handles: fs.statfs().ok()?.open_handles,
    })
}

/// Only the supervisor may say a client is gone: both servers refuse this
/// client's `CLIENT_GONE` for the departer's badge.
fn forged(c: &mut Checks) {
    let msg = Message::new(CLIENT_GONE_LABEL, &[DEPARTER_BADGE]);
    let label = |slot| Endpoint(slot).call(&msg).map(|r| r.label);
    c.eq(
        "the network server refuses CLIENT_GONE from a client",
        label(config::caps::NET),
        Ok(SERVICE | u32::from(NetError::NotSupervisor.code())),
    );
    c.eq(
        "the file server refuses CLIENT_GONE from a client",
        label(config::caps::FS),
        Ok(SERVICE | u32::from(FsError::NotSupervisor.code())),
    );
}
