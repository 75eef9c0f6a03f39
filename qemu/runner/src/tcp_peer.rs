//! The host's TCP receiver for flows' `tcp` sinks (tests and the
//! `flow-file-tcp` benchmark): it listens on 127.0.0.1:`port` before QEMU
//! starts — a guest forward (`guestfwd=tcp:10.0.2.100:G-tcp:127.0.0.1:H`)
//! connects to its host port when QEMU starts, and carries the guest's
//! connection to 10.0.2.100:G over that one host connection — takes the
//! connection, and reads the stream.
//!
//! The stream must be exactly `count` self-checking records
//! (`conflux_flow_protocol::record`) of `size` bytes from `seed`, in
//! order, each encrypted on its own with AES-128-CBC when a key and IV are
//! given (decrypted here): every record is compared whole with the one
//! expected, and a byte more after the last one is an error too.

use aes::cipher::{block_padding::NoPadding, BlockDecryptMut, KeyIvInit};
use conflux_flow_protocol::record;
use std::io::{ErrorKind, Read};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

type Decryptor = cbc::Decryptor<aes::Aes128>;

/// What to expect.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    pub count: u32,
    /// Bytes per record, a multiple of 16.
    pub size: usize,
    pub seed: u64,
    /// AES-128-CBC key and IV, if the records come encrypted.
    pub cipher: Option<([u8; 16], [u8; 16])>,
}

/// What came, when every record did.
#[derive(Clone, Copy, Debug)]
pub struct Received {
    pub bytes: u64,
    /// From the first byte to the last.
    pub span: Duration,
}

/// How long the stream must stay quiet after the last record.
const QUIET: Duration = Duration::from_millis(500);

/// A receiver listening on 127.0.0.1:`port`.
pub struct Receiver {
    port: u16,
    listener: TcpListener,
    expect: Expect,
}

impl Receiver {
    /// Listens on 127.0.0.1:`port` (before QEMU starts: it connects at once).
    pub fn listen(port: u16, expect: Expect) -> Result<Receiver, String> {
        if expect.size < record::HEADER || !expect.size.is_multiple_of(16) {
            return Err(format!(
                "records of {} bytes: use at least {} bytes, a multiple of 16 (AES blocks)",
                expect.size,
                record::HEADER
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
        })
    }

    /// Takes QEMU's connection and reads the whole stream by `deadline`.
    pub fn receive(self, deadline: Instant) -> Result<Received, String> {
        let port = self.port;
        let mut stream = self.accept(deadline)?;
        let e = self.expect;
        let total = u64::from(e.count) * e.size as u64;
        let mut record = vec![0u8; e.size];
        let mut expected = vec![0u8; e.size];
        let mut fill = 0;
        let mut got: u64 = 0;
        let mut first = None;
        let mut last = Instant::now();
        while got < total {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "127.0.0.1:{port}: {got} of {total} bytes ({} of {} records) came before the deadline",
                    got / e.size as u64,
                    e.count
                ));
            }
            let _ = stream.set_read_timeout(Some(left.min(Duration::from_millis(200))));
            match stream.read(&mut record[fill..]) {
                Ok(0) => {
                    return Err(format!(
                        "127.0.0.1:{port}: the stream ended after {got} of {total} bytes ({} of {} records)",
                        got / e.size as u64,
                        e.count
                    ))
                }
                Ok(n) => {
                    first.get_or_insert_with(Instant::now);
                    last = Instant::now();
                    fill += n;
                    got += n as u64;
                }
                Err(err) if is_timeout(&err) => continue,
                Err(err) => return Err(format!("127.0.0.1:{port}: reading failed: {err}")),
            }
            if fill == e.size {
                let seq = u32::try_from(got / e.size as u64 - 1).expect("count is a u32");
                self.check(seq, &mut record, &mut expected)?;
                fill = 0;
            }
        }
        let span = first.map_or(Duration::ZERO, |f| last - f);
        // Nothing may follow the last record.
        let _ = stream.set_read_timeout(Some(QUIET));
        let mut extra = [0u8; 64];
        match stream.read(&mut extra) {
            Ok(n) if n > 0 => Err(format!(
                "127.0.0.1:{port}: {n} bytes more came after the last of the {} records",
                e.count
            )),
            _ => Ok(Received { bytes: got, span }),
        }
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

    /// Record `seq` as received (decrypted in place) against the one
    /// expected.
    fn check(&self, seq: u32, got: &mut [u8], expected: &mut [u8]) -> Result<(), String> {
        let e = self.expect;
        if let Some((key, iv)) = e.cipher {
            Decryptor::new(&key.into(), &iv.into())
                .decrypt_padded_mut::<NoPadding>(got)
                .map_err(|_| "a record is not whole AES blocks".to_string())?;
        }
        record::write(expected, e.seed, seq).expect("listen() keeps the size above a header");
        match got.iter().zip(expected.iter()).position(|(a, b)| a != b) {
            None => Ok(()),
            Some(at) => Err(format!(
                "127.0.0.1:{}: record {seq} (of {}) differs from the one expected at byte {at} (got {:#04x}, expected {:#04x}){}",
                self.port,
                e.count,
                got[at],
                expected[at],
                if at < 8 {
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

    fn stream(e: Expect, damage: Option<usize>, extra: usize) -> Vec<u8> {
        let mut out = vec![0u8; e.count as usize * e.size + extra];
        for (seq, r) in out.chunks_exact_mut(e.size).enumerate() {
            record::write(r, e.seed, seq as u32).unwrap();
            if let Some((k, iv)) = e.cipher {
                Encryptor::new(&k.into(), &iv.into())
                    .encrypt_padded_mut::<NoPadding>(r, e.size)
                    .unwrap();
            }
        }
        if let Some(at) = damage {
            out[at] ^= 1;
        }
        out
    }

    fn send(port_expect: Expect, bytes: Vec<u8>) -> Result<Received, String> {
        let rx = Receiver::listen(0, port_expect)?;
        let port = rx.listener.local_addr().unwrap().port();
        let rx = Receiver { port, ..rx };
        let t = std::thread::spawn(move || {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            for chunk in bytes.chunks(700) {
                s.write_all(chunk).unwrap();
            }
            std::thread::sleep(Duration::from_millis(700));
        });
        let r = rx.receive(Instant::now() + Duration::from_secs(10));
        t.join().unwrap();
        r
    }

    const PLAIN: Expect = Expect {
        count: 20,
        size: 256,
        seed: 5,
        cipher: None,
    };

    #[test]
    fn a_whole_stream_passes_plain_and_encrypted() {
        assert_eq!(send(PLAIN, stream(PLAIN, None, 0)).unwrap().bytes, 20 * 256);
        let enc = Expect {
            cipher: Some(([7; 16], [9; 16])),
            ..PLAIN
        };
        assert!(send(enc, stream(enc, None, 0)).is_ok());
    }

    #[test]
    fn a_damaged_short_or_long_stream_fails() {
        let e = send(PLAIN, stream(PLAIN, Some(256 * 3 + 40), 0)).unwrap_err();
        assert!(e.contains("record 3"), "{e}");
        let mut short = stream(PLAIN, None, 0);
        short.truncate(256 * 19);
        let e = send(PLAIN, short).unwrap_err();
        assert!(e.contains("ended after 4864"), "{e}");
        let e = send(PLAIN, stream(PLAIN, None, 10)).unwrap_err();
        assert!(e.contains("10 bytes more"), "{e}");
    }

    #[test]
    fn a_lost_record_is_found() {
        let mut s = stream(PLAIN, None, 256);
        s.drain(256 * 5..256 * 6);
        let e = send(PLAIN, s).unwrap_err();
        assert!(e.contains("record 5") && e.contains("lost"), "{e}");
    }
}
