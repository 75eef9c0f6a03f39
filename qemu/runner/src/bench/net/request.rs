//! The host's client of netbench's request loop: one connection per
//! request (connect, send a request, read the answer until the server
//! closes), timed from the connect to the close on the host's clock and
//! checked byte for byte against the loop's fixed answer.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// What the runner sends; netbench reads it whole with one `recv`.
const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/// The answer of netbench's request loop (`RESPONSE` in
/// apps/bench/netbench/src/main.rs; the two must match).
pub const ANSWER: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnetbench\n";

/// One request on a new connection to 127.0.0.1:`port`; how long it took.
pub fn timed_request(port: u16, deadline: Instant) -> Result<Duration, String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let start = Instant::now();
    let mut stream = TcpStream::connect_timeout(&addr, left(deadline)?)
        .map_err(|e| format!("cannot connect to 127.0.0.1:{port}: {e}"))?;
    let _ = stream.set_nodelay(true);
    stream
        .set_read_timeout(Some(left(deadline)?))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(REQUEST)
        .map_err(|e| format!("127.0.0.1:{port}: sending the request failed: {e}"))?;
    let mut answer = Vec::with_capacity(ANSWER.len());
    stream.read_to_end(&mut answer).map_err(|e| {
        let what = if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
            "no answer and no close before the deadline".to_owned()
        } else {
            e.to_string()
        };
        format!(
            "127.0.0.1:{port}: {what}; got {}",
            crate::http_peer::escape(&answer)
        )
    })?;
    let took = start.elapsed();
    if answer != ANSWER {
        return Err(format!(
            "127.0.0.1:{port}: expected {}, got {}",
            crate::http_peer::escape(ANSWER),
            crate::http_peer::escape(&answer)
        ));
    }
    Ok(took)
}

/// Time left before `deadline`, or an error once it passed.
pub fn left(deadline: Instant) -> Result<Duration, String> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| "the benchmark's deadline passed".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A local server that answers one request with `answer` and closes.
    fn server(answer: &'static [u8]) -> u16 {
        let l = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = l.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; REQUEST.len()];
            s.read_exact(&mut buf).unwrap();
            s.write_all(answer).unwrap();
        });
        port
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    #[test]
    fn the_fixed_answer_is_timed() {
        assert!(timed_request(server(ANSWER), soon()).is_ok());
    }

    #[test]
    fn another_answer_is_an_error() {
        let e = timed_request(server(b"HTTP/1.1 500 No\r\n\r\n"), soon()).unwrap_err();
        assert!(e.contains("expected"), "{e}");
    }
}
