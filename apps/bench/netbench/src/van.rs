//! The VAN loops: one IPC per socket operation. Data is copied through
//! the control region's staging area by `conflux-net-client`, and a
//! blocking `recv` waits in the network server, so an echo round trip is
//! two IPCs (`recv`, `send`) and a request four (`accept`, `recv`,
//! `send`, `close`) after the dispatcher's `wait`.

use conflux_net_client::{Error, Net, Socket};

use crate::{Tally, RESPONSE, ROOM};

/// Accepts the connection waiting on `listener` and echoes it until the
/// peer closes.
pub fn echo(net: &mut Net, listener: Socket, tally: &mut Tally) -> Result<(), Error> {
    let c = net.accept(listener)?;
    tally.ipcs += 1;
    let mut buf = [0u8; ROOM as usize];
    let result = loop {
        tally.ipcs += 1;
        let n = match net.recv(c, &mut buf) {
            Ok(0) => break Ok(()),
            Ok(n) => n,
            Err(e) => break Err(e),
        };
        let mut sent = 0;
        while sent < n {
            tally.ipcs += 1;
            match net.send(c, &buf[sent..n]) {
                Ok(m) => sent += m,
                Err(e) => return close_after(net, c, tally, Err(e)),
            }
        }
        tally.served += 1;
    };
    close_after(net, c, tally, result)
}

/// Accepts the connection waiting on `listener`, reads its request, sends
/// [`RESPONSE`] and closes it.
pub fn request(net: &mut Net, listener: Socket, tally: &mut Tally) -> Result<(), Error> {
    let c = net.accept(listener)?;
    tally.ipcs += 1;
    let mut buf = [0u8; ROOM as usize];
    tally.ipcs += 1;
    let answered = net.recv(c, &mut buf).and_then(|_| {
        tally.ipcs += 1;
        net.send_all(c, RESPONSE)
    });
    if answered.is_ok() {
        tally.served += 1;
    }
    close_after(net, c, tally, answered)
}

/// Closes `c` (one IPC), then gives `result` (or the close's error).
fn close_after(
    net: &mut Net,
    c: Socket,
    tally: &mut Tally,
    result: Result<(), Error>,
) -> Result<(), Error> {
    tally.ipcs += 1;
    let closed = net.close(c);
    result.and(closed)
}
