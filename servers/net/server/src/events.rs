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
//! Reply slots: one per parked request and one to receive into. After
//! every request that brought a capability, the slot where it landed is
//! emptied, so an unexpected capability can never make the kernel drop
//! the next client's region.

use conflux_abi::time::{TICK_NS, TIMER_MAX_TICKS};
use conflux_cosy_ipc::replies::ReplySlots;
use conflux_netcore::parking::MAX_PARKED;
use conflux_userlib::ipc::{Endpoint, Message, Notification, Slot};
use conflux_userlib::println;
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
/// the timer signal. Reply slots are `replies..replies + MAX_PARKED + 1`;
/// transferred capabilities land in `received`.
pub fn serve(
    server: &mut Server,
    ep: Endpoint,
    timer: Notification,
    replies: usize,
    received: usize,
) -> ! {
    let mut slots = ReplySlots::new(replies, MAX_PARKED + 1);
    // The answer to the last request, sent with the next receive.
    let mut pending: Option<(usize, Message)> = None;
    // Frames may have come before the first call: look, and ask the
    // driver to signal from now on.
    step(server, timer);
    loop {
        for (slot, msg) in core::mem::take(&mut server.outbox) {
            slots.answer(slot, &msg);
        }
        let (slot, answer) = match pending.take() {
            Some(p) => p,
            None => match slots.take() {
                Some(s) => (s, Message::default()),
                None => {
                    // Parked requests hold at most MAX_PARKED slots.
                    println!("no free reply slot (a server bug); waiting for the timer");
                    let _ = timer.wait();
                    continue;
                }
            },
        };
        let poll = match ep.reply_recv(slot, received, &answer) {
            Ok(got) if got.notified().is_some() => {
                slots.free(slot);
                true
            }
            Ok(got) => {
                let handled = server.handle(got.badge, &got.msg, slot);
                // `None`: parked; the request keeps its reply slot.
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
