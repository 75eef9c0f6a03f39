//! The memory-centric path: every chunk passes through this task.
//!
//! Read (the file server copies the chunk into this task's control region
//! and on into its buffer), encrypt (copied into the crypto driver's
//! shared region; the device writes the ciphertext beside it, copied
//! back), send (copied into the network server's staging area; smoltcp
//! copies it into the socket). Three round trips to three servers per
//! chunk, which is the flow paper's "memory as data cache" baseline.

use crate::plan::Result;
use crate::{fail, FILE, HOST, IV, KEY};
use alloc::vec;
use conflux_crypto_client::{Algorithm, Caps, Connection as Crypto, Direction, Session};
use conflux_fs_client::Fs;
use conflux_fs_protocol::ops::O_RDONLY;
use conflux_net_client::{Net, SockAddr, SockKind};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;

use crate::config;

/// Where plaintext and ciphertext sit in the crypto data area (the key at
/// 0); room for the plan's largest chunk each.
const SRC: usize = 4096;
const DST: usize = SRC + 65536;

/// The connections the memory-centric path uses.
pub struct Memory {
    fs: Fs,
    net: Net,
    crypto: Crypto,
    session: Session,
}

impl Memory {
    pub fn open() -> Self {
        let fs = Fs::connect(conflux_fs_client::manifest_caps!())
            .unwrap_or_else(|e| fail(&alloc::format!("cannot reach the file server: {e}")));
        let net = Net::connect(conflux_net_client::manifest_caps!())
            .unwrap_or_else(|e| fail(&alloc::format!("cannot reach the network server: {e}")));
        let mut crypto = Crypto::open(Caps {
            region: config::caps::CRYPTO0,
            addr: config::caps::CRYPTO0_ADDR,
            size: config::caps::CRYPTO0_SIZE,
            done: config::caps::CRYPTO0_DONE,
            doorbell: config::caps::CRYPTO0_DOORBELL,
        })
        .unwrap_or_else(|e| fail(&alloc::format!("cannot open the crypto connection: {e}")));
        crypto.data()[..16].copy_from_slice(&KEY);
        let session = crypto
            .create_session(Algorithm::Cbc, Direction::Encrypt, 0, 16)
            .unwrap_or_else(|e| {
                fail(&alloc::format!(
                    "the crypto driver refused a session: {e:?}"
                ))
            });
        if crypto.data().len() < DST + 65536 {
            fail("the crypto driver's shared region has no room for two 64 KiB chunks");
        }
        Self {
            fs,
            net,
            crypto,
            session,
        }
    }

    /// The file's size.
    pub fn file_size(&mut self) -> u64 {
        self.fs
            .stat(FILE)
            .unwrap_or_else(|e| fail(&alloc::format!("cannot stat {FILE}: {e}")))
            .size
    }

    /// One run: the whole file in `chunk`-byte pieces to the host's
    /// guest-forwarded `port`.
    pub fn run(&mut self, chunk: u32, port: u16) -> Result {
        let fd = self
            .fs
            .open(FILE, O_RDONLY, 0)
            .unwrap_or_else(|e| fail(&alloc::format!("cannot open {FILE}: {e}")));
        let size = self
            .fs
            .fstat(fd)
            .unwrap_or_else(|e| fail(&alloc::format!("cannot stat {FILE}: {e}")))
            .size;
        let sock = self
            .net
            .socket(SockKind::Stream)
            .unwrap_or_else(|e| fail(&alloc::format!("cannot open a TCP socket: {e}")));
        if let Err(e) = self.net.connect_to(sock, SockAddr::new(HOST, port)) {
            fail(&alloc::format!(
                "cannot connect to 10.0.2.100:{port}: {e} (is it in the net device's guest_forwards, and does the host listen?)"
            ));
        }
        println!("ready config=memory-centric chunk={chunk} port={port}");
        let mut buf = vec![0u8; chunk as usize];
        let (mut sent, mut buffers) = (0u64, 0u64);
        let start = rdtsc();
        while sent < size {
            let n = match self.fs.pread(fd, &mut buf, sent) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => fail(&alloc::format!("reading {FILE} at {sent}: {e}")),
            };
            // CBC takes whole blocks; the plan's file is whole chunks.
            if n % 16 != 0 {
                fail(&alloc::format!(
                    "{FILE}: a read of {n} bytes at {sent} is not whole AES blocks"
                ));
            }
            self.crypto.data()[SRC..SRC + n].copy_from_slice(&buf[..n]);
            let (src, dst) = (SRC as u64, DST as u64);
            if let Err(e) = self.crypto.encrypt(self.session, &IV, src, dst, n as u32) {
                fail(&alloc::format!(
                    "the crypto driver refused an encrypt: {e:?}"
                ));
            }
            buf[..n].copy_from_slice(&self.crypto.data()[DST..DST + n]);
            if let Err(e) = self.net.send_all(sock, &buf[..n]) {
                fail(&alloc::format!("sending to 10.0.2.100:{port}: {e}"));
            }
            sent += n as u64;
            buffers += 1;
        }
        let cycles = rdtsc() - start;
        // Closing sends what the socket still holds, then the FIN.
        let _ = self.net.close(sock);
        let _ = self.fs.close(fd);
        Result {
            bytes: sent,
            buffers,
            cycles,
        }
    }
}
