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
    let mut polling = false;
    // Frames may have come before the first call: look, and ask the
    // driver to signal from now on.
    step(server, timer);
    loop {
        for (slot, msg) in core::mem::take(&mut server.outbox) {
            slots.answer(slot, &msg);
        }
        if server.rings_used {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            let (taken, keep) = server.ring_pass(&mut poller);
            polling = keep;
            if taken > 0 {
                // The entries may have queued data or changed sockets.
                step(server, timer);
            }
            for (slot, msg) in core::mem::take(&mut server.outbox) {
                slots.answer(slot, &msg);
            }
        }
        let got = if polling {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            nb_receive(ep, &mut slots, received)
        } else {
            receive(ep, &mut slots, received, pending.take(), timer)
        };
        let Some((slot, got)) = got else {
            if polling {
                // Nothing came: tasks sharing the server's CPU run.
                sys::yield_now();
            }
            continue;
        };
        let poll = match got {
            Ok(got) if got.notified().is_some() => {
                slots.free(slot);
                true
            }
            Ok(got) => {
                let handled = server.handle(got.badge, &got.msg, slot);
                // `None`: parked or held; the request keeps its reply slot.
                if let Some(answer) = handled.answer {
                    pending = Some((slot, answer));
                }
                // The slot fills only when a capability arrives, and the
                // kernel says so in the message: emptying it after every
                // request would be a syscall each for nothing.
                if got.msg.cap.is_some() {
                    let _ = Slot(received).delete();
                }
                !handled.quiet
            }
            Err(e) => {
                println!("receive on the net endpoint failed: {e}; waiting again");
                slots.free(slot);
                true
            }
        };
        if poll {
            step(server, timer);
        }
    }
}

/// A reply slot to receive into, or `None` (after a wait) if every one
/// is held, which would be a server bug.
fn free_slot(slots: &mut ReplySlots, timer: Notification) -> Option<usize> {
    let slot = slots.take();
    if slot.is_none() {
        // Parked requests and ring waiters hold at most all but one.
        println!("no free reply slot (a server bug); waiting for the timer");
        let _ = timer.wait();
    }
    slot
}

type Got = (usize, Result<Received, SysError>);

/// Sends `answer` (if any) and waits for the next message.
fn receive(
    ep: Endpoint,
    slots: &mut ReplySlots,
    received: usize,
    answer: Option<(usize, Message)>,
    timer: Notification,
) -> Option<Got> {
    let (slot, answer) = match answer {
        Some(p) => p,
        None => (free_slot(slots, timer)?, Message::default()),
    };
    Some((slot, ep.reply_recv(slot, received, &answer)))
}

/// Takes a waiting message, if there is one (the rings are polled).
fn nb_receive(ep: Endpoint, slots: &mut ReplySlots, received: usize) -> Option<Got> {
    let slot = slots.take()?;
    match ep.nb_recv(slot, received) {
        Ok(Some(got)) => Some((slot, Ok(got))),
        Ok(None) => {
            slots.free(slot);
            None
        }
        Err(e) => Some((slot, Err(e))),
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
