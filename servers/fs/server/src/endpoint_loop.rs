//! The server's loop on its endpoint.
//!
//! With no compound running, the server answers and waits in one
//! `reply_recv`, as any server does. While compounds run (see `jobs`), it
//! never blocks: it takes one waiting request with `nb_recv`, answers it,
//! runs one slice of the next compound and yields, so clients as urgent
//! as the server run between slices and a runaway compound delays another
//! client's request by about one slice (a request that starts a compound
//! has run its first slice already, so no other follows before the next
//! look at the queue). A slice is bounded in steps and in bytes moved
//! (`Service::work`), and a slice of a less urgent client's compound runs
//! at that client's priority (`priority`), so clients less urgent than
//! the server are not starved by another's compound.
//!
//! With rings in use (`rings`), each turn of the loop first serves every
//! session's rings, answering the last request before it; while they had
//! work recently the loop takes requests without blocking (and yields
//! when none came, so tasks on the server's CPU run), and once they are
//! idle it sleeps in its receive, where a client's RING_ENTER wakes it.
//!
//! A running compound keeps its caller's reply capability, so each
//! receive names a reply slot no job holds: there is one more reply slot
//! than there can be jobs (one per client). After every request the slot
//! where a transferred capability lands is emptied, so a capability the
//! server did not take (refused with `UnexpectedCap`) can never make the
//! kernel drop the next client's region (only after a request that
//! brought one: the slot fills only then).

use conflux_cosy_ipc::replies::ReplySlots;
use conflux_fs_protocol::ipc;
use conflux_userlib::ipc::{Endpoint, Message, Received, Slot};
use conflux_userlib::{println, sys};

use cosy_abi::ring::Poller;

use crate::clients::MAX_CLIENTS;
use crate::serve::Server;

/// Reply slots: one per possible job, and one to receive into.
const REPLY_SLOTS: usize = MAX_CLIENTS + 1;

/// Serves `ep` until an administrator asks for SHUTDOWN; every compound
/// still running is cancelled then. Returns the reply slot of the
/// SHUTDOWN call, to be answered once the disk is clean. Reply slots are
/// `replies..replies + MAX_CLIENTS + 1`; transferred capabilities land in
/// `received`.
pub fn serve(server: &mut Server, ep: Endpoint, replies: usize, received: usize) -> usize {
    let mut slots = ReplySlots::new(replies, REPLY_SLOTS);
    // The answer to the last request, sent with the next receive.
    let mut pending: Option<(usize, Message)> = None;
    let mut poller = Poller::new(crate::rings::SPIN);
    let mut polling_rings = false;
    loop {
        // Late answers are rare (a compound ended or was cancelled): the
        // test spares a request the outbox's take and drop.
        if !server.outbox.is_empty() {
            for (slot, msg) in core::mem::take(&mut server.outbox) {
                slots.answer(slot, &msg);
            }
        }
        if server.rings_used {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            polling_rings = server.ring_pass(&mut poller);
            for (slot, msg) in core::mem::take(&mut server.outbox) {
                slots.answer(slot, &msg);
            }
        }
        let had_jobs = server.has_jobs();
        let got = if had_jobs || polling_rings {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            poll(ep, &mut slots, received)
        } else {
            wait(ep, &mut slots, received, pending.take())
        };
        let got_request = got.is_some();
        if let Some((slot, got)) = got {
            if got.msg.label == ipc::SHUTDOWN && got.badge & ipc::ADMIN != 0 {
                server.cancel_all();
                for (s, msg) in core::mem::take(&mut server.outbox) {
                    slots.answer(s, &msg);
                }
                return slot;
            }
            server.injection.before(got.msg.label);
            // `None`: a running compound holds the slot, and its first
            // slice just ran: look at the queue again before another.
            let started = match server.handle(got.badge, &got.msg, slot) {
                Some(answer) => {
                    pending = Some((slot, answer));
                    false
                }
                None => true,
            };
            // The slot fills only when a capability arrives, and the
            // kernel says so in the message; emptying it otherwise would
            // be a syscall per request for nothing.
            if got.msg.cap.is_some() {
                let _ = Slot(received).delete();
            }
            if started {
                continue;
            }
        }
        // Without jobs before the request, only a request that started one
        // (which `continue`d above) could have made one.
        if had_jobs && server.has_jobs() {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            let lowered = server.run_slice();
            sys::yield_now();
            if lowered {
                crate::priority::set(crate::config::PRIORITY);
            }
        } else if polling_rings && !got_request {
            sys::yield_now();
        }
    }
}

/// Takes a waiting request, if there is one.
fn poll(ep: Endpoint, slots: &mut ReplySlots, received: usize) -> Option<(usize, Received)> {
    // Jobs are at most one per client, so a slot is always free.
    let slot = slots.take()?;
    match ep.nb_recv(slot, received) {
        Ok(Some(got)) => Some((slot, got)),
        Ok(None) => {
            slots.free(slot);
            None
        }
        Err(e) => {
            println!("non-blocking receive on the fs endpoint failed: {e}");
            slots.free(slot);
            None
        }
    }
}

/// Sends `answer` (if any) and waits for the next request.
fn wait(
    ep: Endpoint,
    slots: &mut ReplySlots,
    received: usize,
    answer: Option<(usize, Message)>,
) -> Option<(usize, Received)> {
    let (slot, msg) = match answer {
        Some(a) => a,
        // Jobs are at most one per client, so a slot is always free.
        None => (slots.take()?, Message::default()),
    };
    match ep.reply_recv(slot, received, &msg) {
        Ok(got) => Some((slot, got)),
        Err(e) => {
            println!("receive on the fs endpoint failed: {e}; waiting again");
            slots.free(slot);
            None
        }
    }
}
