//! The host's echo client: one connection to an echo server in the guest
//! (through a forwarded port on 127.0.0.1), a message written and the
//! same bytes read back, timed per round trip on the host's clock.
//! Each message differs from the one before, so an echo that came back
//! late or twice is caught instead of being timed.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::request::left;

/// A run of round trips on one connection.
pub struct EchoPlan {
    pub port: u16,
    /// Bytes per message.
    pub size: usize,
    /// Round trips made first and not timed.
    pub warmup: usize,
    /// Round trips timed.
    pub timed: usize,
    pub deadline: Instant,
}

/// The timed round trips of `plan`, each checked byte for byte; the
/// connection is then shut for writing and the server must close it.
pub fn round_trips(plan: &EchoPlan) -> Result<Vec<Duration>, String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, plan.port));
    let mut stream = TcpStream::connect_timeout(&addr, left(plan.deadline)?)
        .map_err(|e| format!("cannot connect to 127.0.0.1:{}: {e}", plan.port))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("cannot set TCP_NODELAY: {e}"))?;
    let mut message = vec![0u8; plan.size];
    let mut back = vec![0u8; plan.size];
    let mut times = Vec::with_capacity(plan.timed);
    for round in 0..plan.warmup + plan.timed {
        for (i, b) in message.iter_mut().enumerate() {
            *b = (round as u8).wrapping_mul(31) ^ i as u8;
        }
        stream
            .set_read_timeout(Some(left(plan.deadline)?))
            .map_err(|e| e.to_string())?;
        let start = Instant::now();
        stream
            .write_all(&message)
            .and_then(|()| stream.read_exact(&mut back))
            .map_err(|e| failed(plan, round, &e))?;
        let took = start.elapsed();
        if back != message {
            return Err(format!(
                "127.0.0.1:{}: round trip {round} came back different: sent {}, got {}",
                plan.port,
                crate::http_peer::escape(&message),
                crate::http_peer::escape(&back)
            ));
        }
        if round >= plan.warmup {
            times.push(took);
        }
    }
    closed_by_server(&mut stream, plan)?;
    Ok(times)
}

/// Shuts the sending side and waits for the server to close.
fn closed_by_server(stream: &mut TcpStream, plan: &EchoPlan) -> Result<(), String> {
    let _ = stream.shutdown(Shutdown::Write);
    stream
        .set_read_timeout(Some(left(plan.deadline)?))
        .map_err(|e| e.to_string())?;
    let mut rest = [0u8; 64];
    match stream.read(&mut rest) {
        Ok(0) => Ok(()),
        Ok(n) => Err(format!(
            "127.0.0.1:{}: {n} bytes more than were sent came back",
            plan.port
        )),
        Err(e) => Err(format!(
            "127.0.0.1:{}: the server did not close after our end of stream: {e}",
            plan.port
        )),
    }
}

fn failed(plan: &EchoPlan, round: usize, e: &std::io::Error) -> String {
    let what = if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
        "no echo before the deadline".to_owned()
    } else {
        e.to_string()
    };
    format!(
        "127.0.0.1:{}: round trip {round} ({} bytes): {what}",
        plan.port, plan.size
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A local echo server of 16-byte messages (one of them changed, if
    /// asked); it closes when the client does.
    fn server(reply_wrong_at: Option<usize>) -> u16 {
        let l = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = l.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 16];
            let mut round = 0;
            while s.read_exact(&mut buf).is_ok() {
                if Some(round) == reply_wrong_at {
                    buf[0] ^= 1;
                }
                s.write_all(&buf).unwrap();
                round += 1;
            }
        });
        port
    }

    fn plan(port: u16) -> EchoPlan {
        EchoPlan {
            port,
            size: 16,
            warmup: 2,
            timed: 5,
            deadline: Instant::now() + Duration::from_secs(10),
        }
    }

    #[test]
    fn times_only_the_rounds_after_the_warmup() {
        let times = round_trips(&plan(server(None))).unwrap();
        assert_eq!(times.len(), 5);
    }

    #[test]
    fn a_wrong_echo_is_an_error_naming_its_round() {
        let e = round_trips(&plan(server(Some(3)))).unwrap_err();
        assert!(e.contains("round trip 3 came back different"), "{e}");
    }
}
