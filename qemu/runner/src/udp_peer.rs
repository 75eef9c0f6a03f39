//! The host's UDP sender for the flow benchmark and tests: datagrams that
//! are self-checking records (`conflux_flow_protocol::record`), each
//! encrypted on its own with AES-128-CBC under a key and IV the guest's
//! flow is given, sent to a forward on 127.0.0.1 (QEMU's user network,
//! `restrict=on`: nothing leaves this machine).
//!
//! Each datagram is `size` bytes (a multiple of 16, so CBC needs no
//! padding): record `seq` of the run's seed, filling it. The guest
//! decrypts and stores them; a check of what was stored counts every lost,
//! repeated or damaged record. Sending is paced in small bursts at
//! `rate` datagrams per second, because a burst beyond what QEMU's user
//! network queues is dropped before the guest sees it: the offered load is
//! part of what a run reports.

use aes::cipher::{block_padding::NoPadding, BlockEncryptMut, KeyIvInit};
use conflux_flow_protocol::record;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

type Encryptor = cbc::Encryptor<aes::Aes128>;

/// What to send.
#[derive(Clone, Copy, Debug)]
pub struct Blast {
    /// Host port of the UDP forward.
    pub port: u16,
    pub count: u32,
    /// Bytes per datagram: 16..=1472, a multiple of 16.
    pub size: usize,
    pub seed: u64,
    pub key: [u8; 16],
    pub iv: [u8; 16],
    /// Datagrams per second; 0 sends as fast as the socket takes them.
    pub rate: u32,
}

/// What was sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sent {
    pub datagrams: u32,
    pub elapsed: Duration,
}

/// Datagrams sent back to back before the pacing sleeps.
const BURST: u32 = 8;

impl Blast {
    /// Why this blast cannot be sent, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.size < record::HEADER || self.size > 1472 || !self.size.is_multiple_of(16) {
            return Err(format!(
                "a datagram of {} bytes: use 16..=1472 bytes, a multiple of 16 (AES-CBC blocks, one Ethernet frame)",
                self.size
            ));
        }
        Ok(())
    }

    /// Datagram `seq`: the record, encrypted.
    pub fn datagram(&self, seq: u32, out: &mut [u8]) {
        let out = &mut out[..self.size];
        record::write(out, self.seed, seq).expect("check() keeps the size above a record header");
        Encryptor::new(&self.key.into(), &self.iv.into())
            .encrypt_padded_mut::<NoPadding>(out, self.size)
            .expect("the size is whole AES blocks (check())");
    }

    /// Sends every datagram to 127.0.0.1:`port`.
    pub fn send(&self) -> Result<Sent, String> {
        self.check()?;
        let socket = UdpSocket::bind("127.0.0.1:0")
            .map_err(|e| format!("cannot open a UDP socket on 127.0.0.1: {e}"))?;
        socket
            .connect(("127.0.0.1", self.port))
            .map_err(|e| format!("cannot aim at 127.0.0.1:{}: {e}", self.port))?;
        let mut buf = vec![0u8; self.size];
        let start = Instant::now();
        let per_burst = (self.rate > 0)
            .then(|| Duration::from_secs_f64(f64::from(BURST) / f64::from(self.rate)));
        for seq in 0..self.count {
            self.datagram(seq, &mut buf);
            // The forward has nobody to refuse to; an error here is the
            // host's (buffer space), and the datagram is counted as lost
            // by the guest's check like any other.
            let _ = socket.send(&buf);
            if let Some(burst) = per_burst {
                if (seq + 1) % BURST == 0 {
                    let due = burst * ((seq + 1) / BURST);
                    if let Some(wait) = due.checked_sub(start.elapsed()) {
                        std::thread::sleep(wait);
                    }
                }
            }
        }
        Ok(Sent {
            datagrams: self.count,
            elapsed: start.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::BlockDecryptMut;

    const BLAST: Blast = Blast {
        port: 1,
        count: 3,
        size: 64,
        seed: 9,
        key: [3; 16],
        iv: [4; 16],
        rate: 0,
    };

    #[test]
    fn each_datagram_decrypts_to_the_next_record() {
        let mut checker = record::Checker::new(BLAST.seed);
        for seq in 0..3 {
            let mut d = [0u8; 64];
            BLAST.datagram(seq, &mut d);
            assert_ne!(&d[..4], b"CfxR", "encrypted");
            cbc::Decryptor::<aes::Aes128>::new(&BLAST.key.into(), &BLAST.iv.into())
                .decrypt_padded_mut::<NoPadding>(&mut d)
                .unwrap();
            checker.check(&d);
        }
        assert_eq!(checker.tally.good, 3);
        assert_eq!(checker.tally.damaged, 0);
    }

    #[test]
    fn sizes_outside_one_frame_or_not_whole_blocks_are_refused() {
        for size in [0, 8, 100, 1488] {
            assert!(Blast { size, ..BLAST }.check().is_err(), "{size}");
        }
        assert!(Blast {
            size: 1024,
            ..BLAST
        }
        .check()
        .is_ok());
    }

    #[test]
    fn datagrams_reach_a_local_socket_paced() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        rx.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let port = rx.local_addr().unwrap().port();
        let sent = Blast {
            port,
            count: 64,
            rate: 640,
            ..BLAST
        }
        .send()
        .unwrap();
        // 64 datagrams at 640/s: at least the last burst's due time.
        assert!(sent.elapsed >= Duration::from_millis(75), "{sent:?}");
        let mut buf = [0u8; 2048];
        let mut got = 0;
        while got < 64 {
            assert_eq!(rx.recv(&mut buf).unwrap(), 64);
            got += 1;
        }
    }
}
