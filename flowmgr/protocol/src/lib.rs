//! Flows: pipelines of driver tasks that hand buffers to each other
//! directly, set up by `flowmgr`, with the application off the data path.
//!
//! A flow is a *source* stage, zero or more *transformers* and a *sink*,
//! each run by some task (the NIC driver for a UDP source, the crypto
//! driver for a cipher, the block driver for a block range, the software
//! stage task for AES and CRC-32C, ...). `flowmgr` owns, from the
//! manifest, a set of *flow slots*: per slot one buffer **pool** region and
//! one **edge** region per pair of consecutive stages. To create a flow it
//! formats the edges, hands each stage capabilities to exactly the pool and
//! its own input and output edges (and doorbells to its neighbours), tells
//! it what to do (`StageSpec`) and which buffers of the pool belong to
//! which edge (`Span`), and steps off the data path. Destroying the flow
//! stops the stages and revokes everything derived from the slot's
//! capabilities, so a stage that kept a pointer faults on its next access.
//!
//! - [`edge`]: one connection between two stages: a *full* ring (filled
//!   buffers, upstream → downstream), a *free* ring (emptied buffers back)
//!   and counters each side publishes, in one page. Descriptors name
//!   buffers of the pool and are checked against the edge's [`Span`]
//!   before a stage touches a byte.
//! - [`stage`]: the messages `flowmgr` sends a stage task (attach a
//!   capability, start, stop, report), and what a stage is asked to do.
//! - [`record`]: self-checking data (sequence number and CRC-32C in
//!   every record) that tests and benchmarks send through flows to prove
//!   nothing was lost, repeated or damaged.
//! - [`api`]: `flowmgr`'s own protocol, the signalling API applications
//!   use: create, query, pause, resume and destroy a flow.
//!
//! Every descriptor carries, in its `id`, the flow's sequence number for
//! that buffer (given by the source, kept by every stage). Replicated
//! stages may finish out of order; the merge puts buffers back in sequence
//! order by it.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

pub mod api;
pub mod edge;
pub mod record;
mod span;
pub mod stage;
mod words;

pub use span::{Buf, Span, SpanError};
