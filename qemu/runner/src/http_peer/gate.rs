//! Connecting through QEMU's port forward one connection at a time.
//!
//! QEMU's user network listens for a forwarded port with a backlog of 1,
//! so Linux keeps at most two connections waiting for QEMU to accept
//! them. A third that comes meanwhile has its SYN dropped (the client
//! tries again after 1 s, 3 s, 7 s, ...), and a connection whose
//! handshake the host finished while the queue was full can be reset
//! before the guest ever sees it. Many clients connecting at once — the
//! 32 of a load test, or a burst of malformed requests beside it — would
//! so fail for reasons that have nothing to do with the guest.
//!
//! So every connection the peer opens goes through [`connect`]: one at a
//! time per process, each waiting until the forward's accept queue is
//! empty (QEMU took every earlier connection), as `/proc/net/tcp` shows
//! it. Where that file cannot be read, connections are spaced out by
//! [`FALLBACK_SPACING`] instead.
//!
//! Under passt (`netback`), which accepts hundreds of connections at
//! once, the gate is open: [`set_concurrent`] makes [`connect`] a plain
//! connect.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Gap between connections when the accept queue cannot be read.
const FALLBACK_SPACING: Duration = Duration::from_millis(50);
/// How long a connection may wait for QEMU to take the earlier ones.
const QUEUE_WAIT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(1);

static GATE: Mutex<()> = Mutex::new(());
/// Connections need not wait for each other (the backend is passt).
static CONCURRENT: AtomicBool = AtomicBool::new(false);

/// Whether connections may be opened at once, for the QEMU run starting.
pub fn set_concurrent(concurrent: bool) {
    CONCURRENT.store(concurrent, Ordering::Relaxed);
}

/// Connects to `addr` (on 127.0.0.1), once the forward's accept queue is
/// empty, within `timeout`.
pub fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    if CONCURRENT.load(Ordering::Relaxed) {
        return TcpStream::connect_timeout(&addr, timeout);
    }
    let _turn = GATE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let port = addr.port();
    if !drained(port, timeout.min(QUEUE_WAIT)) {
        std::thread::sleep(FALLBACK_SPACING);
    }
    let stream = TcpStream::connect_timeout(&addr, timeout)?;
    // Hold the turn until QEMU took this one too (or the queue cannot be
    // read), so the next connection finds the queue empty.
    if !drained(port, QUEUE_WAIT) {
        std::thread::sleep(FALLBACK_SPACING);
    }
    Ok(stream)
}

/// Waits until the listener on 127.0.0.1:`port` has no connection
/// waiting to be accepted; false if that cannot be known within `wait`.
fn drained(port: u16, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    loop {
        match std::fs::read_to_string("/proc/net/tcp")
            .ok()
            .and_then(|t| accept_queue(&t, port))
        {
            Some(0) => return true,
            Some(_) if Instant::now() < until => std::thread::sleep(POLL),
            _ => return false,
        }
    }
}

/// The accept queue length of the socket listening on 127.0.0.1:`port`,
/// from the text of `/proc/net/tcp` (for a listening socket the
/// `rx_queue` column is the number of connections waiting for `accept`).
pub(super) fn accept_queue(table: &str, port: u16) -> Option<u32> {
    let local = format!("0100007F:{port:04X}");
    table.lines().skip(1).find_map(|line| {
        let mut cols = line.split_whitespace();
        let (_, addr, _, state, queues) = (
            cols.next()?,
            cols.next()?,
            cols.next()?,
            cols.next()?,
            cols.next()?,
        );
        if addr != local || state != "0A" {
            return None;
        }
        let rx = queues.split(':').nth(1)?;
        u32::from_str_radix(rx, 16).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::accept_queue;

    const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:15CC 00000000:0000 0A 00000001:00000002 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:15CC 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 100 0 0 10 0
";

    #[test]
    fn the_listening_socket_s_accept_queue_is_read() {
        assert_eq!(accept_queue(TABLE, 5580), Some(2));
        assert_eq!(accept_queue(TABLE, 22), None, "not on 127.0.0.1");
        assert_eq!(accept_queue(TABLE, 8080), None, "nobody listens");
        assert_eq!(accept_queue("", 5580), None);
    }
}
