//! The atomics the rings are made of: `core`'s normally, loom's under
//! `--cfg loom` so the model checker sees every access and fence.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
