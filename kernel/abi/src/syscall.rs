//! Syscall numbers and the register convention.
//!
//! A task enters the kernel with the `syscall` instruction: the number in
//! `rax`, arguments in `rdi, rsi, rdx, r10, r8, r9` (the System V order with
//! `r10` standing in for `rcx`, which `syscall` overwrites). The kernel
//! answers with a status in `rax` (0 for success, otherwise a [`SysError`]
//! code) and a value in `rdx`. IPC calls return a message instead: info in
//! `rdi`, badge in `rsi`, words in `rdx, r10, r8, r9` (see [`crate::ipc`]).
//! Every other register except `rcx` and `r11` is preserved.
//!
//! Slot arguments name entries of the caller's capability table
//! ([`crate::cap`]). IPC receive calls pack three slots into one argument:
//! [`pack_slots`].
//!
//! [`SysError`]: crate::SysError

use crate::cap::CAP_SLOTS;
use crate::SysError;

macro_rules! sysnos {
    ($($(#[$doc:meta])* $name:ident = $n:expr,)*) => {
        /// The syscalls the kernel implements.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u64)]
        pub enum Sysno { $($(#[$doc])* $name = $n,)* }

        impl Sysno {
            /// Every syscall, in number order.
            pub const ALL: &'static [Sysno] = &[$(Sysno::$name,)*];

            /// Decodes a raw syscall number, or `None` for a number the
            /// kernel does not implement.
            pub fn from_raw(raw: u64) -> Option<Self> {
                match raw { $($n => Some(Self::$name),)* _ => None }
            }
        }
    };
}

sysnos! {
    /// `debug_write(ptr, len)`: print bytes on the kernel console, each line
    /// prefixed with the task's name. Returns the number of bytes written.
    DebugWrite = 0,
    /// `exit(code)`: end the calling task. Does not return.
    Exit = 1,
    /// `yield()`: give the CPU to the next ready task of the same priority.
    Yield = 2,
    /// `call(ep, info, w0..w3)`: send on an endpoint (WRITE) and wait for the reply.
    Call = 3,
    /// `send(ep, info, w0..w3)`: send on an endpoint (WRITE); waits until received.
    Send = 4,
    /// `recv(slots)`: wait for a message on an endpoint (READ); `slots` per [`pack_slots`].
    Recv = 5,
    /// `reply(reply_slot, info, w0..w3)`: answer a call through a reply capability.
    Reply = 6,
    /// `reply_recv(slots, info, w0..w3)`: reply (if the reply slot is full), then `recv`.
    ReplyRecv = 7,
    /// `signal(ntfn)`: OR the capability's badge (or 1) into a notification (WRITE).
    Signal = 8,
    /// `wait(ntfn)`: block until the notification word is non-zero; returns and clears it (READ).
    Wait = 9,
    /// `poll(ntfn)`: return and clear the notification word without blocking (READ).
    Poll = 10,
    /// `irq_ack(irq)`: re-enable an interrupt line after handling it.
    IrqAck = 11,
    /// `cap_mint(src, dst, rights, badge)`: derive a capability with fewer rights and a badge.
    CapMint = 12,
    /// `cap_copy(src, dst)`: derive an identical capability.
    CapCopy = 13,
    /// `cap_delete(slot)`: empty a slot (unmapping a mapped region).
    CapDelete = 14,
    /// `cap_revoke(slot)`: delete every capability derived from this one, in every task.
    CapRevoke = 15,
    /// `cap_info(slot)`: kind | rights << 8 in the value, badge in `rsi`.
    CapInfo = 16,
    /// `region_map(slot, vaddr, rights) -> size`: map a region or MMIO range
    /// at `vaddr`; returns its size in bytes.
    RegionMap = 17,
    /// `region_unmap(slot)`: remove that mapping.
    RegionUnmap = 18,
    /// `region_phys(slot, offset)`: physical address of a region byte (DMA right).
    RegionPhys = 19,
    /// `io_in(slot, port, width)`: read an I/O port in the capability's range.
    IoIn = 20,
    /// `io_out(slot, port, width, value)`: write an I/O port in the capability's range.
    IoOut = 21,
    /// `nb_recv(slots)`: like `recv`, but never blocks: takes the oldest
    /// pending message, or fails with `WouldBlock` when no sender waits.
    /// A server that runs long work in slices polls its endpoint with it.
    NbRecv = 22,
    /// `console_read(irq) -> (n, bytes)`: take up to 8 bytes typed on the
    /// serial console, packed little-endian into `rsi`; `n` (0..=8) in the
    /// value. Needs the console's IRQ capability (line
    /// [`crate::devices::CONSOLE_IRQ_LINE`]) with READ; never blocks.
    ConsoleRead = 23,
    /// `task_info(irq, index) -> info`: task `index`'s state, priority and
    /// restarts packed per [`crate::task_info`]. Needs the console's IRQ
    /// capability with READ: it is what an operator's shell holds.
    TaskInfo = 24,
    /// `ntfn_bind(ep, ntfn)`: bind a notification (READ) to the calling
    /// task, which must hold an endpoint capability with READ in `ep` (the
    /// binding is for a receiver). While the task is blocked in `recv`,
    /// `reply_recv` or `nb_recv`, a signal ends the receive with a
    /// kernel-made message labelled [`crate::ipc::NOTIFY_LABEL`] whose badge
    /// is the notification word (then cleared). `ntfn` 0 unbinds. Deleting
    /// or revoking the capability, or the task ending, unbinds too.
    NtfnBind = 25,
    /// `timer_set(ntfn, ticks) -> now`: arm the calling task's one-shot
    /// timer to signal the notification (WRITE) with the capability's badge
    /// (or 1) at the `ticks`-th tick from now ([`crate::time::TICK_NS`]
    /// each); `ticks` 0 cancels. At most [`crate::time::TIMER_MAX_TICKS`].
    /// Returns the kernel's tick count.
    TimerSet = 26,
    /// `panic()`: the calling task panicked (it has printed the message
    /// and location on its console). The kernel ends it exactly as a CPU
    /// exception would, and its supervisor gets a fault message of kind
    /// [`crate::ipc::FaultKind::Panic`], so the manifest's restart policy
    /// applies. Does not return.
    Panic = 27,
    /// `set_priority(p)`: run the calling task at priority `p`, which may
    /// be its manifest priority or anything less urgent (a larger number,
    /// at most [`MAX_PRIORITY`]), never more urgent. A server uses
    /// it to run a client's long compound at that client's priority, so
    /// clients less urgent than the server are not starved by it. A
    /// restart gives the task its manifest priority back.
    SetPriority = 28,
    /// `task_stop(irq, index)`: the holder of the console's interrupt (the
    /// operator's shell, like `task_info`) ends task `index` as if it had
    /// faulted; its supervisor gets a fault message of kind
    /// [`crate::ipc::FaultKind::Stopped`], so the manifest's restart
    /// policy applies. `InvalidArgument` for an index past the tasks,
    /// `NotRunning` for a task that has ended or waits for its
    /// supervisor, `IsSupervisor` for the supervisor. Stopping oneself
    /// does not return.
    TaskStop = 29,
    /// `call_timed(ep | ticks << 8, info, w0..w3)`: `call`, giving up at
    /// the `ticks`-th kernel tick from now (1..=[`CALL_MAX_TICKS`], packed
    /// by [`pack_timed`]) with `TimedOut` if no reply came by then —
    /// whether the message still waited for a receiver or the server held
    /// it. The server's reply capability for an abandoned call answers
    /// nothing afterwards (`reply` fails with `TimedOut`), so a late reply
    /// never reaches the caller's next call. The deadline is the call's
    /// own: the task's `timer_set` timer is neither used nor changed.
    CallTimed = 30,
    /// `wall_clock() -> ms`: milliseconds since 1970-01-01 00:00:00 UTC
    /// (Unix time, see [`crate::calendar`]): the real-time clock's reading
    /// at boot plus the ticks since. `NoClock` when the kernel found no
    /// valid date in the real-time clock. Any task may call it: it tells
    /// nothing a task's own timer does not (the tick count) but a
    /// constant.
    WallClock = 31,
}

/// The longest deadline `call_timed` accepts, in ticks: the timer's bound
/// (one day), for the same reason.
pub const CALL_MAX_TICKS: u64 = crate::time::TIMER_MAX_TICKS;

/// Packs `call_timed`'s first argument: the endpoint slot and the ticks
/// until the deadline. A slot past the table is `InvalidSlot`; 0 ticks is
/// `InvalidArgument` (a call that may not wait at all has no use); more
/// than [`CALL_MAX_TICKS`] is `TimerTooLong`.
#[inline]
pub fn pack_timed(endpoint: usize, ticks: u64) -> Result<u64, SysError> {
    if endpoint >= CAP_SLOTS {
        return Err(SysError::InvalidSlot);
    }
    check_ticks(ticks)?;
    Ok(endpoint as u64 | ticks << 8)
}

/// Inverse of [`pack_timed`], with the same checks (the kernel's side).
#[inline]
pub fn unpack_timed(packed: u64) -> Result<(usize, u64), SysError> {
    let ticks = packed >> 8;
    check_ticks(ticks)?;
    Ok(((packed & 0xff) as usize, ticks))
}

fn check_ticks(ticks: u64) -> Result<(), SysError> {
    match ticks {
        0 => Err(SysError::InvalidArgument),
        t if t > CALL_MAX_TICKS => Err(SysError::TimerTooLong),
        _ => Ok(()),
    }
}

/// The least urgent priority a task can have (0 is the most urgent): the
/// manifest's range and `set_priority`'s bound.
pub const MAX_PRIORITY: u8 = 15;

/// Packs the slots of a receive: the endpoint, where to put the reply
/// capability (0: none), and where a transferred capability may land (0:
/// refuse). A slot past the capability table is refused, never truncated.
#[inline]
pub fn pack_slots(endpoint: usize, reply: usize, receive_cap: usize) -> Result<u64, SysError> {
    if [endpoint, reply, receive_cap]
        .iter()
        .any(|&s| s >= CAP_SLOTS)
    {
        return Err(SysError::InvalidSlot);
    }
    Ok(endpoint as u64 | (reply as u64) << 8 | (receive_cap as u64) << 16)
}

/// Inverse of [`pack_slots`]; bits above the three 8-bit fields are
/// `InvalidArgument` (the kernel checks slot ranges itself).
#[inline]
pub fn unpack_slots(packed: u64) -> Result<(usize, usize, usize), SysError> {
    if packed >> 24 != 0 {
        return Err(SysError::InvalidArgument);
    }
    Ok((
        (packed & 0xff) as usize,
        (packed >> 8 & 0xff) as usize,
        (packed >> 16 & 0xff) as usize,
    ))
}

/// Longest byte string one `debug_write` accepts.
///
/// The console is a debugging aid, not a data path: a bound keeps one task
/// from holding the console (and the kernel) for long.
pub const DEBUG_WRITE_MAX: usize = 4096;

/// The console budget each task slot has (see the kernel's
/// `console_budget`): bytes it may write at once after a quiet spell.
/// A `debug_write` the budget cannot pay for is dropped whole and returns
/// 0 (bytes written) instead of its length.
pub const CONSOLE_BURST_BYTES: u32 = 32 * 1024;
/// A write costs its bytes, plus the line prefix the kernel adds (the
/// task's name, a colon and a space) when it starts a line; a typed
/// character echoed in the middle of a line costs one byte.
///
/// Bytes added to the budget every timer tick (`time::TICK_NS`).
pub const CONSOLE_BYTES_PER_TICK: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_round_trips() {
        for (i, s) in Sysno::ALL.iter().enumerate() {
            assert_eq!(*s as u64, i as u64, "numbers are dense");
            assert_eq!(Sysno::from_raw(*s as u64), Some(*s));
        }
        assert_eq!(Sysno::from_raw(Sysno::ALL.len() as u64), None);
        assert_eq!(Sysno::from_raw(u64::MAX), None);
    }

    #[test]
    fn slots_pack_and_unpack() {
        assert_eq!(unpack_slots(pack_slots(3, 9, 63).unwrap()), Ok((3, 9, 63)));
        assert_eq!(pack_slots(300, 1, 0), Err(SysError::InvalidSlot));
        assert_eq!(pack_slots(1, 64, 0), Err(SysError::InvalidSlot));
        assert_eq!(unpack_slots(1 << 24), Err(SysError::InvalidArgument));
    }

    #[test]
    fn deadlines_pack_and_unpack_within_their_bounds() {
        assert_eq!(unpack_timed(pack_timed(5, 7).unwrap()), Ok((5, 7)));
        let max = pack_timed(63, CALL_MAX_TICKS).unwrap();
        assert_eq!(unpack_timed(max), Ok((63, CALL_MAX_TICKS)));
        assert_eq!(pack_timed(64, 1), Err(SysError::InvalidSlot));
        assert_eq!(pack_timed(1, 0), Err(SysError::InvalidArgument));
        assert_eq!(
            pack_timed(1, CALL_MAX_TICKS + 1),
            Err(SysError::TimerTooLong)
        );
        assert_eq!(unpack_timed(3), Err(SysError::InvalidArgument));
        assert_eq!(unpack_timed(u64::MAX), Err(SysError::TimerTooLong));
        // A slot past the table is the kernel's to refuse (`InvalidSlot`).
        assert_eq!(unpack_timed(0xff | 1 << 8), Ok((0xff, 1)));
    }
}
