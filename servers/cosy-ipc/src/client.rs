//! A client's session with a Cosy server (feature `client`): connecting
//! with the control region, attaching data regions, one-operation calls,
//! and compounds placed in the control region and run, prepared or
//! released. Each server's client library (`conflux-fs-client`,
//! `conflux-net-client`) wraps a [`Session`] with its typed operations and
//! turns a [`Failure`] into its own error type.

use alloc::vec::Vec;

use conflux_abi::SysError;
use conflux_userlib::ipc::{set_long_word, Endpoint, Message, Region};
use conflux_userlib::window::Window;

use crate::{
    BufArg, RunReply, ATTACH, CONNECT, DETACH, OK, PARAMS, PREPARE, RELEASE, RUN, RUN_PREPARED,
    VAN_BASE, VERSION,
};

/// The capabilities a session needs, from the task's `config::caps`.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// The server's endpoint (with a badge only this task has).
    pub endpoint: usize,
    /// The control region, and where the manifest mapped it.
    pub control: usize,
    pub control_addr: u64,
}

/// Why a request failed, before the client library names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The server answered with a status other than OK: the reply's label
    /// and first word (the op a verifier refusal names).
    Status { label: u32, word0: u64 },
    /// The IPC itself failed (`DeadPeer`: the server restarted).
    Ipc(SysError),
    /// A compound, operand or parameter list does not fit.
    TooLarge,
}

impl From<SysError> for Failure {
    fn from(e: SysError) -> Self {
        Failure::Ipc(e)
    }
}

/// One operand of a per-call request.
#[derive(Clone, Copy, Debug)]
pub enum Operand {
    Value(u64),
    /// `len` bytes at `offset` of region `region` (0: control).
    Buf {
        region: u8,
        offset: u32,
        len: u32,
    },
}

impl Operand {
    /// The operand's word, as a request or a ring entry carries it (a
    /// buffer packed as [`BufArg`]); `TooLarge` if its offset or length
    /// does not fit the packing.
    pub fn word(&self) -> Result<u64, Failure> {
        match *self {
            Operand::Value(v) => Ok(v),
            Operand::Buf {
                region,
                offset,
                len,
            } => BufArg {
                region,
                offset,
                len,
            }
            .pack()
            .ok_or(Failure::TooLarge),
        }
    }
}

pub use crate::retry::RECONNECT_TRIES;

/// A connection to a Cosy server.
pub struct Session {
    caps: Caps,
    ep: Endpoint,
    control: Window,
    data: Vec<(usize, Window)>,
    max_steps: u64,
    max_ops: u64,
    /// A call found the server gone (`DeadPeer`): it died or restarted,
    /// and the session, with every handle made in it, went with it.
    lost: bool,
    /// Where the last run's compound is in the control region (its
    /// results area with it), for [`Session::last_compound`].
    last: Option<(usize, usize)>,
    /// Where each prepared compound was placed: handle, offset, length.
    prepared: Vec<(u64, usize, usize)>,
}

impl Session {
    /// Connects: shares the control region with the server.
    pub fn connect(caps: Caps) -> Result<Session, Failure> {
        // The manifest mapped the region at start; map it again as a
        // window (which learns its size from the kernel).
        let _ = Region(caps.control).unmap();
        let control = Window::map(caps.control, caps.control_addr, true)?;
        let mut s = Session {
            caps,
            ep: Endpoint(caps.endpoint),
            control,
            data: Vec::new(),
            max_steps: 0,
            max_ops: 0,
            lost: false,
            last: None,
            prepared: Vec::new(),
        };
        s.hello()?;
        Ok(s)
    }

    fn hello(&mut self) -> Result<(), Failure> {
        let msg = Message::new(CONNECT, &[VERSION]).lending(self.caps.control);
        let words = self.exchange(&msg)?;
        self.max_steps = words[1];
        self.max_ops = words[2];
        Ok(())
    }

    /// Connects again (after the server restarted): the control region
    /// and every data region are shared again, in the same order, so
    /// region numbers stay valid. The first call through a capability
    /// made for the old server instance fails with `DeadPeer` (the kernel
    /// refreshes the capability then), and a server that died again
    /// meanwhile does too: such a reconnect is tried again, at most
    /// [`RECONNECT_TRIES`] more times, then its `DeadPeer` returned.
    pub fn reconnect(&mut self) -> Result<(), Failure> {
        crate::retry::retry_while_gone(&Failure::Ipc(SysError::DeadPeer), || self.connect_again())
    }

    /// One try of [`Session::reconnect`].
    fn connect_again(&mut self) -> Result<(), Failure> {
        self.prepared.clear();
        self.hello()?;
        let slots: Vec<usize> = self.data.iter().map(|(slot, _)| *slot).collect();
        for slot in slots {
            self.exchange(&Message::new(ATTACH, &[]).lending(slot))?;
        }
        self.lost = false;
        Ok(())
    }

    /// Whether a call found the server gone since the session was made
    /// (or last remade by [`Session::reconnect`]). A client that keeps
    /// handles across calls (open files, sockets) must then forget them
    /// without using them: after the reconnect a handle number may name
    /// something of the new session.
    pub fn lost(&self) -> bool {
        self.lost
    }

    /// Shares the region in `slot` (mapped by the manifest at `addr`) as
    /// the next data region; returns its number in buffer operands.
    pub fn attach(&mut self, slot: usize, addr: u64) -> Result<u8, Failure> {
        let _ = Region(slot).unmap();
        let window = Window::map(slot, addr, true)?;
        let number = self.exchange(&Message::new(ATTACH, &[]).lending(slot))?[0];
        self.data.push((slot, window));
        Ok(number as u8)
    }

    /// Ends the session.
    pub fn detach(&mut self) -> Result<(), Failure> {
        self.exchange(&Message::new(DETACH, &[])).map(drop)
    }

    /// The control region's bytes (region 0 of every compound).
    pub fn control(&mut self) -> &mut [u8] {
        self.control.bytes()
    }

    /// The control region's size.
    pub fn control_len(&self) -> usize {
        self.control.len()
    }

    /// Data region `number`'s bytes (1 for the first attached).
    pub fn data(&mut self, number: u8) -> Option<&mut [u8]> {
        let i = usize::from(number).checked_sub(1)?;
        self.data.get_mut(i).map(|(_, w)| w.bytes())
    }

    /// The most steps the server lets one run take.
    pub fn max_steps(&self) -> u64 {
        self.max_steps
    }

    /// The most ops the server decodes in one compound.
    pub fn max_ops(&self) -> u64 {
        self.max_ops
    }

    /// Sends `msg`; the reply's words, or its status as a failure.
    pub fn exchange(&mut self, msg: &Message) -> Result<[u64; 4], Failure> {
        let reply = match self.ep.call(msg) {
            Ok(reply) => reply,
            Err(e) => {
                self.lost |= e == SysError::DeadPeer;
                return Err(e.into());
            }
        };
        match reply.label {
            OK => Ok(reply.words),
            label => Err(Failure::Status {
                label,
                word0: reply.words[0],
            }),
        }
    }

    /// Op `op` of the server's table, one IPC, operands as given.
    pub fn call(&mut self, op: u16, operands: &[Operand]) -> Result<u64, Failure> {
        if operands.len() > cosy_abi::wire::MAX_OPERANDS {
            return Err(Failure::TooLarge);
        }
        // Each operand goes straight where it travels (a register word,
        // or the IPC buffer past the fourth): no operand array to fill
        // and copy on every call.
        let mut msg = Message::new(VAN_BASE + u32::from(op), &[]).with_len(operands.len());
        for (i, o) in operands.iter().enumerate() {
            let word = o.word()?;
            match msg.words.get_mut(i) {
                Some(w) => *w = word,
                None => set_long_word(i, word),
            }
        }
        Ok(self.exchange(&msg)?[0])
    }

    /// Runs `compound` (placed at the end of the control region, so the
    /// region's start stays free for its buffers) with `params` in
    /// `r0`.. — one IPC.
    pub fn run(&mut self, compound: &[u8], params: &[u64]) -> Result<RunReply, Failure> {
        let at = self.place(compound)?;
        self.run_at(at, compound.len(), params)
    }

    /// Where [`Session::run`] puts a compound of `len` bytes.
    pub fn compound_offset(&self, len: usize) -> Option<usize> {
        self.control.len().checked_sub(len).map(|at| at & !7)
    }

    fn place(&mut self, compound: &[u8]) -> Result<usize, Failure> {
        let at = self
            .compound_offset(compound.len())
            .ok_or(Failure::TooLarge)?;
        self.control()[at..at + compound.len()].copy_from_slice(compound);
        Ok(at)
    }

    /// Runs the compound already at `offset..offset + len` of the control
    /// region.
    pub fn run_at(
        &mut self,
        offset: usize,
        len: usize,
        params: &[u64],
    ) -> Result<RunReply, Failure> {
        let words = with_params(&[offset as u64, len as u64], params)?;
        self.last = Some((offset, len));
        let w = self.exchange(&message(RUN, &words))?;
        Ok(RunReply::from_words([w[0], w[1], w[2]]))
    }

    /// Verifies `compound` once (placed as [`Session::run`] places it);
    /// returns a handle for [`Session::run_prepared`].
    pub fn prepare(&mut self, compound: &[u8]) -> Result<u64, Failure> {
        let at = self.place(compound)?;
        let msg = Message::new(PREPARE, &[at as u64, compound.len() as u64]);
        let handle = self.exchange(&msg)?[0];
        self.prepared.retain(|p| p.0 != handle);
        self.prepared.push((handle, at, compound.len()));
        Ok(handle)
    }

    /// Runs a prepared compound with new parameters.
    pub fn run_prepared(&mut self, handle: u64, params: &[u64]) -> Result<RunReply, Failure> {
        let words = with_params(&[handle], params)?;
        self.last = self
            .prepared
            .iter()
            .find(|p| p.0 == handle)
            .map(|p| (p.1, p.2));
        let w = self.exchange(&message(RUN_PREPARED, &words))?;
        Ok(RunReply::from_words([w[0], w[1], w[2]]))
    }

    /// Forgets a prepared compound.
    pub fn release(&mut self, handle: u64) -> Result<(), Failure> {
        self.prepared.retain(|p| p.0 != handle);
        self.exchange(&Message::new(RELEASE, &[handle])).map(drop)
    }

    /// The bytes of the compound last run (with its results area), while
    /// they are still in the control region; the client may have written
    /// over them since, so read them through a checked view
    /// (`cosy_abi::typed`).
    pub fn last_compound(&mut self) -> Option<&[u8]> {
        let (at, len) = self.last?;
        self.control.bytes().get(at..at.checked_add(len)?)
    }
}

/// `fixed` then `params`, at most the request's word limit.
fn with_params(fixed: &[u64], params: &[u64]) -> Result<Vec<u64>, Failure> {
    if params.len() > PARAMS {
        return Err(Failure::TooLarge);
    }
    let mut words = Vec::with_capacity(fixed.len() + params.len());
    words.extend_from_slice(fixed);
    words.extend_from_slice(params);
    Ok(words)
}

/// A message with any number of words (past four, in the IPC buffer).
pub fn message(label: u32, words: &[u64]) -> Message {
    for (i, w) in words.iter().enumerate().skip(4) {
        set_long_word(i, *w);
    }
    Message::new(label, words).with_len(words.len())
}
