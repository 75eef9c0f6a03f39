//! HTTP load for the soak: groups of clients (1, 4, 16 at once) that fetch
//! the disk's files from httpd until told to stop, each answer checked
//! byte for byte against the host's copy.
//!
//! Under kills of the network server, its driver and the file server, a
//! connection can be reset or closed before an answer (QEMU's slirp
//! forward also resets connects beyond its backlog of 1), cut in the
//! middle of a body, or go silent: those are counted, each apart, and the
//! client connects again after a back-off. A wrong answer — a byte that
//! differs, a wrong length, a status other than 200 or 5xx — is a failure.
//! A 5xx answer (httpd says it cannot serve now) is counted apart too.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::rng::Rng;

/// How long an answer may be silent before it counts as stalled.
const STALL: Duration = Duration::from_secs(15);
/// Largest head read.
const MAX_HEAD: usize = 16 * 1024;
/// Wrong answers quoted in the report.
const QUOTED: usize = 5;

/// A file httpd serves and its bytes.
pub type Files = Arc<Vec<(String, Arc<Vec<u8>>)>>;

/// What a group of clients (or one) did.
#[derive(Debug, Default, Clone)]
pub struct Load {
    pub clients: u32,
    /// Answers checked whole and right.
    pub ok: u64,
    pub bytes: u64,
    /// Connections reset or closed before any answer (refused connects
    /// too), each tried again.
    pub resets: u64,
    /// Answers that ended in the middle (every byte before right).
    pub cuts: u64,
    /// Answers silent for [`STALL`].
    pub stalls: u64,
    /// 5xx answers.
    pub unavailable: u64,
    pub wrong: u64,
    /// The first wrong answers, described.
    pub first_wrong: Vec<String>,
}

impl Load {
    fn add(&mut self, o: &Load) {
        self.ok += o.ok;
        self.bytes += o.bytes;
        self.resets += o.resets;
        self.cuts += o.cuts;
        self.stalls += o.stalls;
        self.unavailable += o.unavailable;
        self.wrong += o.wrong;
        for w in &o.first_wrong {
            if self.first_wrong.len() < QUOTED {
                self.first_wrong.push(w.clone());
            }
        }
    }
}

/// How one request ended.
enum Ended {
    Ok(u64),
    Unavailable,
    /// Reset or closed before an answer on a connection that had served
    /// nothing yet.
    Reset,
    /// Closed before an answer on a kept-alive connection: connect again.
    Closed,
    Cut,
    Stall,
    Wrong(String),
}

/// Runs `clients` clients against 127.0.0.1:`port` until `stop`.
pub fn group(
    port: u16,
    clients: u32,
    files: &Files,
    rng: &mut Rng,
    stop: &Arc<AtomicBool>,
) -> std::thread::JoinHandle<Load> {
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let (files, stop, rng) = (Arc::clone(files), Arc::clone(stop), rng.fork());
            std::thread::spawn(move || client(port, &files, rng, &stop))
        })
        .collect();
    std::thread::spawn(move || {
        let mut load = Load {
            clients,
            ..Load::default()
        };
        for h in handles {
            match h.join() {
                Ok(l) => load.add(&l),
                Err(_) => {
                    load.wrong += 1;
                    load.first_wrong
                        .push("an HTTP client thread panicked".into());
                }
            }
        }
        load
    })
}

/// One client: requests until `stop`, each on the kept-alive connection.
fn client(port: u16, files: &Files, mut rng: Rng, stop: &AtomicBool) -> Load {
    let mut load = Load::default();
    let mut conn: Option<(TcpStream, u64)> = None;
    let mut backoff = Duration::from_millis(50);
    while !stop.load(Ordering::Relaxed) {
        let (path, want) = &files[rng.next() as usize % files.len()];
        let ended = fetch(port, &mut conn, path, want);
        let trouble = !matches!(ended, Ended::Ok(_) | Ended::Closed);
        match ended {
            Ended::Ok(n) => {
                load.ok += 1;
                load.bytes += n;
            }
            Ended::Unavailable => load.unavailable += 1,
            Ended::Reset => load.resets += 1,
            Ended::Closed => {}
            Ended::Cut => load.cuts += 1,
            Ended::Stall => load.stalls += 1,
            Ended::Wrong(why) => {
                load.wrong += 1;
                if load.first_wrong.len() < QUOTED {
                    load.first_wrong.push(format!("GET {path}: {why}"));
                }
            }
        }
        if trouble {
            conn = None;
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(Duration::from_secs(2));
        } else {
            backoff = Duration::from_millis(50);
        }
    }
    load
}

/// One GET of `path` on `conn` (connecting first if there is none).
fn fetch(port: u16, conn: &mut Option<(TcpStream, u64)>, path: &str, want: &[u8]) -> Ended {
    if conn.is_none() {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        match TcpStream::connect_timeout(&addr, STALL) {
            Ok(s) => {
                let _ = s.set_read_timeout(Some(STALL));
                let _ = s.set_write_timeout(Some(STALL));
                *conn = Some((s, 0));
            }
            Err(_) => return Ended::Reset,
        }
    }
    let (stream, served) = conn.as_mut().expect("connected above");
    let fresh = *served == 0;
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        *conn = None;
        return if fresh { Ended::Reset } else { Ended::Closed };
    }
    let ended = answer(stream, want, fresh);
    match &ended {
        Ended::Ok(_) | Ended::Unavailable => *served += 1,
        _ => *conn = None,
    }
    ended
}

/// Reads and checks one answer.
fn answer(stream: &mut TcpStream, want: &[u8], fresh: bool) -> Ended {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, stream);
    while !head.ends_with(b"\r\n\r\n") {
        match reader.read(&mut byte) {
            Ok(0) if head.is_empty() => return if fresh { Ended::Reset } else { Ended::Closed },
            Ok(0) => return Ended::Cut,
            Ok(_) => head.push(byte[0]),
            Err(e) if is_timeout(&e) => return Ended::Stall,
            Err(_) if head.is_empty() => return if fresh { Ended::Reset } else { Ended::Closed },
            Err(_) => return Ended::Cut,
        }
        if head.len() > MAX_HEAD {
            return Ended::Wrong(format!("a head of more than {MAX_HEAD} bytes"));
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let Some(status) = crate::http_peer::status_of(&head) else {
        return Ended::Wrong(format!(
            "not a status line: {}",
            crate::http_peer::escape(&head)
        ));
    };
    let length = text.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<u64>().ok())?
    });
    let Some(length) = length else {
        return Ended::Wrong(format!(
            "no Content-Length: {}",
            crate::http_peer::escape(&head)
        ));
    };
    if (500..600).contains(&status) {
        return match skip(&mut reader, length) {
            Ok(()) => Ended::Unavailable,
            Err(e) => e,
        };
    }
    if status != 200 {
        return Ended::Wrong(format!(
            "status {status}: {}",
            crate::http_peer::escape(&head)
        ));
    }
    if length != want.len() as u64 {
        return Ended::Wrong(format!(
            "Content-Length {length}, the file has {} bytes",
            want.len()
        ));
    }
    let mut body = vec![0u8; want.len()];
    let mut got = 0;
    while got < body.len() {
        match reader.read(&mut body[got..]) {
            Ok(0) => return Ended::Cut,
            Ok(n) => {
                if body[got..got + n] != want[got..got + n] {
                    let at = got + (0..n).find(|i| body[got + i] != want[got + i]).unwrap_or(0);
                    return Ended::Wrong(format!(
                        "byte {at} of {} is {:#04x}, the file's is {:#04x}",
                        want.len(),
                        body[at],
                        want[at]
                    ));
                }
                got += n;
            }
            Err(e) if is_timeout(&e) => return Ended::Stall,
            Err(_) => return Ended::Cut,
        }
    }
    if reader.buffer().is_empty() {
        Ended::Ok(length)
    } else {
        Ended::Wrong(format!(
            "{} bytes after the body's end",
            reader.buffer().len()
        ))
    }
}

/// Reads and drops a body of `length` bytes.
fn skip(reader: &mut impl Read, length: u64) -> Result<(), Ended> {
    let mut left = length;
    let mut buf = [0u8; 4096];
    while left > 0 {
        match reader.read(&mut buf[..left.min(4096) as usize]) {
            Ok(0) => return Err(Ended::Cut),
            Ok(n) => left -= n as u64,
            Err(e) if is_timeout(&e) => return Err(Ended::Stall),
            Err(_) => return Err(Ended::Cut),
        }
    }
    Ok(())
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// Fetches every file once with a fresh client, trying a reset or
/// unavailable answer again for up to `within`: the service must be back.
pub fn probe(port: u16, files: &Files, within: Duration) -> Result<u64, String> {
    let until = Instant::now() + within;
    let mut bytes = 0;
    for (path, want) in files.iter() {
        loop {
            let mut conn = None;
            let last = match fetch(port, &mut conn, path, want) {
                Ended::Ok(n) => {
                    bytes += n;
                    break;
                }
                Ended::Wrong(why) => return Err(format!("GET {path} after the load: {why}")),
                Ended::Unavailable => "a 5xx answer",
                Ended::Reset | Ended::Closed => "a reset or close before an answer",
                Ended::Cut => "an answer cut short",
                Ended::Stall => "an answer silent for 15 s",
            };
            if Instant::now() >= until {
                return Err(format!(
                    "GET {path} after the load: no whole answer within {} s (the last try got {last}); see httpd's lines in the console log",
                    within.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    Ok(bytes)
}
