//! Echo-server test: listens on port 7 through the network server and
//! echoes what each accepted connection sends until the peer closes, for
//! [`VAN_CONNECTIONS`] connections (the host's runner makes them, some at
//! once: they wait in the listener's backlog), each op one IPC (`accept`
//! and `recv` wait in the server). Then one more connection is echoed by
//! a compound (`compound`). The runner judges the echoes; this task
//! checks what it can see, then ends (the network server keeps serving:
//! the system's outcome is "serving").
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod compound;

use conflux_net_client::{Net, SockAddr, SockKind, Socket};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// The echo port.
const PORT: u16 = 7;
/// Connections echoed with per-call operations.
const VAN_CONNECTIONS: usize = 3;

fn main() {
    let mut checks = Checks::new();
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            checks.that("connect to the network server", false, e);
            checks.finish();
        }
    };
    let listener = listen(&mut net);
    checks.that("listening", listener.is_ok(), listener);
    let Ok(listener) = listener else {
        checks.finish();
    };
    println!("listening on port {PORT}");
    for i in 0..VAN_CONNECTIONS {
        let echoed = serve(&mut net, listener);
        let what = alloc::format!("connection {} echoed until the peer closed", i + 1);
        checks.that(&what, echoed.is_ok_and(|n| n > 0), echoed);
    }
    compound::echo_one(&mut net, listener, &mut checks);
    checks.finish();
}

/// A stream socket listening on port 7.
fn listen(net: &mut Net) -> Result<Socket, conflux_net_client::Error> {
    let s = net.socket(SockKind::Stream)?;
    net.bind(s, SockAddr::new([0; 4], PORT))?;
    net.listen(s, 4)?;
    Ok(s)
}

/// Accepts one connection and echoes it until the peer closes; the bytes
/// echoed.
fn serve(net: &mut Net, listener: Socket) -> Result<usize, conflux_net_client::Error> {
    let c = net.accept(listener)?;
    let mut buf = [0u8; 1024];
    let mut total = 0;
    let result = loop {
        match net.recv(c, &mut buf) {
            Ok(0) => break Ok(total),
            Ok(n) => {
                if let Err(e) = net.send_all(c, &buf[..n]) {
                    break Err(e);
                }
                total += n;
            }
            Err(e) => break Err(e),
        }
    };
    net.close(c)?;
    result
}
