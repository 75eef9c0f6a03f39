//! The server's one receive loop: client calls, the driver's completions
//! and the stack's timers all end the same `reply_recv`.
//!
//! The driver's completion notification (`NET0_DONE`) is bound to the
//! task (`ntfn_bind`), so a signal on it ends the receive as a kernel
//! message (`Received::notified`). The stack's timers use the same
//! notification: the task's one-shot timer (`timer_set`, through the
//! capability's WRITE right) signals it when smoltcp next needs a poll or
//! a parked `wait` reaches its deadline. After every message — a call or
//! a signal — the server polls the stack, re-runs parked requests if some
//! socket's state changed, re-arms the timer and receives again; except
//! after a quiet request (`conflux_netcore::quiet`: a `nop`, a refused
//! message), which leaves the timer and the driver's signal as the last
//! poll armed them, so it costs no poll and no timer syscalls. It
//! never spins while idle: with nothing due it sleeps until a call, a
//! frame or the timer. Before sleeping it asks the driver to signal on
//! its next answer; if answers arrived meanwhile it signals itself, so
//! the next receive returns at once.
//!
//! With rings in use (`rings`), each turn of the loop first serves every
//! session's rings (answering the last request before it) and polls the
//! stack after a pass that took entries, so their sends go out and
//! parked entries are retried. While the rings had work recently the
//! loop takes messages — calls, and the driver's and timer's signals,
//! which a non-blocking receive returns as a blocking one does — without
//! blocking, and yields when none came; once they are idle it sets every
//! ring's signal-me flag, looks once more, and sleeps in its receive as
//! before, where a client's RING_ENTER, a frame or the timer wakes it.
//!
//! Reply slots: one per parked request, one per ring waiter and one to
//! receive into. After
//! every request that brought a capability, the slot where it landed is
//! emptied, so an unexpected capability can never make the kernel drop
//! the next client's region.

use conflux_abi::time::{TICK_NS, TIMER_MAX_TICKS};
use conflux_abi::SysError;
use conflux_cosy_ipc::replies::ReplySlots;
use conflux_userlib::ipc::{Endpoint, Message, Notification, Received, Slot};
use conflux_userlib::{println, sys};
use cosy_abi::ring::Poller;
use smoltcp::time::{Duration, Instant};

use crate::serve::Server;

/// Polls in a row after one event while they keep changing sockets.
const MAX_POLLS: usize = 4;
const TICK_MS: u64 = TICK_NS / 1_000_000;

/// The time from the kernel's tick count (`timer_set` with 0 ticks
/// cancels the timer and returns the count: the loop re-arms it after).
pub fn clock(timer: Notification) -> Instant {
    let ticks = timer.timer(0).unwrap_or(0);
    Instant::from_millis(ticks.saturating_mul(TICK_MS).min(i64::MAX as u64) as i64)
}

/// Serves `ep` for ever; `timer` is the bound notification the driver and
/// the timer signal. Reply slots are `replies.0..replies.0 + replies.1`
/// (one per parked request, one per ring waiter, one to receive into);
/// transferred capabilities land in `received`.
pub fn serve(
    server: &mut Server,
    ep: Endpoint,
    timer: Notification,
    replies: (usize, usize),
    received: usize,
) -> ! {
    let mut slots = ReplySlots::new(replies.0, replies.1);
    // The answer to the last request, sent with the next receive.
    let mut pending: Option<(usize, Message)> = None;
    let mut poller = Poller::new(crate::rings::SPIN);
    // Frames may have come before the first call: look, and ask the
    // driver to signal from now on.
    step(server, timer);
    loop {
        for (slot, msg) in core::mem::take(&mut server.outbox) {
            slots.answer(slot, &msg);
        }
        let mut turn = Turn {
            server: &mut *server,
            slots: &mut slots,
            pending: &mut pending,
            received,
        };
        if turn.server.rings_used && turn.rings(ep, timer, &mut poller) {
            continue;
        }
        let (slot, answer) = match pending.take() {
            Some(p) => p,
            None => match slots.take() {
                Some(s) => (s, Message::default()),
                None => {
                    // Parked requests and ring waiters hold at most all
                    // the slots but one.
                    println!("no free reply slot (a server bug); waiting for the timer");
                    let _ = timer.wait();
                    continue;
                }
            },
        };
        let got = ep.reply_recv(slot, received, &answer);
        let mut turn = Turn {
            server: &mut *server,
            slots: &mut slots,
            pending: &mut pending,
            received,
        };
        if turn.took(slot, got) {
            step(server, timer);
        }
    }
}

/// What one turn of the loop works on.
struct Turn<'a> {
    server: &'a mut Server,
    slots: &'a mut ReplySlots,
    pending: &'a mut Option<(usize, Message)>,
    received: usize,
}

impl Turn<'_> {
    /// Handles what a receive into `slot` brought; true if the stack
    /// must be polled after it.
    #[inline(always)]
    fn took(&mut self, slot: usize, got: Result<Received, SysError>) -> bool {
        match got {
            Ok(got) if got.notified().is_some() => {
                self.slots.free(slot);
                true
            }
            Ok(got) => {
                let handled = self.server.handle(got.badge, &got.msg, slot);
                // `None`: parked or held; the request keeps its reply slot.
                if let Some(answer) = handled.answer {
                    *self.pending = Some((slot, answer));
                }
                // The slot fills only when a capability arrives, and the
                // kernel says so in the message: emptying it after every
                // request would be a syscall each for nothing.
                if got.msg.cap.is_some() {
                    let _ = Slot(self.received).delete();
                }
                !handled.quiet
            }
            Err(e) => {
                println!("receive on the net endpoint failed: {e}; waiting again");
                self.slots.free(slot);
                true
            }
        }
    }

    /// The rings' turn (see the module docs): answers the last request,
    /// serves every ring, and while they had work recently takes one
    /// message without blocking (or yields). True if it did, so the loop
    /// skips its blocking receive. Out of line: the request path of a
    /// server without rings does not carry it (test request-cost).
    #[inline(never)]
    fn rings(&mut self, ep: Endpoint, timer: Notification, poller: &mut Poller) -> bool {
        if let Some((slot, msg)) = self.pending.take() {
            self.slots.answer(slot, &msg);
        }
        let (taken, polling) = self.server.ring_pass(poller);
        if taken > 0 {
            // The entries may have queued data or changed sockets.
            step(self.server, timer);
        }
        for (slot, msg) in core::mem::take(&mut self.server.outbox) {
            self.slots.answer(slot, &msg);
        }
        if !polling {
            return false;
        }
        let Some(slot) = self.slots.take() else {
            return false;
        };
        let got = match ep.nb_recv(slot, self.received) {
            Ok(Some(got)) => Ok(got),
            Ok(None) => {
                self.slots.free(slot);
                // Nothing came: tasks sharing the server's CPU run.
                sys::yield_now();
                return true;
            }
            Err(e) => Err(e),
        };
        if self.took(slot, got) {
            step(self.server, timer);
        }
        true
    }
}

/// Polls the stack, re-runs parked requests, re-arms the timer.
fn step(server: &mut Server, timer: Notification) {
    let now = clock(timer);
    server.now = now;
    server.core.device_mut().reclaim();
    for _ in 0..MAX_POLLS {
        if !server.core.poll(now) {
            break;
        }
        server.retry_parked();
    }
    if server.parked.next_deadline().is_some_and(|d| d <= now) {
        server.retry_parked();
        server.core.poll(now);
    }
    let due = [
        server.core.poll_delay(now),
        server.parked.next_deadline().map(|d| d - now),
    ];
    if let Some(delay) = due.into_iter().flatten().min() {
        let _ = timer.timer(ticks(delay));
    }
    server.core.device_mut().report_restart();
    if !server.core.device_mut().prepare_to_wait() {
        // Frames came in after the poll: wake the next receive at once.
        let _ = timer.signal();
    }
}

/// Timer ticks for `delay`, at least one (a poll due now waits for the
/// next tick rather than spinning).
fn ticks(delay: Duration) -> u64 {
    delay
        .total_millis()
        .div_ceil(TICK_MS)
        .clamp(1, TIMER_MAX_TICKS)
}
