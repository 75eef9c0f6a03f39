//! Net bystander: an ordinary client of the network server that starts
//! once the hog holds every socket its quota allows. Its share is kept for
//! it, so it must still get a stream, a datagram socket, a listener with a
//! backlog, a ping to the gateway answered, and a connection from the
//! host's runner echoed. Past the quota its manifest entry gives it, it
//! gets `QuotaExceeded` too.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_net_client::{Error, Net, NetError, SockAddr, SockKind, Socket};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// The echo port (forwarded from the host).
const PORT: u16 = 7;
const GATEWAY: [u8; 4] = [10, 0, 2, 2];

fn main() {
    let mut c = Checks::new();
    let hogging = Notification(config::caps::HOGGING).wait();
    c.that("the hog holds its quota", hogging.is_ok(), hogging);
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish();
        }
    };
    let d = net.socket(SockKind::Datagram);
    c.that("a datagram socket", d.is_ok(), d);
    let rtt = net.ping(GATEWAY, 1, 5000);
    c.that("a ping to the gateway answered", rtt.is_ok(), rtt);
    let l = listen(&mut net);
    c.that("a stream listening with backlog 4", l.is_ok(), l);
    let Ok(l) = l else { c.finish() };
    println!("listening on port {PORT}");
    let echoed = echo(&mut net, l);
    c.that(
        "a connection from the host echoed",
        echoed.is_ok_and(|n| n > 0),
        echoed,
    );
    let mut opened = 0;
    let refusal = loop {
        match net.socket(SockKind::Stream) {
            Ok(_) => opened += 1,
            Err(e) => break e.net(),
        }
        if opened > 100 {
            break None;
        }
    };
    println!("opened {opened} more streams, then: {refusal:?}");
    c.eq(
        "streams past the quota the manifest gives it",
        refusal,
        Some(NetError::QuotaExceeded),
    );
    c.finish();
}

fn listen(net: &mut Net) -> Result<Socket, Error> {
    let s = net.socket(SockKind::Stream)?;
    net.bind(s, SockAddr::new([0; 4], PORT))?;
    net.listen(s, 4)?;
    Ok(s)
}

/// Accepts one connection and echoes it until the peer closes; the bytes
/// echoed.
fn echo(net: &mut Net, listener: Socket) -> Result<usize, Error> {
    let c = net.accept(listener)?;
    let mut buf = [0u8; 512];
    let mut total = 0;
    loop {
        match net.recv(c, &mut buf)? {
            0 => break,
            n => {
                net.send_all(c, &buf[..n])?;
                total += n;
            }
        }
    }
    net.close(c)?;
    Ok(total)
}
