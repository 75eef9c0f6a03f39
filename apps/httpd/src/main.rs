//! httpd: the disk's files over HTTP/1.1, on port 80 of the network
//! server, for `curl` on the host through QEMU's forwarded port.
//!
//! One task, one event loop, up to [`MAX_CONNS`] connections: it waits on
//! the listener and every connection at once (the network server's
//! `wait`), with the nearest request deadline as its timeout, so one slow
//! client never holds the others up. Requests are parsed and checked by
//! `conflux-http` (`Conn`: limits, 408 for a head that takes more than 3
//! seconds, 400/405/431 with a page that says why); answers go out
//! non-blocking ([`out`]). File bodies move from the file server to the
//! network server through a region httpd shares with both, without
//! entering httpd's memory. The disk is only read.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod answer;
mod clock;
mod out;
mod restart;

use alloc::vec::Vec;

use conflux_fs_client::Fs;
use conflux_http::conn::{Conn, Step};
use conflux_http::Status;
use conflux_net_client::{
    Error as NetErr, Events, Net, NetError, PollEntry, SockAddr, SockKind, Socket,
};
use conflux_socket_protocol::ops::MAX_BACKLOG;
use conflux_userlib::println;

use out::{Out, Pages, Pumped, SLOT};

conflux_userlib::entry!(main);

/// The port httpd listens on in the guest.
const PORT: u16 = 80;
/// Connections served at once; one more is answered 503 and closed.
const MAX_CONNS: usize = 48;
/// The longest httpd waits without looking at its deadlines.
const TICK_MS: u64 = 1000;

/// One connection.
struct Client {
    sock: Socket,
    conn: Conn,
    out: Option<Out>,
    /// Its slot in the pages region (an index below MAX_CONNS); `None`
    /// for a connection turned away with 503, which never gets a file.
    slot: Option<u32>,
    /// When it must be looked at again without news (a request deadline).
    due: Option<u64>,
    /// Answered for the last time and shut for writing: what still comes
    /// is read and dropped until the peer closes or this time passes.
    /// Closing at once with unread bytes would reset the connection, and
    /// the peer would lose the answer (a 431 to a header flood, say).
    linger: Option<u64>,
    closing: bool,
}

/// Connections answered 503 (and lingering) at once; past them, new ones
/// are closed without an answer.
const MAX_TURNED_AWAY: usize = 16;

/// How long a connection's last answer may wait for the peer to close.
const LINGER_MS: u64 = 2000;

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
    let mut listener = listen(&mut net)
        .unwrap_or_else(|e| fail(&alloc::format!("cannot listen on port {PORT}: {e}")));
    println!("serving http on port {PORT}");
    let mut clients: Vec<Client> = Vec::new();
    let mut entries: Vec<PollEntry> = Vec::new();
    loop {
        let now = clock.now_ms();
        entries.clear();
        entries.push(entry(listener, Events::READABLE));
        for c in &clients {
            let want = if c.out.is_some() {
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
        if let Err(e) = net.wait(&mut entries, timeout) {
            if restart::note(&e) {
                listener = recover(&mut net, &mut fs, &mut clients);
            } else {
                println!(
                    "wait on {} sockets failed: {e}; trying again",
                    entries.len()
                );
            }
            continue;
        }
        let now = clock.now_ms();
        if !entries[0].revents.is_empty() {
            accept_all(&mut net, listener, &mut clients, now);
        }
        for (i, c) in clients.iter_mut().enumerate() {
            if restart::seen() {
                break; // the rest went with the server
            }
            let revents = entries.get(i + 1).map_or(Events::default(), |e| e.revents);
            serve(c, revents, &mut net, &mut fs, pages, now);
        }
        if restart::take() {
            listener = recover(&mut net, &mut fs, &mut clients);
            continue;
        }
        clients.retain_mut(|c| {
            if c.closing {
                if let Some(mut o) = c.out.take() {
                    o.abandon(&mut fs);
                }
                let _ = net.close(c.sock);
            }
            !c.closing
        });
    }
}

/// After the network server restarted: every connection is gone with it
/// (their peers see a reset or a short answer), so their files go back
/// to the file server; httpd reconnects (sharing the same regions again,
/// so the pages keep their number) and listens again. Returns the new
/// listener.
fn recover(net: &mut Net, fs: &mut Fs, clients: &mut Vec<Client>) -> Socket {
    let lost = clients.len();
    for c in clients.iter_mut() {
        if let Some(mut o) = c.out.take() {
            o.abandon(fs);
        }
    }
    clients.clear();
    let _ = restart::take();
    if let Err(e) = net.reconnect() {
        fail(&alloc::format!(
            "the network server restarted and httpd cannot reconnect: {e}"
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

/// Takes every waiting connection.
fn accept_all(net: &mut Net, listener: Socket, clients: &mut Vec<Client>, now: u64) {
    loop {
        let sock = match net.accept(listener) {
            Ok(s) => s,
            Err(e) if e.net() == Some(NetError::WouldBlock) => return,
            Err(e) if restart::note(&e) => return,
            Err(e) => {
                println!("accept failed: {e}");
                return;
            }
        };
        let _ = net.set_nonblocking(sock, true);
        // Answers are written whole: their last short segment must not
        // wait a round trip for the acknowledgement of the one before.
        let _ = net.set_nodelay(sock, true);
        let free = (0..MAX_CONNS as u32).find(|s| clients.iter().all(|c| c.slot != Some(*s)));
        let turned_away = clients.iter().filter(|c| c.slot.is_none()).count();
        if free.is_none() && turned_away >= MAX_TURNED_AWAY {
            let _ = net.close(sock);
            continue;
        }
        clients.push(Client {
            sock,
            conn: Conn::new(now),
            // Turned away: the 503 goes out first, then the connection
            // lingers and closes like any other.
            out: free.is_none().then(|| Out::text(busy_page(), false)),
            slot: free,
            due: None,
            linger: None,
            closing: false,
        });
    }
}

fn busy_page() -> Vec<u8> {
    let body = conflux_http::response::error_page(
        Status::Unavailable,
        "all connections are busy; try again",
    );
    let mut page = conflux_http::response::head(
        Status::Unavailable,
        "text/html; charset=utf-8",
        body.len() as u64,
        false,
    )
    .into_bytes();
    page.extend_from_slice(body.as_bytes());
    page
}

/// Moves `c` on: sends what is pending, reads what arrived, and starts
/// the answers to the requests now complete, in order.
fn serve(c: &mut Client, revents: Events, net: &mut Net, fs: &mut Fs, pages: Pages, now: u64) {
    if let Some(until) = c.linger {
        drain(c, net, until, now);
        return;
    }
    if !pump(c, net, fs, pages, now) {
        return;
    }
    let mut peer_closed = false;
    let input = Events::READABLE.union(Events::HANGUP).union(Events::ERROR);
    if !revents.intersect(input).is_empty() && c.conn.room() > 0 {
        let mut buf = [0u8; 4096];
        let room = c.conn.room().min(buf.len());
        match net.recv(c.sock, &mut buf[..room]) {
            Ok(0) => peer_closed = true,
            Ok(n) => c.conn.received(&buf[..n], now),
            Err(e) if e.net() == Some(NetError::WouldBlock) => {}
            Err(e) if restart::note(&e) => return,
            Err(e) => {
                println!("connection {}: receive failed: {e}; closing it", c.sock.0);
                c.closing = true;
                return;
            }
        }
    }
    c.due = None;
    loop {
        let mut step = c.conn.next(now);
        if peer_closed && matches!(step, Step::WaitUntil(_)) {
            step = c.conn.peer_closed();
        }
        match step {
            Step::Serve(req) => c.out = Some(answer::to(fs, &req)),
            Step::Refuse { status, why } => {
                c.out = Some(answer::error(
                    conflux_http::Method::Get,
                    status,
                    &why,
                    false,
                ))
            }
            Step::Close => {
                c.closing = true;
                return;
            }
            Step::WaitUntil(t) => {
                c.due = Some(t);
                return;
            }
        }
        if !pump(c, net, fs, pages, now) {
            return;
        }
    }
}

/// Reads and drops what a lingering connection still gets.
fn drain(c: &mut Client, net: &mut Net, until: u64, now: u64) {
    let mut buf = [0u8; 4096];
    loop {
        match net.recv(c.sock, &mut buf) {
            Ok(0) => break,
            Ok(_) => continue,
            Err(e) if e.net() == Some(NetError::WouldBlock) && now < until => {
                c.due = Some(until);
                return;
            }
            Err(e) => {
                restart::note(&e);
                break;
            }
        }
    }
    c.closing = true;
}

/// Sends `c`'s pending answer; true when it is all out and the connection
/// stays open for the next request.
fn pump(c: &mut Client, net: &mut Net, fs: &mut Fs, pages: Pages, now: u64) -> bool {
    let Some(out) = c.out.as_mut() else {
        return true;
    };
    // A turned-away connection's answer is text: it never uses the slot.
    match out.pump(net, fs, c.sock, pages, c.slot.unwrap_or(0) * SLOT) {
        Pumped::Blocked => false,
        Pumped::Broken => {
            c.closing = true;
            false
        }
        Pumped::Done => {
            let keep = out.keep_alive;
            c.out = None;
            if !keep {
                let _ = net.shutdown(c.sock, false, true);
                c.linger = Some(now + LINGER_MS);
                c.due = c.linger;
            }
            keep
        }
    }
}
