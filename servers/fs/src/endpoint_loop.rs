//! The server's loop on its endpoint.
//!
//! With no compound running, the server answers and waits in one
//! `reply_recv`, as any server does. While compounds run (see `jobs`), it
//! never blocks: it takes one waiting request with `nb_recv`, answers it,
//! runs one slice of the next compound and yields, so clients as urgent
//! as the server run between slices and a runaway compound delays another
//! client's request by about one slice. (A client less urgent than the
//! server runs only when the server waits: fixed priorities.)
//!
//! A running compound keeps its caller's reply capability, so each
//! receive names a reply slot no job holds: there is one more reply slot
//! than there can be jobs (one per client). After every request the slot
//! where a transferred capability lands is emptied, so a capability the
//! server did not take (refused with `UnexpectedCap`) can never make the
//! kernel drop the next client's region.

use conflux_fs_protocol::ipc;
use conflux_userlib::ipc::{reply, Endpoint, Message, Received, Slot};
use conflux_userlib::{println, sys};

use crate::clients::MAX_CLIENTS;
use crate::serve::Server;

/// Reply slots: one per possible job, and one to receive into.
const REPLY_SLOTS: usize = MAX_CLIENTS + 1;

/// Which reply slots hold the reply capability of a call not yet answered.
struct ReplySlots {
    base: usize,
    taken: u32,
}

impl ReplySlots {
    /// A slot no call holds. There is always one: jobs are at most one per
    /// client, and every other call is answered before the next receive.
    fn take(&mut self) -> usize {
        let free = (0..REPLY_SLOTS)
            .find(|i| self.taken & 1 << i == 0)
            .unwrap_or(0);
        self.taken |= 1 << free;
        self.base + free
    }

    fn free(&mut self, slot: usize) {
        if let Some(i) = slot.checked_sub(self.base).filter(|i| *i < REPLY_SLOTS) {
            self.taken &= !(1 << i);
        }
    }

    /// Answers the call whose reply capability is in `slot` and frees it.
    /// A caller that died meanwhile is no error of the server's.
    fn answer(&mut self, slot: usize, msg: &Message) {
        let _ = reply(slot, msg);
        self.free(slot);
    }
}

/// Serves `ep` until an administrator asks for SHUTDOWN; every compound
/// still running is cancelled then. Returns the reply slot of the
/// SHUTDOWN call, to be answered once the disk is clean. Reply slots are
/// `replies..replies + MAX_CLIENTS + 1`; transferred capabilities land in
/// `received`.
pub fn serve(
    server: &mut Server,
    ep: Endpoint,
    replies: usize,
    received: usize,
    injection: &mut crate::fault::Injection,
) -> usize {
    let mut slots = ReplySlots {
        base: replies,
        taken: 0,
    };
    // The answer to the last request, sent with the next receive.
    let mut pending: Option<(usize, Message)> = None;
    loop {
        for (slot, msg) in core::mem::take(&mut server.outbox) {
            slots.answer(slot, &msg);
        }
        let got = if server.has_jobs() {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            poll(ep, &mut slots, received)
        } else {
            wait(ep, &mut slots, received, pending.take())
        };
        if let Some((slot, got)) = got {
            if got.msg.label == ipc::SHUTDOWN && got.badge & ipc::ADMIN != 0 {
                server.cancel_all();
                for (s, msg) in core::mem::take(&mut server.outbox) {
                    slots.answer(s, &msg);
                }
                return slot;
            }
            injection.before(got.msg.label);
            // `None`: a running compound holds the slot.
            if let Some(answer) = server.handle(got.badge, &got.msg, slot) {
                pending = Some((slot, answer));
            }
            let _ = Slot(received).delete();
        }
        if server.has_jobs() {
            if let Some((slot, msg)) = pending.take() {
                slots.answer(slot, &msg);
            }
            server.run_slice();
            sys::yield_now();
        }
    }
}

/// Takes a waiting request, if there is one.
fn poll(ep: Endpoint, slots: &mut ReplySlots, received: usize) -> Option<(usize, Received)> {
    let slot = slots.take();
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
    let (slot, msg) = answer.unwrap_or_else(|| (slots.take(), Message::default()));
    match ep.reply_recv(slot, received, &msg) {
        Ok(got) => Some((slot, got)),
        Err(e) => {
            println!("receive on the fs endpoint failed: {e}; waiting again");
            slots.free(slot);
            None
        }
    }
}
