//! The memory-centric path: every datagram passes through this task.
//!
//! Receive (the network server copies the payload into this task's
//! buffer), decrypt (copied into the crypto driver's shared region; the
//! device writes the plaintext beside it), store (copied into a block
//! buffer, written when full). Three copies and four IPC round trips per
//! datagram, which is the paper's "memory as data cache" baseline.

use crate::disk::{self, Writer};
use crate::plan::{Plan, Result, FIRST_MS, QUIET_MS};
use crate::{fail, IV, KEY};
use conflux_blk_client::Connection as Blk;
use conflux_crypto_client::{Algorithm, Caps, Connection as Crypto, Direction, Session};
use conflux_net_client::{Events, Net, NetError, PollEntry, SockAddr, SockKind};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;

use crate::config;

/// The guest UDP port the memory-centric runs listen on.
pub const PORT: u16 = 5710;
/// QEMU's user-network gateway.
const GATEWAY: [u8; 4] = [10, 0, 2, 2];
/// Where ciphertext and plaintext sit in the crypto data area (the key at 0).
const SRC: u64 = 4096;
const DST: u64 = 8192;

/// The connections the memory-centric path uses.
pub struct Memory {
    net: Net,
    crypto: Crypto,
    session: Session,
    blk: Blk,
}

impl Memory {
    pub fn open() -> Self {
        let mut net = Net::connect(conflux_net_client::manifest_caps!())
            .unwrap_or_else(|e| fail(&alloc::format!("cannot reach the network server: {e}")));
        // QEMU's user network learns the guest's MAC address only from
        // the guest's own frames, and drops datagrams for it meanwhile:
        // one ping of the gateway first, so the first datagrams of a run
        // are not lost before they reach the guest.
        if let Err(e) = net.ping(GATEWAY, 1, 2000) {
            println!("ping of the gateway failed ({e}); the first datagrams may be lost");
        }
        let mut crypto = Crypto::open(Caps {
            region: crate::config::caps::CRYPTO0,
            addr: crate::config::caps::CRYPTO0_ADDR,
            size: crate::config::caps::CRYPTO0_SIZE,
            done: crate::config::caps::CRYPTO0_DONE,
            doorbell: crate::config::caps::CRYPTO0_DOORBELL,
        })
        .unwrap_or_else(|e| fail(&alloc::format!("cannot open the crypto connection: {e}")));
        crypto.data()[..16].copy_from_slice(&KEY);
        let session = crypto
            .create_session(Algorithm::Cbc, Direction::Decrypt, 0, 16)
            .unwrap_or_else(|e| {
                fail(&alloc::format!(
                    "the crypto driver refused a session: {e:?}"
                ))
            });
        Self {
            net,
            crypto,
            session,
            blk: disk::open(),
        }
    }

    /// The block connection (the flow runs read back through it too).
    pub fn blk(&mut self) -> &mut Blk {
        &mut self.blk
    }

    /// One run: datagrams of `size` bytes until `plan.count` came or the
    /// line went quiet, stored from sector `first_sector`.
    pub fn run(&mut self, size: u32, plan: &Plan, first_sector: u64) -> Result {
        let sock = self
            .net
            .socket(SockKind::Datagram)
            .unwrap_or_else(|e| fail(&alloc::format!("cannot open a UDP socket: {e}")));
        let any = SockAddr {
            ip: [0; 4],
            port: PORT,
        };
        if let Err(e) = self.net.bind(sock, any) {
            fail(&alloc::format!("cannot bind UDP port {PORT}: {e}"));
        }
        if let Err(e) = self.net.set_nonblocking(sock, true) {
            fail(&alloc::format!(
                "cannot make the UDP socket non-blocking: {e}"
            ));
        }
        println!("ready config=memory-centric size={size} port={PORT}");
        let mut packet = [0u8; 2048];
        let mut writer = Writer::new(&mut self.blk, first_sector);
        let (mut stored, mut start, mut last) = (0u64, None, 0u64);
        // `last` is taken at each stored datagram, so a run that ends by
        // the line going quiet does not count the quiet time.
        while stored < u64::from(plan.count) {
            let timeout = if start.is_some() { QUIET_MS } else { FIRST_MS };
            let mut e = [PollEntry {
                handle: sock.0 as u32,
                events: Events::READABLE,
                revents: Events::NONE,
            }];
            match self.net.wait(&mut e, timeout) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => fail(&alloc::format!("wait on the UDP socket failed: {e}")),
            }
            loop {
                let n = match self.net.recv(sock, &mut packet) {
                    Ok(n) => n,
                    Err(conflux_net_client::Error::Net(NetError::WouldBlock)) => break,
                    Err(e) => fail(&alloc::format!("recv on the UDP socket failed: {e}")),
                };
                start.get_or_insert_with(rdtsc);
                // A datagram that is not whole AES blocks cannot be a record
                // of this run; it is not stored (the check counts it missing).
                if n == 0 || n % 16 != 0 || n > 1024 {
                    continue;
                }
                self.crypto.data()[SRC as usize..SRC as usize + n].copy_from_slice(&packet[..n]);
                if let Err(e) = self.crypto.decrypt(self.session, &IV, SRC, DST, n as u32) {
                    fail(&alloc::format!(
                        "the crypto driver refused a decrypt: {e:?}"
                    ));
                }
                let plain = &self.crypto.data()[DST as usize..DST as usize + n];
                packet[..n].copy_from_slice(plain);
                writer.push(&packet[..n]);
                stored += 1;
                last = rdtsc();
                if stored == u64::from(plan.count) {
                    break;
                }
            }
        }
        writer.flush();
        let (first, end) = writer.span();
        let _ = self.net.close(sock);
        let tally = disk::check(&mut self.blk, first, end, size as usize, stored);
        Result {
            stored,
            cycles: start.map_or(0, |s| last - s),
            tally: Some(tally),
        }
    }
}
