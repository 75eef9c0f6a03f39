//! Parked-request cancellation test: this task's blocking `accept` waits
//! in the network server (nothing connects to its port); the probe task
//! then connects with the same badge — as a restarted client would — and
//! the server ends the old session, answering the parked `accept` with
//! `Cancelled`.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_net_client::{Net, NetError, SockAddr, SockKind};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

fn main() {
    let mut c = Checks::new();
    let mut net = match Net::connect(conflux_net_client::manifest_caps!()) {
        Ok(n) => n,
        Err(e) => {
            c.that("connect to the network server", false, e);
            c.finish();
        }
    };
    let listener = net.socket(SockKind::Stream).and_then(|s| {
        net.bind(s, SockAddr::new([0; 4], 9000))?;
        net.listen(s, 1)?;
        Ok(s)
    });
    c.that("listening on port 9000", listener.is_ok(), listener);
    let Ok(listener) = listener else {
        c.finish();
    };
    println!("accepting (parked until the session is reconnected)");
    let got = net.accept(listener).map_err(|e| e.net());
    c.eq(
        "the parked accept, when the session was reconnected",
        got.err(),
        Some(Some(NetError::Cancelled)),
    );
    c.finish();
}
