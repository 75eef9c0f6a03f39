//! The host's TCP receiver for flows' `tcp` sinks (tests and the
//! `flow-file-tcp` benchmark): it listens on 127.0.0.1:`port` before QEMU
//! starts — a guest forward (`guestfwd=tcp:10.0.2.100:G-tcp:127.0.0.1:H`)
//! connects to its host port when QEMU starts, and carries the guest's
//! connections to 10.0.2.100:G over that one host connection, one after
//! the other — takes the connection, and reads the stream.
//!
//! The stream must be exactly what is expected, unit by unit: `count`
//! self-checking records (`conflux_flow_protocol::record`) of `size`
//! bytes from `seed`, or a file's bytes in chunks; each unit encrypted on
//! its own with AES-128-CBC when a key and IV are given (decrypted here).
//! Every unit is compared whole with the one expected, and a byte more
//! after the last one is an error too. A benchmark reads several runs of
//! the same bytes off one connection, each timed from its first byte to
//! its last.

use aes::cipher::{block_padding::NoPadding, BlockDecryptMut, KeyIvInit};
use conflux_flow_protocol::record;
use std::io::{ErrorKind, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

type Decryptor = cbc::Decryptor<aes::Aes128>;

/// What the units hold.
#[derive(Clone, Debug)]
pub enum Content {
    /// Record `i` of this seed is unit `i`.
    Records { seed: u64 },
    /// Unit `i` is these bytes' `i`-th `unit`-sized piece.
    Bytes(Arc<Vec<u8>>),
}

/// What to expect.
#[derive(Clone, Debug)]
pub struct Expect {
    /// Units of the stream (of one run).
    pub count: u32,
    /// Bytes per unit, a multiple of 16.
    pub unit: usize,
    pub content: Content,
    /// AES-128-CBC key and IV, if the units come encrypted.
    pub cipher: Option<([u8; 16], [u8; 16])>,
}

impl Expect {
    /// `count` records of `size` bytes from `seed`.
    pub fn records(count: u32, size: usize, seed: u64) -> Self {
        Self {
            count,
            unit: size,
            content: Content::Records { seed },
            cipher: None,
        }
    }

    /// `bytes` in `chunk`-byte units (`chunk` must divide their length).
    pub fn bytes(bytes: Arc<Vec<u8>>, chunk: usize) -> Result<Self, String> {
        if chunk == 0 || bytes.is_empty() || !bytes.len().is_multiple_of(chunk) {
            return Err(format!(
                "{} bytes cannot be cut in chunks of {chunk}",
                bytes.len()
            ));
        }
        Ok(Self {
            count: u32::try_from(bytes.len() / chunk).map_err(|_| "too many chunks")?,
            unit: chunk,
            content: Content::Bytes(bytes),
            cipher: None,
        })
    }

    pub fn encrypted(self, key: [u8; 16], iv: [u8; 16]) -> Self {
        Self {
            cipher: Some((key, iv)),
            ..self
        }
    }

    /// Bytes of one run.
    pub fn len(&self) -> u64 {
        u64::from(self.count) * self.unit as u64
    }

    /// Unit `seq` as sent before encryption.
    fn expected(&self, seq: u32, out: &mut [u8]) {
        match &self.content {
            Content::Records { seed } => {
                record::write(out, *seed, seq).expect("listen() keeps the size above a header");
            }
            Content::Bytes(b) => {
                let at = seq as usize * self.unit;
                out.copy_from_slice(&b[at..at + self.unit]);
            }
        }
    }
}

/// What came: every unit, or (when a cut is allowed) every unit up to
/// the cut.
#[derive(Clone, Copy, Debug)]
pub struct Received {
    pub bytes: u64,
    /// From the first byte to the last.
    pub span: Duration,
    /// The stream was cut short (it ended, or stayed quiet for the
    /// allowed time), every whole unit before the cut right.
    pub cut: bool,
}

/// How long the stream must stay quiet after the last record.
const QUIET: Duration = Duration::from_millis(500);

/// A receiver listening on 127.0.0.1:`port`.
pub struct Receiver {
    port: u16,
    listener: TcpListener,
    expect: Expect,
    /// A stream that ends, or stays quiet this long, after its first
    /// byte is a cut, not an error (the sender's server restarted; the
    /// flow was destroyed mid-stream).
    may_cut: Option<Duration>,
    /// A cut must fall between units (the sender finishes the unit it
    /// started before it stops).
    cut_at_unit: bool,
}

impl Receiver {
    /// Listens on 127.0.0.1:`port` (before QEMU starts: it connects at once).
    pub fn listen(port: u16, expect: Expect) -> Result<Receiver, String> {
        let least = match expect.content {
            Content::Records { .. } => record::HEADER,
            Content::Bytes(_) => 16,
        };
        if expect.unit < least || !expect.unit.is_multiple_of(16) {
            return Err(format!(
                "units of {} bytes: use at least {least} bytes, a multiple of 16 (AES blocks)",
                expect.unit
            ));
        }
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
            format!(
                "cannot listen on 127.0.0.1:{port}: {e} (another run holding the port? stop it)"
            )
        })?;
        Ok(Receiver {
            port,
            listener,
            expect,
            may_cut: None,
            cut_at_unit: false,
        })
    }

    /// Lets the stream be cut short: it may end, or stay quiet for
    /// `quiet`, once some bytes came, if every whole unit before the cut
    /// is right (and, if `at_unit`, no unit is left half sent).
    pub fn may_cut(self, quiet: Duration, at_unit: bool) -> Self {
        Self {
            may_cut: Some(quiet),
            cut_at_unit: at_unit,
            ..self
        }
    }

    /// Takes QEMU's connection and reads the whole stream by `deadline`.
    pub fn receive(self, deadline: Instant) -> Result<Received, String> {
        let mut runs = self.receive_runs(1, deadline)?;
        Ok(runs.remove(0))
    }

    /// Takes QEMU's connection and reads `runs` copies of the stream by
    /// `deadline`, one after the other, each timed on its own; nothing
    /// may follow the last.
    pub fn receive_runs(self, runs: usize, deadline: Instant) -> Result<Vec<Received>, String> {
        let mut stream = self.accept(deadline)?;
        let mut out = Vec::new();
        for run in 0..runs {
            let got = self.run(&mut stream, deadline).map_err(|e| {
                if runs > 1 {
                    format!("run {} of {runs}: {e}", run + 1)
                } else {
                    e
                }
            })?;
            out.push(got);
            if got.cut {
                return Ok(out);
            }
        }
        let _ = stream.set_read_timeout(Some(QUIET));
        let mut extra = [0u8; 64];
        match stream.read(&mut extra) {
            Ok(n) if n > 0 => Err(format!(
                "127.0.0.1:{}: {n} bytes more came after the last of the {} units",
                self.port, self.expect.count
            )),
            _ => Ok(out),
        }
    }

    /// One run's bytes off `stream`.
    fn run(&self, stream: &mut TcpStream, deadline: Instant) -> Result<Received, String> {
        let port = self.port;
        let e = &self.expect;
        let total = e.len();
        let mut unit = vec![0u8; e.unit];
        let mut expected = vec![0u8; e.unit];
        let mut fill = 0;
        let mut got: u64 = 0;
        let mut first = None;
        let mut last = Instant::now();
        let cut = |got: u64, first: Option<Instant>, last: Instant, ended: bool| {
            let quiet = self.may_cut?;
            if got == 0 || !(ended || last.elapsed() >= quiet) {
                return None;
            }
            let half = got % e.unit as u64;
            if self.cut_at_unit && half != 0 {
                return Some(Err(format!(
                    "127.0.0.1:{port}: the stream was cut {half} bytes into unit {} (after {got} bytes); it must end between units",
                    got / e.unit as u64
                )));
            }
            Some(Ok(Received {
                bytes: got,
                span: first.map_or(Duration::ZERO, |f| last - f),
                cut: true,
            }))
        };
        while got < total {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "127.0.0.1:{port}: {got} of {total} bytes ({} of {} units) came before the deadline",
                    got / e.unit as u64,
                    e.count
                ));
            }
            let _ = stream.set_read_timeout(Some(left.min(Duration::from_millis(200))));
            match stream.read(&mut unit[fill..]) {
                Ok(0) => {
                    if let Some(r) = cut(got, first, last, true) {
                        return r;
                    }
                    return Err(format!(
                        "127.0.0.1:{port}: the stream ended after {got} of {total} bytes ({} of {} units)",
                        got / e.unit as u64,
                        e.count
                    ));
                }
                Ok(n) => {
                    first.get_or_insert_with(Instant::now);
                    last = Instant::now();
                    fill += n;
                    got += n as u64;
                }
                Err(err) if is_timeout(&err) => match cut(got, first, last, false) {
                    Some(r) => return r,
                    None => continue,
                },
                Err(err) => return Err(format!("127.0.0.1:{port}: reading failed: {err}")),
            }
            if fill == e.unit {
                let seq = u32::try_from(got / e.unit as u64 - 1).expect("count is a u32");
                self.check(seq, &mut unit, &mut expected)?;
                fill = 0;
            }
        }
        let span = first.map_or(Duration::ZERO, |f| last - f);
        Ok(Received {
            bytes: got,
            span,
            cut: false,
        })
    }

    fn accept(&self, deadline: Instant) -> Result<TcpStream, String> {
        let port = self.port;
        self.listener
            .set_nonblocking(true)
            .map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
        loop {
            match self.listener.accept() {
                Ok((s, _)) => {
                    s.set_nonblocking(false)
                        .map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
                    return Ok(s);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        return Err(format!("127.0.0.1:{port}: QEMU never connected (is the port in the net device's guest_forwards?)"));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(format!("127.0.0.1:{port}: accept failed: {e}")),
            }
        }
    }

    /// Unit `seq` as received (decrypted in place) against the one
    /// expected.
    fn check(&self, seq: u32, got: &mut [u8], expected: &mut [u8]) -> Result<(), String> {
        let e = &self.expect;
        if let Some((key, iv)) = e.cipher {
            Decryptor::new(&key.into(), &iv.into())
                .decrypt_padded_mut::<NoPadding>(got)
                .map_err(|_| "a unit is not whole AES blocks".to_string())?;
        }
        e.expected(seq, expected);
        match got.iter().zip(expected.iter()).position(|(a, b)| a != b) {
            None => Ok(()),
            Some(at) => Err(format!(
                "127.0.0.1:{}: unit {seq} (of {}) differs from the one expected at byte {at} (got {:#04x}, expected {:#04x}){}",
                self.port,
                e.count,
                got[at],
                expected[at],
                if at < 8 && matches!(e.content, Content::Records { .. }) {
                    " — a record lost, repeated or out of order"
                } else {
                    ""
                }
            )),
        }
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::BlockEncryptMut;
    use std::io::Write;

    type Encryptor = cbc::Encryptor<aes::Aes128>;

    fn stream(e: &Expect, damage: Option<usize>, extra: usize) -> Vec<u8> {
        let mut out = vec![0u8; e.count as usize * e.unit + extra];
        for (seq, r) in out.chunks_exact_mut(e.unit).enumerate() {
            e.expected(seq as u32, r);
            if let Some((k, iv)) = e.cipher {
                Encryptor::new(&k.into(), &iv.into())
                    .encrypt_padded_mut::<NoPadding>(r, e.unit)
                    .unwrap();
            }
        }
        if let Some(at) = damage {
            out[at] ^= 1;
        }
        out
    }

    /// Sends `bytes` to 127.0.0.1:`port` in `chunk`-byte writes, then
    /// stays quiet, not closed, for `linger` (as a guest forward's host
    /// side does). A receiver that found its error stops reading and
    /// closes, which can fail a write still under way on a loaded host:
    /// that is not the test's failure, so the rest is not sent.
    fn feed(
        port: u16,
        bytes: Vec<u8>,
        chunk: usize,
        linger: Duration,
    ) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            for c in bytes.chunks(chunk) {
                if s.write_all(c).is_err() {
                    return;
                }
            }
            std::thread::sleep(linger);
        })
    }

    fn send(expect: &Expect, bytes: Vec<u8>) -> Result<Received, String> {
        let rx = Receiver::listen(0, expect.clone())?;
        let port = rx.listener.local_addr().unwrap().port();
        let rx = Receiver { port, ..rx };
        let t = feed(port, bytes, 700, Duration::from_millis(700));
        let r = rx.receive(Instant::now() + Duration::from_secs(10));
        t.join().unwrap();
        r
    }

    fn plain() -> Expect {
        Expect::records(20, 256, 5)
    }

    #[test]
    fn a_whole_stream_passes_plain_and_encrypted() {
        let p = plain();
        assert_eq!(send(&p, stream(&p, None, 0)).unwrap().bytes, 20 * 256);
        let enc = plain().encrypted([7; 16], [9; 16]);
        assert!(send(&enc, stream(&enc, None, 0)).is_ok());
    }

    #[test]
    fn a_damaged_short_or_long_stream_fails() {
        let p = plain();
        let e = send(&p, stream(&p, Some(256 * 3 + 40), 0)).unwrap_err();
        assert!(e.contains("unit 3"), "{e}");
        let mut short = stream(&p, None, 0);
        short.truncate(256 * 19);
        let e = send(&p, short).unwrap_err();
        assert!(e.contains("ended after 4864"), "{e}");
        let e = send(&p, stream(&p, None, 10)).unwrap_err();
        assert!(e.contains("10 bytes more"), "{e}");
    }

    #[test]
    fn a_lost_record_is_found() {
        let p = plain();
        let mut s = stream(&p, None, 256);
        s.drain(256 * 5..256 * 6);
        let e = send(&p, s).unwrap_err();
        assert!(e.contains("unit 5") && e.contains("lost"), "{e}");
    }

    #[test]
    fn a_cut_stream_passes_only_if_allowed_and_right_up_to_the_cut() {
        let p = plain();
        let mut s = stream(&p, None, 0);
        s.truncate(256 * 7 + 100);
        let cut = |bytes: Vec<u8>, at_unit: bool| {
            let rx = Receiver::listen(0, p.clone()).unwrap();
            let port = rx.listener.local_addr().unwrap().port();
            let rx = Receiver { port, ..rx }.may_cut(Duration::from_millis(300), at_unit);
            let t = feed(port, bytes, usize::MAX, Duration::from_millis(1500));
            let r = rx.receive(Instant::now() + Duration::from_secs(10));
            t.join().unwrap();
            r
        };
        let r = cut(s.clone(), false).unwrap();
        assert!(r.cut && r.bytes == 256 * 7 + 100, "{r:?}");
        let e = cut(s.clone(), true).unwrap_err();
        assert!(e.contains("cut 100 bytes into unit 7"), "{e}");
        s.truncate(256 * 7);
        assert_eq!(cut(s.clone(), true).unwrap().bytes, 256 * 7);
        s[256 * 2 + 30] ^= 1;
        assert!(cut(s.clone(), false).unwrap_err().contains("unit 2"));
        // Not allowed: the same stream is an error.
        let mut short = stream(&p, None, 0);
        short.truncate(256 * 7);
        assert!(send(&p, short).is_err());
    }

    #[test]
    fn a_file_is_checked_chunk_by_chunk_over_several_runs() {
        let file: Vec<u8> = (0..4096u32).map(|i| (i * 7 + i / 256) as u8).collect();
        let e = Expect::bytes(Arc::new(file), 512)
            .unwrap()
            .encrypted([1; 16], [2; 16]);
        let one = stream(&e, None, 0);
        let rx = Receiver::listen(0, e.clone()).unwrap();
        let port = rx.listener.local_addr().unwrap().port();
        let rx = Receiver { port, ..rx };
        let mut two = one.clone();
        two.extend_from_slice(&one);
        // A byte of the second run's fourth chunk damaged.
        two[4096 + 3 * 512 + 100] ^= 0x40;
        let t = feed(port, two, usize::MAX, Duration::from_millis(700));
        let err = rx
            .receive_runs(2, Instant::now() + Duration::from_secs(10))
            .unwrap_err();
        t.join().unwrap();
        assert!(
            err.starts_with("run 2 of 2") && err.contains("unit 3"),
            "{err}"
        );
        assert!(Expect::bytes(Arc::new(vec![0; 100]), 64).is_err());
    }
}
