//! The `udpto` sink: each buffer one datagram to the peer.
//!
//! A datagram the socket cannot queue now (its send buffer is full) is a
//! transient failure, sent again a tick later; one the network server
//! refuses (too large for a datagram, no route) is dropped and counted,
//! said once on the console. After the network server restarted, the
//! socket is gone: as for a stream, the sink says so and drops what
//! follows.

use crate::work::socket;
use conflux_flow_protocol::stage::{Peer, StageStatus};
use conflux_flow_stage::Failure;
use conflux_net_client::{Error, Net, NetError, SockAddr, SockKind, Socket};
use conflux_userlib::println;

/// One flow's datagram socket.
pub struct Datagrams {
    peer: Peer,
    to: SockAddr,
    socket: Socket,
    /// A refusal was said on the console already.
    said: bool,
    gone: bool,
    /// Datagrams sent, and their bytes (STATS figures).
    pub buffers: u64,
    pub bytes: u64,
}

impl Datagrams {
    /// A non-blocking datagram socket for `peer` (bound to a free port at
    /// its first send).
    pub fn open(net: &mut Net, peer: Peer) -> Result<Datagrams, StageStatus> {
        let made =
            socket(net, SockKind::Datagram).and_then(|s| net.set_nonblocking(s, true).map(|()| s));
        match made {
            Ok(socket) => Ok(Datagrams {
                peer,
                to: SockAddr::new(peer.addr, peer.port),
                socket,
                said: false,
                gone: false,
                buffers: 0,
                bytes: 0,
            }),
            Err(e) => {
                println!("udpto sink to {peer}: no socket ({e}); START refused. Check that the network server runs and this task may open another socket");
                Err(StageStatus::DeviceRefused)
            }
        }
    }

    /// The flow's socket.
    pub fn socket(&self) -> Socket {
        self.socket
    }

    /// Sends `src` as one datagram.
    pub fn take(&mut self, net: &mut Net, src: &[u8]) -> Result<(), Failure> {
        if self.gone {
            return Err(Failure::Permanent);
        }
        match net.send_to(self.socket, src, self.to) {
            Ok(n) => {
                self.buffers += 1;
                self.bytes += n as u64;
                Ok(())
            }
            Err(Error::Net(NetError::WouldBlock)) => Err(Failure::Transient),
            Err(e @ (Error::ServerRestarted | Error::Net(NetError::BadSocket))) => {
                self.gone = true;
                println!(
                    "udpto sink to {}: the socket is gone ({e}: the network server restarted) after {} datagrams; this flow's later buffers are dropped and counted. Destroy the flow and create it again",
                    self.peer, self.buffers
                );
                Err(Failure::Permanent)
            }
            Err(e) => {
                if !self.said {
                    self.said = true;
                    println!(
                        "udpto sink to {}: a {}-byte datagram was refused ({e}); it and any other refused one are dropped and counted. A datagram must fit the network server's UDP buffer and this task's staging area",
                        self.peer,
                        src.len()
                    );
                }
                Err(Failure::Permanent)
            }
        }
    }

    pub fn close(self, net: &mut Net) {
        let _ = net.close(self.socket);
    }
}
