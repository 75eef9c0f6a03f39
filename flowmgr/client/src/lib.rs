//! An application's end of `flowmgr`'s signalling API.
//!
//! ```ignore
//! let flows = Flows::new(config::caps::FLOWMGR);
//! let id = flows.create(&request)?;          // the app's part ends here
//! let stats = flows.stats(id)?;              // watch it
//! flows.destroy(id)?;
//! ```
//!
//! Common flows are one request each ([`recipes`]): sending a file to a
//! host encrypted is `flows.create(&recipes::file_to_host_encrypted(..)?)`.
//!
//! Every answer is checked like any message received: a refusal becomes
//! [`Error::Refused`] with flowmgr's words decoded ([`Refusal`]), an answer
//! that makes no sense [`Error::BadAnswer`], and a failed call
//! [`Error::Ipc`] (`DeadPeer` when flowmgr restarted: its flows are gone).
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

mod error;
pub mod recipes;
pub mod text;

pub use conflux_flow_protocol::api::{FlowRequest, FlowState, FlowStats};
pub use conflux_flowmgr_core::Refusal;
pub use error::Error;

#[cfg(target_os = "none")]
use conflux_abi::ipc::MAX_WORDS;
use conflux_flow_protocol::api::FlowStatus;
#[cfg(target_os = "none")]
use conflux_flow_protocol::api::{label, REQUEST_WORDS};
#[cfg(target_os = "none")]
use conflux_userlib::ipc::{long_word, set_long_word, Endpoint, Message};

/// A flow's id, as flowmgr gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowId(pub u64);

/// flowmgr, through an endpoint capability (write; grant to send a
/// notification with CREATE).
#[cfg(target_os = "none")]
#[derive(Clone, Copy, Debug)]
pub struct Flows {
    ep: Endpoint,
}

/// What an answer carried: its words, up to [`MAX_WORDS`].
#[cfg(target_os = "none")]
struct Answer {
    words: [u64; MAX_WORDS],
    len: usize,
}

#[cfg(target_os = "none")]
impl Flows {
    pub fn new(slot: usize) -> Self {
        Self { ep: Endpoint(slot) }
    }

    fn call(&self, l: u32, words: &[u64], cap: Option<usize>) -> Result<Answer, Error> {
        let n = words.len().min(MAX_WORDS);
        for (i, w) in words.iter().enumerate().take(n).skip(4) {
            set_long_word(i, *w);
        }
        let mut msg = Message::new(l, &words[..n.min(4)]).with_len(n);
        if let Some(c) = cap {
            msg = msg.with_cap(c);
        }
        let got = self.ep.call(&msg).map_err(Error::Ipc)?;
        let mut a = Answer {
            words: [0; MAX_WORDS],
            len: got.len.min(MAX_WORDS),
        };
        for i in 0..a.len {
            a.words[i] = if i < 4 { got.words[i] } else { long_word(i) };
        }
        check(got.label, &a.words[..a.len])?;
        Ok(a)
    }

    /// Creates the flow; its id.
    pub fn create(&self, req: &FlowRequest) -> Result<FlowId, Error> {
        self.create_with(req, None)
    }

    /// Creates the flow; flowmgr signals the notification in slot
    /// `notify` (with the badge the app gave it) whenever the flow
    /// changes state or takes a step of the exception ladder.
    pub fn create_notified(&self, req: &FlowRequest, notify: usize) -> Result<FlowId, Error> {
        self.create_with(req, Some(notify))
    }

    fn create_with(&self, req: &FlowRequest, cap: Option<usize>) -> Result<FlowId, Error> {
        let mut words = [0; REQUEST_WORDS];
        let n = req.encode(&mut words).map_err(|_| Error::BadAnswer)?;
        let a = self.call(label::CREATE, &words[..n], cap)?;
        first(&a).map(FlowId)
    }

    /// The flow's state and figures.
    pub fn stats(&self, id: FlowId) -> Result<FlowStats, Error> {
        let a = self.call(label::STATS, &[id.0], None)?;
        FlowStats::decode(&a.words[..a.len]).ok_or(Error::BadAnswer)
    }

    /// Asks the flow's STATS until it is `Done` or `Terminated`, at most
    /// `polls` times, calling `between` before each (a sleep, or nothing
    /// to ask as fast as flowmgr answers): its figures then (a `Done`
    /// flow's first STATS has its sink's final figures), or `None` if it
    /// was still going.
    pub fn wait_finished(
        &self,
        id: FlowId,
        polls: u32,
        mut between: impl FnMut(),
    ) -> Result<Option<FlowStats>, Error> {
        for _ in 0..polls {
            between();
            let s = self.stats(id)?;
            if matches!(s.state, FlowState::Done | FlowState::Terminated) {
                return Ok(Some(s));
            }
        }
        Ok(None)
    }

    /// Creates the flow for `req`, waits for it to finish (at most
    /// `polls` STATS, as [`Self::wait_finished`]) and destroys it,
    /// finished or not: its figures when it finished.
    pub fn run(&self, req: &FlowRequest, polls: u32) -> Result<Option<FlowStats>, Error> {
        let id = self.create(req)?;
        let end = self.wait_finished(id, polls, || {});
        let destroyed = self.destroy(id);
        let end = end?;
        destroyed.map(|()| end)
    }

    pub fn pause(&self, id: FlowId) -> Result<(), Error> {
        self.call(label::PAUSE, &[id.0], None).map(drop)
    }

    pub fn resume(&self, id: FlowId) -> Result<(), Error> {
        self.call(label::RESUME, &[id.0], None).map(drop)
    }

    /// Ends the flow: its stages stop and lose every capability to it.
    pub fn destroy(&self, id: FlowId) -> Result<(), Error> {
        self.call(label::DESTROY, &[id.0], None).map(drop)
    }

    /// This application's flows, into `out`; how many there are (at most
    /// `out.len()` are written).
    pub fn list(&self, out: &mut [(FlowId, FlowState)]) -> Result<usize, Error> {
        let a = self.call(label::LIST, &[], None)?;
        parse_list(&a.words[..a.len], out)
    }
}

/// `Ok` or the refusal in an answer.
#[cfg_attr(not(target_os = "none"), allow(dead_code))]
fn check(l: u32, words: &[u64]) -> Result<(), Error> {
    match FlowStatus::from_label(l) {
        Some(FlowStatus::Ok) => Ok(()),
        Some(_) => Err(Refusal::decode(l, words).map_or(Error::BadAnswer, Error::Refused)),
        None => Err(Error::BadAnswer),
    }
}

#[cfg(target_os = "none")]
fn first(a: &Answer) -> Result<u64, Error> {
    (a.len >= 1).then_some(a.words[0]).ok_or(Error::BadAnswer)
}

#[cfg_attr(not(target_os = "none"), allow(dead_code))]
fn parse_list(words: &[u64], out: &mut [(FlowId, FlowState)]) -> Result<usize, Error> {
    if !words.len().is_multiple_of(2) {
        return Err(Error::BadAnswer);
    }
    let mut n = 0;
    for pair in words.chunks(2) {
        let state = FlowState::from_word(pair[1]).ok_or(Error::BadAnswer)?;
        if let Some(slot) = out.get_mut(n) {
            *slot = (FlowId(pair[0]), state);
        }
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_flowmgr_core::refusal::{bad, NO_STAGE};

    #[test]
    fn answers_are_checked() {
        assert_eq!(check(0, &[]), Ok(()));
        assert_eq!(check(99, &[]), Err(Error::BadAnswer));
        let e = check(FlowStatus::NoStage as u32, &[2, 0]).unwrap_err();
        assert_eq!(
            e,
            Error::Refused(Refusal {
                status: FlowStatus::NoStage,
                stage: 2,
                detail: 0
            })
        );
        assert_eq!(
            e.to_string(),
            "flowmgr refused: no task in this system serves that stage (is the device in the manifest?) (stage 2)"
        );
        let e = check(FlowStatus::BadRequest as u32, &[NO_STAGE, bad::BUFFER]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("64..=65536 bytes, a multiple of 16"),
            "{e}"
        );
    }

    #[test]
    fn lists_parse_or_are_refused() {
        let mut out = [(FlowId(0), FlowState::Running); 1];
        assert_eq!(parse_list(&[0x101, 1, 0x202, 3], &mut out), Ok(2));
        assert_eq!(out[0], (FlowId(0x101), FlowState::Paused));
        assert_eq!(parse_list(&[1], &mut out), Err(Error::BadAnswer));
        assert_eq!(parse_list(&[1, 9], &mut out), Err(Error::BadAnswer));
    }
}
