//! httpd: the disk's files over HTTP/1.1, on port 80 of the network
//! server, for `curl` on the host through QEMU's forwarded port.
//!
//! One task, one event loop, up to `MAX_CONNS` connections: it waits on
//! the listener and every connection at once (the network server's
//! `wait`), with the nearest deadline as its timeout, so one slow client
//! never holds the others up. Requests are parsed and checked by
//! `conflux-http` (`Conn`: limits, 408 for a head that takes more than 3
//! seconds, 400/405/431 with a page that says why); answers go out
//! non-blocking ([`out`]) and are cut when the peer stops taking them or
//! takes them too slowly ([`client`]); when full, a new connection evicts
//! the one quiet longest or is answered 503 ([`admit`]). File bodies move
//! from the file server to the network server through a region httpd
//! shares with both, without entering httpd's memory. The disk is only
//! read. Answers carry `Date` and `Last-Modified`, honour `Range` (one
//! range: 206; several: the whole file) and `If-Modified-Since` (304)
//! ([`answer`]); the counters are on the status page at `/?status`.
//!
//! Socket operations go through [`sockio::SocketIo`]: one IPC each, or,
//! when the manifest gives httpd a `net_ring` region, entries on its
//! session's rings with a round's receives posted as one batch and its
//! sends as another ([`ring_io`]).
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod admit;
mod answer;
mod client;
mod clock;
mod notes;
mod out;
mod restart;
#[cfg_attr(not(net_ring), allow(dead_code))]
mod ring_io;
mod sockio;
mod tally;

use alloc::boxed::Box;
use alloc::vec::Vec;

use conflux_fs_client::Fs;
use conflux_http::backoff;
use conflux_http::stats::Counters;
use conflux_net_client::{Error as NetErr, Events, Net, PollEntry, SockAddr, SockKind, Socket};
use conflux_socket_protocol::ops::MAX_BACKLOG;
use conflux_userlib::println;

use client::{Client, End, Io};
use notes::Notes;
use out::Pages;
use sockio::{Read, SocketIo};

conflux_userlib::entry!(main);

/// The port httpd listens on in the guest.
const PORT: u16 = 80;
/// The longest httpd waits without looking at its deadlines.
const TICK_MS: u64 = 1000;

fn main() {
    let clock = clock::Clock::new(config::caps::CLOCK);
    let mut fs = Fs::connect(conflux_fs_client::manifest_caps!())
        .unwrap_or_else(|e| fail(&alloc::format!("cannot reach the file server: {e}")));
    let mut net = Net::connect(conflux_net_client::manifest_caps!())
        .unwrap_or_else(|e| fail(&alloc::format!("cannot reach the network server: {e}")));
    let pages = Pages {
        fs_region: fs
            .attach(config::caps::FS_PAGES, config::caps::FS_PAGES_ADDR)
            .unwrap_or_else(|e| {
                fail(&alloc::format!(
                    "cannot share the pages region with the file server: {e}"
                ))
            }),
        net_region: net
            .attach(config::caps::NET_PAGES, config::caps::NET_PAGES_ADDR)
            .unwrap_or_else(|e| {
                fail(&alloc::format!(
                    "cannot share the pages region with the network server: {e}"
                ))
            }),
    };
    let mut sockio = socket_io(&mut net);
    let mut listener = listen(&mut net)
        .unwrap_or_else(|e| fail(&alloc::format!("cannot listen on port {PORT}: {e}")));
    println!("serving http on port {PORT}");
    let mut clients: Vec<Client> = Vec::new();
    let mut entries: Vec<PollEntry> = Vec::new();
    let mut reads: Vec<Read> = Vec::new();
    let mut notes = Notes::new();
    let mut counters = Counters::new();
    let started = clock.now_ms();
    if clock.wall().is_none() {
        println!("the system has no wall clock: answers go without Date, and If-Modified-Since is judged by file dates alone");
    }
    let mut backoff = backoff::Backoff::new();
    let mut fs_waited = false;
    loop {
        if fs.lost() {
            recover_fs(&mut fs, &mut clients, &mut fs_waited);
        }
        let now = clock.now_ms();
        entries.clear();
        entries.push(entry(listener, Events::READABLE));
        for c in &clients {
            let want = if c.sending() {
                Events::WRITABLE
            } else {
                Events::READABLE
            };
            entries.push(entry(c.sock, want));
        }
        let timeout = clients
            .iter()
            .filter_map(|c| c.due)
            .min()
            .map_or(TICK_MS, |due| due.saturating_sub(now).clamp(1, TICK_MS));
        if let Err(e) = sockio.wait(&mut net, &mut entries, timeout) {
            if restart::note(&e) {
                listener = recover(&mut net, &mut *sockio, &mut fs, &mut clients);
            } else {
                // Never at once: a failure that lasts would spin the CPU
                // and flood the console (issue 26).
                let pause = backoff.failed();
                if pause.report {
                    println!(
                        "wait on {} sockets failed: {e}; trying again in {} ms, then less often (every {} ms at most) until it works",
                        entries.len(),
                        pause.ms,
                        backoff::MAX_MS
                    );
                }
                clock.sleep_ms(pause.ms);
            }
            continue;
        }
        if let Some(n) = backoff.succeeded() {
            println!("wait works again after {n} failures in a row");
        }
        let now = clock.now_ms();
        counters.connections_open = clients
            .iter()
            .filter(|c| c.slot.is_some() && c.end == End::Open)
            .count() as u64;
        // Connections first, each with the events `wait` saw for it, so
        // that admission judges how long each has been quiet after this
        // round's progress; new ones go at the end, served next round.
        reads.clear();
        reads.extend(clients.iter().enumerate().filter_map(|(i, c)| {
            c.read_ahead(entries.get(i + 1).map_or(Events::default(), |e| e.revents))
        }));
        sockio.prefetch(&mut net, &reads);
        let mut io = Io {
            net: &mut net,
            sockio: &mut *sockio,
            fs: &mut fs,
            pages,
            notes: &mut notes,
            counters: &mut counters,
            when: answer::When { wall: clock.wall() },
            uptime_ms: now - started,
        };
        for (i, c) in clients.iter_mut().enumerate() {
            if restart::seen() {
                break; // the rest went with the server
            }
            let revents = entries.get(i + 1).map_or(Events::default(), |e| e.revents);
            c.serve(revents, &mut io, now);
        }
        settle_sends(&mut clients, &mut io, now);
        if !entries[0].revents.is_empty() && !restart::seen() {
            admit::accept_all(
                &mut net,
                listener,
                &mut clients,
                &mut notes,
                &mut counters,
                now,
            );
        }
        if restart::take() {
            listener = recover(&mut net, &mut *sockio, &mut fs, &mut clients);
            continue;
        }
        clients.retain_mut(|c| {
            if c.end != End::Open {
                c.finish(&mut net, &mut fs);
            }
            c.end == End::Open
        });
        notes.flush(now);
    }
}

/// The round's batches of sends: each posts the sends that stopped a
/// connection (one doorbell at most) and reaps their answers, then those
/// connections go on, which may post their next sends (an answer's body
/// after its head, the rest of a short send) for the next batch, until
/// none is left. The IPC mode never posts, so it never loops.
fn settle_sends(clients: &mut [Client], io: &mut Io<'_>, now: u64) {
    loop {
        io.sockio.settle(io.net);
        if restart::seen() {
            return; // the rest went with the server
        }
        let mut resumed = false;
        for c in clients.iter_mut().filter(|c| c.posted()) {
            c.resume(io, now);
            resumed = true;
        }
        if !resumed {
            return;
        }
    }
}

/// After the network server restarted: every connection is gone with it
/// (their peers see a reset or a short answer), so their files go back
/// to the file server; httpd reconnects (sharing the same regions again,
/// so the pages keep their number) and listens again. Returns the new
/// listener.
fn recover(
    net: &mut Net,
    sockio: &mut dyn SocketIo,
    fs: &mut Fs,
    clients: &mut Vec<Client>,
) -> Socket {
    let lost = clients.len();
    for c in clients.iter_mut() {
        c.drop_file(fs);
    }
    clients.clear();
    let _ = restart::take();
    if let Err(e) = net.reconnect() {
        fail(&alloc::format!(
            "the network server restarted and httpd cannot reconnect: {e}"
        ));
    }
    if let Err(e) = sockio.reopen(net) {
        fail(&alloc::format!(
            "the network server restarted and httpd cannot open its rings again: {e}"
        ));
    }
    let listener = listen(net).unwrap_or_else(|e| {
        fail(&alloc::format!(
            "the network server restarted and httpd cannot listen on port {PORT} again: {e}"
        ))
    });
    println!(
        "the network server restarted: {lost} connections were lost with it; reconnected, serving http on port {PORT} again"
    );
    listener
}

/// After the file server restarted (a call found it gone): the answers
/// in the middle of a file are cut, their handles forgotten rather than
/// closed (they died with the server, and after the reconnect a handle
/// number may name another answer's file), and httpd connects again, so
/// the next requests are served. While the server is not back yet, each
/// round tries again (a round waits up to a tick on the network), saying
/// so once.
fn recover_fs(fs: &mut Fs, clients: &mut [Client], waited: &mut bool) {
    let cut = clients
        .iter_mut()
        .map(Client::lose_file)
        .filter(|&cut| cut)
        .count();
    match fs.reconnect() {
        Ok(()) => {
            println!(
                "the file server restarted: {cut} answers in the middle of a file were cut; reconnected, serving files again"
            );
            *waited = false;
        }
        Err(e) if !*waited => {
            println!(
                "the file server restarted and does not take a session yet ({e}); trying again each round, answering 500 meanwhile"
            );
            *waited = true;
        }
        Err(_) => {}
    }
}

/// The IPC mode, or the ring mode when the manifest gives httpd its
/// `net_ring` and `net_bufs` regions (`build.rs` sets `net_ring`).
fn socket_io(net: &mut Net) -> Box<dyn SocketIo> {
    #[cfg(net_ring)]
    {
        let caps = ring_io::RingCaps {
            ring: config::caps::NET_RING,
            ring_addr: config::caps::NET_RING_ADDR,
            bufs: config::caps::NET_BUFS,
            bufs_addr: config::caps::NET_BUFS_ADDR,
        };
        let io = ring_io::RingIo::open(net, caps).unwrap_or_else(|e| {
            fail(&alloc::format!(
                "cannot open the rings to the network server (regions net_ring and net_bufs, the latter at least {} bytes): {e}",
                ring_io::BUFS_SIZE
            ))
        });
        println!("socket operations go through the network server's rings");
        Box::new(io)
    }
    #[cfg(not(net_ring))]
    {
        let _ = net;
        Box::new(sockio::IpcIo::default())
    }
}

fn fail(why: &str) -> ! {
    println!("{why}; httpd stops");
    conflux_userlib::sys::exit(1)
}

fn entry(sock: Socket, events: Events) -> PollEntry {
    PollEntry {
        handle: sock.0 as u32,
        events,
        revents: Events::default(),
    }
}

fn listen(net: &mut Net) -> Result<Socket, NetErr> {
    let l = net.socket(SockKind::Stream)?;
    net.bind(l, SockAddr::new([0; 4], PORT))?;
    net.listen(l, MAX_BACKLOG)?;
    net.set_nonblocking(l, true)?;
    Ok(l)
}
