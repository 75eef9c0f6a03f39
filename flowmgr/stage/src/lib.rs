//! The stage side of flows: what every task that runs flow stages shares.
//!
//! A stage task (the NIC, crypto and block drivers, the software stage)
//! serves `flowmgr` on an endpoint. [`Stages::handle`] answers
//! `flowmgr`'s messages (`conflux_flow_protocol::stage`): it files each
//! capability that arrives under its flow and grant (fixed capability
//! slots and a fixed stretch of the region window per flow, from
//! [`Config`], so flows never land on each other), maps the pool and the
//! edges, checks the spans against the pool, asks the task's [`Work`] to
//! set the flow up, and on `STOP` hands the flow back to the task, unmaps
//! and deletes everything. The task's loop then calls
//! [`Stages::run`] with a closure that moves buffers for one flow,
//! usually through one of the step helpers of [`FlowIo`] (a source, a
//! transformer or a sink step), and sleeps when [`Stages::idle`] says
//! every flow is waiting.
//!
//! The operating-system side (moving a capability, mapping it, ringing a
//! doorbell) is behind the [`Os`] trait, so the bookkeeping is host-tested
//! with memory standing in for regions; [`System`] is the real one.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

mod carve;
pub mod coalesce;
pub mod driver;
mod held;
mod io;
#[allow(unsafe_code)]
mod mem;
mod os;
mod rate;
#[cfg(feature = "system")]
mod serve;
mod table;

pub use held::BATCH;
pub use io::{Failure, FlowIo, Step};
pub use mem::Mapping;
pub use os::Os;
#[cfg(feature = "system")]
pub use os::System;
pub use rate::Bucket;
#[cfg(feature = "system")]
pub use serve::{flow_role, Arrived, Role, StageEndpoint, WINDOW_BASE};
pub use table::{edges_match, turn_steps, Answer, Config, Stages, Work};

pub use conflux_flow_protocol as protocol;

#[cfg(test)]
mod tests;
