//! `ping` and `net_info`: the interface's questions, apart from sockets.

use conflux_socket_protocol::ops;
use conflux_socket_protocol::{NetInfo, SockAddr};

use crate::{Error, Net, NetError, Operand};

use Operand::Value;

impl Net {
    /// Sends one echo request to `ip` with sequence number `seq` and waits
    /// in the server for the reply (the round trip in µs, in steps of the
    /// server's clock: [`NetInfo::clock_us`]) or for `timeout_ms` to pass
    /// ([`NetError::TimedOut`]). If the server cannot park the request
    /// (every slot for waiting requests taken) the request is sent all the
    /// same and the call fails with `InProgress` (or `Already`); the same
    /// call later collects the outcome.
    pub fn ping(&mut self, ip: [u8; 4], seq: u16, timeout_ms: u64) -> Result<u64, Error> {
        let to = SockAddr::new(ip, 0).to_word();
        self.call(
            ops::PING,
            &[Value(to), Value(u64::from(seq)), Value(timeout_ms)],
        )
    }

    /// The interface's addresses, the server's socket counts and the
    /// frames it moved.
    pub fn info(&mut self) -> Result<NetInfo, Error> {
        let buf = Operand::Buf {
            region: 0,
            offset: 0,
            len: NetInfo::SIZE as u32,
        };
        if self.control().len() < NetInfo::SIZE {
            return Err(Error::TooLarge);
        }
        let n = self.call(ops::NET_INFO, &[buf])? as usize;
        let bytes = self.control().get(..n.min(NetInfo::SIZE)).unwrap_or(&[]);
        NetInfo::decode(bytes).ok_or(Error::Net(NetError::Invalid))
    }
}
