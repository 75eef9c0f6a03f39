//! A tiny std-only HTTP/1.1 server on 127.0.0.1:0 for the peer's tests:
//! serves fixed files with keep-alive, answers 400 to a bad request line,
//! 431 to a head over 8 KiB (closing without reading the rest), 408 to a
//! head left unfinished for 1 s, and can be told to misbehave.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the server answers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    /// One body byte flipped (the 100th, or the last of a shorter body).
    WrongByte,
    /// `Content-Length` one more than the body it sends, then close.
    WrongLength,
    /// 201 instead of 200.
    WrongStatus,
    /// Reads and never answers, never closes (until the test ends).
    Silent,
    /// Closes a connection after every 3 answers, without saying so.
    CloseEvery3,
    /// Sends half of each body, then closes (a server that died).
    CutHalf,
    /// Sends half of each body, then goes silent without closing.
    StallHalf,
    /// One body byte flipped in the first half, then closes after it.
    WrongByteThenCut,
    /// Answers 503 and closes, as a full server, until this time.
    BusyUntil(Instant),
}

/// The largest head the server reads before answering 431.
const MAX_HEAD: usize = 8 * 1024;
/// How long an unfinished head may wait before 408.
const HEAD_IDLE: Duration = Duration::from_secs(1);
/// The server's life: it stops accepting after this.
const LIFETIME: Duration = Duration::from_secs(60);

/// Starts a server with `files` (URL path -> body); returns its port.
pub fn start(files: HashMap<String, Vec<u8>>, fault: Fault) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let port = listener.local_addr().expect("bound").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let files = Arc::new(files);
    std::thread::spawn(move || {
        let end = Instant::now() + LIFETIME;
        while Instant::now() < end {
            match listener.accept() {
                Ok((stream, _)) => {
                    let files = Arc::clone(&files);
                    std::thread::spawn(move || connection(stream, &files, fault));
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(_) => return,
            }
        }
    });
    port
}

fn connection(mut stream: TcpStream, files: &HashMap<String, Vec<u8>>, fault: Fault) {
    let _ = stream.set_nonblocking(false);
    let mut buf = Vec::new();
    for served in 1..=10_000 {
        let Some(head) = read_head(&mut stream, &mut buf) else {
            return;
        };
        if fault == Fault::Silent {
            std::thread::sleep(LIFETIME);
            return;
        }
        let keep = match head {
            Head::TooLarge => answer(&mut stream, 431, b"", true),
            Head::Idle => answer(&mut stream, 408, b"", true),
            Head::Complete(text) => request(&mut stream, &text, files, fault),
        };
        if !keep || (fault == Fault::CloseEvery3 && served % 3 == 0) {
            return;
        }
    }
}

enum Head {
    Complete(String),
    TooLarge,
    Idle,
}

/// Reads one head from `stream` (keeping any bytes after it in `buf`);
/// `None` when the client closed.
fn read_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Head> {
    let _ = stream.set_read_timeout(Some(HEAD_IDLE));
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head: Vec<u8> = buf.drain(..at + 4).collect();
            return Some(Head::Complete(String::from_utf8_lossy(&head).into_owned()));
        }
        if buf.len() > MAX_HEAD {
            return Some(Head::TooLarge);
        }
        match stream.read(&mut chunk) {
            Ok(0) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return (!buf.is_empty()).then_some(Head::Idle)
            }
            Err(_) => return None,
        }
    }
}

/// Answers one complete head; whether to keep the connection.
fn request(
    stream: &mut TcpStream,
    head: &str,
    files: &HashMap<String, Vec<u8>>,
    fault: Fault,
) -> bool {
    let mut parts = head.lines().next().unwrap_or("").split(' ');
    let (Some(method), Some(path), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return answer(stream, 400, b"", true);
    };
    if !matches!(method, "GET" | "HEAD") || !version.starts_with("HTTP/1.") {
        return answer(stream, 400, b"", true);
    }
    if matches!(fault, Fault::BusyUntil(t) if Instant::now() < t) {
        return answer(stream, 503, b"full", true);
    }
    let Some(body) = files.get(path) else {
        return answer(stream, 404, b"", false);
    };
    let mut body = body.clone();
    let mut status = 200;
    let mut length = body.len();
    match fault {
        Fault::WrongByte if !body.is_empty() => {
            let at = 99.min(body.len() - 1);
            body[at] ^= 0x20;
        }
        Fault::WrongLength => length += 1,
        Fault::WrongStatus => status = 201,
        _ => {}
    }
    if method == "HEAD" {
        body.clear();
    }
    let cut = matches!(
        fault,
        Fault::CutHalf | Fault::StallHalf | Fault::WrongByteThenCut
    );
    if fault == Fault::WrongByteThenCut && body.len() > 100 {
        body[99] ^= 0x20;
    }
    if cut {
        body.truncate(body.len() / 2);
    }
    let head = format!("HTTP/1.1 {status} X\r\nContent-Length: {length}\r\n\r\n");
    let sent = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(&body));
    if fault == Fault::StallHalf {
        std::thread::sleep(LIFETIME);
    }
    sent.is_ok() && fault != Fault::WrongLength && !cut
}

/// Sends a status with `body`; `close` ends the connection after it.
fn answer(stream: &mut TcpStream, status: u16, body: &[u8], close: bool) -> bool {
    let connection = if close { "Connection: close\r\n" } else { "" };
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\n{connection}\r\n",
        body.len()
    );
    let sent = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body));
    sent.is_ok() && !close
}
