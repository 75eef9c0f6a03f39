//! The socket operations as a `cosy_abi::Service`: the one implementation
//! behind both of the server's paths, a compound's `CALL`s and the
//! one-operation IPC (which builds `Args` itself), so both report the same
//! results and the same codes.
//!
//! Every operand is untrusted: it is decoded here, once, into a checked
//! type (`Handle`, `SockAddr`, `SockKind`, a length within its buffer)
//! before the stack sees it. Arguments are checked before the handle, so
//! a malformed request gets the same error whatever socket it names.

use conflux_socket_protocol::ops::{
    self, MAX_BACKLOG, MAX_PING_TIMEOUT_MS, MAX_WAIT_ENTRIES, SHUT_RD, SHUT_RDWR, SHUT_WR,
};
use conflux_socket_protocol::{Events, NetError, NetInfo, PollEntry, SockAddr, SockKind};
use cosy_abi::{Args, CallError, OpTable, Service};
use smoltcp::time::Duration;
use smoltcp::wire::Ipv4Address;

use crate::client::{Badge, Handle};
use crate::stack::Stack;

/// The socket operations for one client's request.
pub struct NetService<'a> {
    stack: &'a mut Stack,
    badge: Badge,
}

impl<'a> NetService<'a> {
    /// Operations on `stack` on behalf of client `badge`.
    pub fn new(stack: &'a mut Stack, badge: Badge) -> NetService<'a> {
        NetService { stack, badge }
    }
}

impl Service for NetService<'_> {
    fn ops(&self) -> OpTable<'_> {
        ops::TABLE
    }

    fn call(&mut self, opcode: u16, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
        let (s, b) = (&mut *self.stack, self.badge);
        let n = |r: Result<usize, NetError>| r.map(|n| n as u64);
        let unit = |r: Result<(), NetError>| r.map(|()| 0);
        Ok(match opcode {
            ops::NOP => 0,
            ops::SOCKET => s.socket(b, kind(args.value(0))?)?.to_word(),
            ops::BIND => unit(s.bind(b, handle(args, 0)?, addr(args.value(1))?))?,
            ops::LISTEN => unit(s.listen(b, handle(args, 0)?, backlog(args.value(1))?))?,
            ops::ACCEPT => s.accept(b, handle(args, 0)?)?.to_word(),
            ops::CONNECT => s.connect(b, handle(args, 0)?, addr(args.value(1))?)?,
            ops::SEND => n(s.send(b, handle(args, 0)?, data(args, 1, 2)?))?,
            ops::RECV => {
                let h = handle(args, 0)?;
                n(s.recv(b, h, data_mut(args, 1, 2)?))?
            }
            ops::SHUTDOWN => {
                let (rd, wr) = halves(args.value(1))?;
                unit(s.shutdown(b, handle(args, 0)?, rd, wr))?
            }
            ops::CLOSE => unit(s.close(b, handle(args, 0)?))?,
            ops::ABORT => unit(s.abort(b, handle(args, 0)?))?,
            ops::SENDTO => {
                let to = addr(args.value(3))?;
                n(s.send_to(b, handle(args, 0)?, data(args, 1, 2)?, to))?
            }
            ops::RECVFROM => recv_from(s, b, args)?,
            ops::SET_NONBLOCKING => {
                let on = flag(args.value(1))?;
                unit(s.set_nonblocking(b, handle(args, 0)?, on))?
            }
            ops::SET_NODELAY => {
                let on = flag(args.value(1))?;
                unit(s.set_nodelay(b, handle(args, 0)?, on))?
            }
            ops::WAIT => wait(s, b, args)?,
            ops::GETSOCKNAME => s.sock_name(b, handle(args, 0)?)?.to_word(),
            ops::GETPEERNAME => s.peer_name(b, handle(args, 0)?)?.to_word(),
            ops::READINESS => u64::from(s.readiness(b, handle(args, 0)?)?.0),
            ops::PING => {
                let (seq, timeout) = (seq(args.value(1))?, ping_timeout(args.value(2))?);
                s.ping(b, ping_target(args.value(0))?, seq, timeout)?
            }
            ops::NET_INFO => {
                let out = args.buf_mut(0)?;
                if !s.info().encode(out) {
                    return Err(NetError::BadBuffer.into());
                }
                NetInfo::SIZE as u64
            }
            other => return Err(CallError::UnknownOp { opcode: other }),
        })
    }
}

fn handle(args: &Args<'_, '_>, i: usize) -> Result<Handle, NetError> {
    Handle::from_word(args.value(i))
}

fn kind(word: u64) -> Result<SockKind, NetError> {
    SockKind::from_word(word).ok_or(NetError::ProtocolNotSupported)
}

fn addr(word: u64) -> Result<SockAddr, NetError> {
    SockAddr::from_word(word).ok_or(NetError::Invalid)
}

/// `ping`'s target: an address word with port 0 (the stack then checks
/// it names one reachable host).
fn ping_target(word: u64) -> Result<Ipv4Address, NetError> {
    match SockAddr::from_word(word) {
        Some(SockAddr {
            ip: [a, b, c, d],
            port: 0,
        }) => Ok(Ipv4Address::new(a, b, c, d)),
        _ => Err(NetError::Invalid),
    }
}

fn seq(word: u64) -> Result<u16, NetError> {
    u16::try_from(word).map_err(|_| NetError::Invalid)
}

fn ping_timeout(ms: u64) -> Result<Duration, NetError> {
    match ms {
        1..=MAX_PING_TIMEOUT_MS => Ok(Duration::from_millis(ms)),
        _ => Err(NetError::Invalid),
    }
}

fn backlog(word: u64) -> Result<usize, NetError> {
    match word {
        1..=MAX_BACKLOG => Ok(word as usize),
        _ => Err(NetError::Invalid),
    }
}

fn flag(word: u64) -> Result<bool, NetError> {
    match word {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(NetError::Invalid),
    }
}

/// `shutdown`'s `how` as (receiving half, sending half).
fn halves(how: u64) -> Result<(bool, bool), NetError> {
    match how {
        SHUT_RD => Ok((true, false)),
        SHUT_WR => Ok((false, true)),
        SHUT_RDWR => Ok((true, true)),
        _ => Err(NetError::Invalid),
    }
}

/// The first `len` (operand `len_i`) bytes of buffer operand `buf_i`.
fn data<'b>(args: &'b Args<'_, '_>, buf_i: usize, len_i: usize) -> Result<&'b [u8], CallError> {
    let len = usize::try_from(args.value(len_i)).map_err(|_| NetError::BadBuffer)?;
    Ok(args.buf(buf_i)?.get(..len).ok_or(NetError::BadBuffer)?)
}

/// As [`data`], writable.
fn data_mut<'b>(
    args: &'b mut Args<'_, '_>,
    buf_i: usize,
    len_i: usize,
) -> Result<&'b mut [u8], CallError> {
    let len = usize::try_from(args.value(len_i)).map_err(|_| NetError::BadBuffer)?;
    Ok(args
        .buf_mut(buf_i)?
        .get_mut(..len)
        .ok_or(NetError::BadBuffer)?)
}

/// `recvfrom(h, buf, len, from)`: the sender's record buffer is checked
/// before a datagram is taken, so a bad one loses nothing.
fn recv_from(s: &mut Stack, b: Badge, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
    let h = handle(args, 0)?;
    if args.buf(3)?.len() < SockAddr::SIZE {
        return Err(NetError::BadBuffer.into());
    }
    let (n, from) = s.recv_from(b, h, data_mut(args, 1, 2)?)?;
    from.encode(args.buf_mut(3)?);
    Ok(n as u64)
}

/// `wait(entries, count, timeout)`: every entry is decoded before any is
/// written, so a bad one leaves the list as the client wrote it.
fn wait(s: &mut Stack, b: Badge, args: &mut Args<'_, '_>) -> Result<u64, CallError> {
    let count = args.value(1);
    if count > MAX_WAIT_ENTRIES {
        return Err(NetError::TooManyEntries.into());
    }
    let count = count as usize;
    let list = args
        .buf(0)?
        .get(..count * PollEntry::SIZE)
        .ok_or(NetError::BadBuffer)?;
    let mut entries = [None; MAX_WAIT_ENTRIES as usize];
    for (slot, bytes) in entries.iter_mut().zip(list.chunks_exact(PollEntry::SIZE)) {
        *slot = Some(PollEntry::decode(bytes).ok_or(NetError::Invalid)?);
    }
    let always = Events::ERROR.union(Events::HANGUP);
    let mut ready = 0;
    let out = args.buf_mut(0)?;
    for (e, bytes) in entries
        .iter_mut()
        .flatten()
        .zip(out.chunks_exact_mut(PollEntry::SIZE))
    {
        e.revents = match s.readiness(b, Handle(e.handle)) {
            Ok(now) => now.intersect(e.events.union(always)),
            Err(_) => Events::INVALID,
        };
        ready += u64::from(!e.revents.is_empty());
        e.encode(bytes);
    }
    if ready == 0 && args.value(2) != 0 {
        return Err(NetError::WouldBlock.into());
    }
    Ok(ready)
}
