//! One request from an application: its words read once, the operation
//! run by the manager, the answer built. Nothing a client sends can stop
//! the loop: every refusal is a `FlowStatus` label with two words saying
//! where and why (`conflux_flowmgr_core::Refusal`).

use crate::system::Kernel;
use crate::RECEIVED;
use conflux_abi::ipc::MAX_WORDS;
use conflux_flow_protocol::api::{label, FlowStatus, STATS_WORDS};
use conflux_flowmgr_core::refusal::bad;
use conflux_flowmgr_core::{Manager, Refusal};
use conflux_userlib::ipc::{long_word, set_long_word, Message, Received, Slot};

/// The answer: `status` and `words` (the long ones in the IPC buffer).
fn answer(status: FlowStatus, words: &[u64]) -> Message {
    let n = words.len().min(MAX_WORDS);
    for (i, w) in words.iter().enumerate().take(n).skip(4) {
        set_long_word(i, *w);
    }
    Message::new(status as u32, &words[..n.min(4)]).with_len(n)
}

fn refuse(r: Refusal) -> Message {
    answer(r.status, &r.words())
}

fn is_notification(slot: usize) -> bool {
    matches!(Slot(slot).info(), Ok((kind, _, _)) if kind == conflux_abi::cap::ObjectKind::Notification as u8)
}

/// Answers one received message.
pub fn handle(manager: &mut Manager, sys: &mut Kernel, got: &Received) -> Message {
    let msg = &got.msg;
    if msg.from_kernel {
        // Not a client's: nothing to answer.
        return Message::default();
    }
    // Every word read before any stage call reuses the IPC buffer.
    let mut words = [0u64; MAX_WORDS];
    let n = msg.len.min(MAX_WORDS);
    for (i, w) in words.iter_mut().enumerate().take(n) {
        *w = if i < 4 { msg.words[i] } else { long_word(i) };
    }
    let words = &words[..n];
    let cap = msg.cap;
    let reply = run(manager, sys, msg.label, words, got.badge, cap);
    if let Some(c) = cap {
        // Filed by CREATE (moved away) or unwanted: the receive slot must
        // be empty for the next message.
        let _ = Slot(c).delete();
    }
    reply
}

fn run(
    manager: &mut Manager,
    sys: &mut Kernel,
    l: u32,
    words: &[u64],
    owner: u64,
    cap: Option<usize>,
) -> Message {
    if l == label::CREATE {
        if cap.is_some_and(|c| c != RECEIVED || !is_notification(c)) {
            return refuse(Refusal::bad(bad::CAP));
        }
        return match manager.create(sys, words, owner) {
            Ok(id) => {
                sys.drop_notify(id.slot());
                if let Some(c) = cap {
                    sys.file_notify(c, id.slot());
                }
                answer(FlowStatus::Ok, &[id.word()])
            }
            Err(r) => refuse(r),
        };
    }
    if l == conflux_abi::ipc::CLIENT_GONE_LABEL {
        // The supervisor says the client with badge `words[0]` is gone.
        if owner != conflux_abi::ipc::SUPERVISOR_BADGE {
            return answer(FlowStatus::NotSupervisor, &[]);
        }
        let Some(&gone) = words.first() else {
            return refuse(Refusal::bad(bad::NO_ID));
        };
        let n = manager.end_client(sys, gone, |sys, slot| sys.drop_notify(slot));
        return answer(FlowStatus::Ok, &[u64::from(n > 0)]);
    }
    if l == label::LIST {
        let mut out = [0u64; MAX_WORDS];
        let mut n = 0;
        for (id, state) in manager.list(owner) {
            if n + 2 > MAX_WORDS {
                break;
            }
            out[n] = id.word();
            out[n + 1] = state as u64;
            n += 2;
        }
        return answer(FlowStatus::Ok, &out[..n]);
    }
    if !matches!(
        l,
        label::STATS | label::PAUSE | label::RESUME | label::DESTROY
    ) {
        return answer(FlowStatus::BadLabel, &[u64::from(l)]);
    }
    if cap.is_some() {
        return refuse(Refusal::bad(bad::CAP));
    }
    let Some(&id) = words.first() else {
        return refuse(Refusal::bad(bad::NO_ID));
    };
    let done = match l {
        label::STATS => {
            return match manager.stats(sys, id, owner) {
                Ok(s) => {
                    let mut out = [0u64; STATS_WORDS];
                    let n = s.encode(&mut out).unwrap_or(0);
                    answer(FlowStatus::Ok, &out[..n])
                }
                Err(r) => refuse(r),
            }
        }
        label::PAUSE => manager.pause(sys, id, owner, true),
        label::RESUME => manager.pause(sys, id, owner, false),
        _ => manager
            .destroy(sys, id, owner)
            .map(|slot| sys.drop_notify(slot)),
    };
    match done {
        Ok(()) => answer(FlowStatus::Ok, &[]),
        Err(r) => refuse(r),
    }
}
