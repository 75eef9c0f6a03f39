//! Shared-memory queues: single-producer/single-consumer rings of buffer
//! descriptors over a shared data region, as in seL4's device driver
//! framework (sDDF). Drivers, servers and flowmgr all use this one crate.
//!
//! # Model
//!
//! A connection ([`Queue`]) is two rings and a data region, all shared
//! memory mapped by both ends. The *free* ring carries empty buffers from
//! the side that receives data to the side that sends it; the *active*
//! ring carries filled buffers back. A [`Descriptor`] `{offset, len, id}`
//! names a buffer by its place in the data region, and ownership of the
//! buffer moves with the descriptor: no copies, no syscalls per buffer.
//!
//! # Principles
//!
//! - **The other side is untrusted.** It can write any byte of the shared
//!   memory at any time. Each handle keeps its own index privately and only
//!   stores it; the peer's index is read, checked (`tail - head` at most
//!   the capacity, else [`Corrupt`]) and never used to index without a mask.
//!   A descriptor is copied out of its slot once and the copy is checked
//!   against the data region: [`ValidDescriptor`] exists only through
//!   [`DataRegion::check`], so a client cannot make a driver touch memory
//!   outside the region. Nothing loops on the peer's values.
//! - **One role per handle.** A task turns a [`Ring`] into a [`Producer`]
//!   or a [`Consumer`], never both by accident.
//! - **Unsafe in two audited places.** `raw` (byte region → header and
//!   slots) and `link::raw` (a protocol's rings at their offsets of a
//!   mapped region) have `unsafe`; the rest of the crate is safe code over
//!   atomics.
//!
//! # Client protocols
//!
//! [`link`] is what every protocol between a driver and its clients
//! shares: a region holding several rings at fixed offsets and a data area,
//! the [`link::LinkError`] a connection reports, and the shape of a refused
//! descriptor.
//!
//! # Memory ordering
//!
//! - Producer: write the slot (Relaxed), then store `tail` with Release.
//!   Consumer: load `tail` with Acquire, then read the slot. The
//!   Release/Acquire pair makes the slot's contents visible before the
//!   index that publishes it.
//! - Consumer: copy the slot, then store `head` with Release. Producer:
//!   load `head` with Acquire before reusing a slot. So a slot is never
//!   overwritten while the consumer is still reading it.
//!
//! # Signal me (no syscalls while busy)
//!
//! A consumer that finds the ring empty calls
//! [`Consumer::prepare_to_wait`]: store `signal_me = 1`, full fence, look
//! at `tail` again; sleep only if still empty. A producer, after publishing,
//! calls [`Producer::needs_signal`]: full fence, load `signal_me`; notify
//! (and clear the flag) only if it is set. While both sides are busy the
//! flag stays clear and the pipeline makes no syscalls.
//!
//! Why no wake-up is lost: each side does *store; fence(SeqCst); load*
//! (Dekker's pattern) — consumer stores the flag and loads `tail`, producer
//! stores `tail` and loads the flag. SeqCst fences are totally ordered. If
//! the consumer's fence comes first, the producer's later load sees the
//! flag and notifies; if the producer's comes first, the consumer's later
//! load sees the new `tail` and does not sleep. Without the fences (with
//! only Release/Acquire) both loads could see old values — the store sits
//! in a store buffer on x86 — and the consumer would sleep on a non-empty
//! ring with no notification coming. Notifications are sticky (the kernel
//! keeps a pending bit), so a notify that lands just before the consumer
//! blocks is not lost either. A hostile producer that never notifies only
//! stalls its own consumer, which it could do anyway by sending nothing.
//!
//! # Tests
//!
//! `cargo test -p conflux-queue`: byte-literal layouts, a hostile peer,
//! proptests of random operation sequences, a two-thread stress test. The
//! ordering is model-checked with loom (exhaustively, over every
//! interleaving and every allowed weak-memory outcome):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
//!     cargo test -p conflux-queue --release --test loom
//! ```
//!
//! (The separate target directory keeps the normal build's cache.) Loom
//! fails both checks if the `tail` store is weakened to Relaxed or the
//! consumer's fence is removed. It does not model loads that read from
//! later stores, so the `head` Release is argued above, not model-checked.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

mod descriptor;
pub mod layout;
#[cfg(not(loom))]
pub mod link;
mod queue;
#[cfg(not(loom))]
#[allow(unsafe_code)]
mod raw;
mod ring;
mod sync;

pub use descriptor::{DataRegion, Descriptor, ValidDescriptor};
pub use layout::{ring_bytes, Header, LayoutError, Slot};
pub use queue::{Queue, Receiver, SendError, Sender};
pub use ring::{Consumer, Corrupt, PopError, Producer, PushError, Ring};
