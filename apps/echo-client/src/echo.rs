//! The network server, twice: listens on TCP port 7 and echoes one
//! connection with plain calls (an IPC per accept, recv, send and close),
//! then the next as one compound (accept, recv, send and close in one
//! IPC). No op inside a compound waits, so first the app waits (one plain
//! `wait`) until a connection is there; if its bytes are not in yet,
//! `recv` fails with `WouldBlock`, and the app waits on the accepted
//! socket and runs the rest as a second compound.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use conflux_net_client::{Error, Events, Net, NetError, PollEntry, SockAddr, SockKind, Socket};
use conflux_socket_protocol::ops::{self, WAIT_FOREVER};
use conflux_userlib::println;
use cosy_abi::typed::OpValue;
use cosy_abi::{Arena, ArenaError, BuildError, Place};
use cosy_macro::cosy;

// The task's generated constants (`entry!` declares them at the crate's
// root), which `manifest_caps!` reads.
use crate::config;

/// The port listened on (the system forwards a host port to it).
const PORT: u16 = 7;
/// Bytes echoed at a time.
const ROOM: usize = 2048;

/// Echoes one connection each way.
pub fn run() -> Result<(), String> {
    let mut net = Net::connect(conflux_net_client::manifest_caps!())
        .map_err(|e| format!("cannot connect to the network server: {e}"))?;
    let listener = listen(&mut net).map_err(|e| format!("cannot listen on port {PORT}: {e}"))?;
    println!("echo: listening on port {PORT}");
    let n = echo_by_calls(&mut net, listener).map_err(|e| format!("plain calls: {e}"))?;
    println!("echo: plain calls echoed {n} bytes");
    let n = echo_by_compound(&mut net, listener)?;
    println!("echo: one compound echoed {n} bytes");
    net.close(listener)
        .map_err(|e| format!("cannot close the listener: {e}"))
}

/// A TCP socket listening on [`PORT`].
fn listen(net: &mut Net) -> Result<Socket, Error> {
    let listener = net.socket(SockKind::Stream)?;
    net.bind(listener, SockAddr::new([0; 4], PORT))?;
    net.listen(listener, 4)?;
    Ok(listener)
}

/// One connection echoed until its peer closes: an IPC per call (the
/// server parks `accept` and `recv` until they can answer).
fn echo_by_calls(net: &mut Net, listener: Socket) -> Result<usize, Error> {
    let conn = net.accept(listener)?;
    let mut data = [0u8; ROOM];
    let mut total = 0;
    loop {
        let n = net.recv(conn, &mut data)?;
        if n == 0 {
            break;
        }
        net.send_all(conn, &data[..n])?;
        total += n;
    }
    net.close(conn)?;
    Ok(total)
}

/// The next connection echoed by compounds: its first [`ROOM`] bytes.
fn echo_by_compound(net: &mut Net, listener: Socket) -> Result<u64, String> {
    let layout = |e: ArenaError| format!("cannot lay out the control region: {e}");
    let room = Arena::new(0, &mut net.control()[..ROOM])
        .and_then(|mut arena| arena.buffer(ROOM))
        .map_err(layout)?;
    let (whole, rest) = compounds(room).map_err(|e| format!("a compound does not build: {e}"))?;
    println!("echo: compound echo ready");
    wait_for(net, listener).map_err(|e| format!("waiting for a connection: {e}"))?;
    match net.run(&whole, &[listener.0]) {
        Ok(run) => Ok(run.exit_value),
        // `recv` (op 1) would block: the peer's bytes are not in yet.
        Err(Error::Compound(stop))
            if stop.op == Some(1) && stop.error.service() == Some(NetError::WouldBlock) =>
        {
            let Some(OpValue::Ok(conn)) = net.results().next() else {
                return Err("accept's result is missing from the report".into());
            };
            wait_for(net, Socket(conn)).map_err(|e| format!("waiting for data: {e}"))?;
            net.run(&rest, &[conn])
                .map(|run| run.exit_value)
                .map_err(|e| format!("recv, send and close: {e}"))
        }
        Err(e) => Err(format!("accept, recv, send and close: {e}")),
    }
}

/// `accept → recv → send → close` on the listener, and `recv → send →
/// close` on an accepted socket; each exits with the bytes echoed.
fn compounds(room: Place) -> Result<(Vec<u8>, Vec<u8>), BuildError> {
    let len = room.len;
    let whole = cosy!(ops::TABLE => #[fail_fast] |listener| {
        let data = buf(room);
        let conn = accept(listener);
        let n = recv(conn, data, len);
        send(conn, data, n);
        close(conn);
        n
    })
    .build()?;
    let rest = cosy!(ops::TABLE => #[fail_fast] |conn| {
        let data = buf(room);
        let n = recv(conn, data, len);
        send(conn, data, n);
        close(conn);
        n
    })
    .build()?;
    Ok((whole, rest))
}

/// Waits (a plain call, parked in the server) until `socket` is readable.
fn wait_for(net: &mut Net, socket: Socket) -> Result<usize, Error> {
    let mut entry = [PollEntry {
        handle: socket.0 as u32,
        events: Events::READABLE,
        revents: Events::NONE,
    }];
    net.wait(&mut entry, WAIT_FOREVER)
}
