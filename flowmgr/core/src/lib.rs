//! `flowmgr`'s logic, with the system calls behind a trait ([`Sys`]) so
//! that all of it runs in host tests.
//!
//! - [`registry`]: the stage tasks of the system (from their `INFO`
//!   answers), which task runs a stage, and each task's flow numbers.
//! - [`slots`]: flow slots (one per pool in the manifest) and flow ids that
//!   carry a generation, so a stale id names nothing.
//! - [`layout`]: cutting a slot's pool into one span of buffers per edge.
//! - [`state`]: the flow's state machine.
//! - [`ladder`]: the exception ladder's decisions and counts.
//! - [`manager`]: the API's operations over all of the above, wiring and
//!   unwiring stages through [`Sys`].
//! - [`reclaim`]: a restarted `flowmgr` taking back what its previous
//!   instance handed out.
//! - `quiet`: stage tasks that stopped answering are called no more (each
//!   call would wait out the deadline again) until they answer `INFO`.
//!
//! `flowmgr` never touches a flow's data: it formats edges, hands out
//! capabilities, and reads counters.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

pub mod ladder;
pub mod layout;
pub mod manager;
mod quiet;
pub mod quota;
pub mod reclaim;
pub mod refusal;
pub mod registry;
pub mod slots;
pub mod state;
mod sys;

pub use manager::Manager;
pub use refusal::Refusal;
pub use sys::{Cap, Reply, Sys, Unanswered, STAGE_DEADLINE_MS};

#[cfg(test)]
mod tests;
