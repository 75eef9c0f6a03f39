//! A driver library for the virtio crypto device (virtio 1.2 §5.9), on
//! `virtio-drivers`' transport and virtqueue, cipher service only:
//! AES-CBC and AES-CTR sessions created and destroyed on the control
//! queue, encrypt/decrypt requests on data queue 0.
//!
//! Layers, each in its own module:
//!
//! - [`wire`]: the device's structs as bytes, pinned by literal tests;
//! - [`protocol`]: what a request must satisfy, building it, checking
//!   the answer, and the table of sessions — pure functions and a core
//!   generic over how buffers reach the device, host-tested against a
//!   fake device that computes with software AES;
//! - [`device`]: [`VirtIOCrypto`], the core over two virtqueues; the
//!   only `unsafe` in the crate (virtio-drivers' `add`/`pop_used`);
//! - [`soft`] (feature `soft`): software AES-CBC/CTR to check the
//!   device's results.
//!
//! Principles: the device is not trusted to be sane — every used length
//! and status is checked, and no answer can make the driver panic;
//! requests QEMU would not answer (mismatched or oversized lengths, an
//! unknown session to destroy) are refused before they reach it.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

extern crate alloc;

pub mod device;
pub mod error;
pub mod protocol;
#[cfg(any(test, feature = "soft"))]
pub mod soft;
mod wait;
pub mod wire;

pub use device::{DeviceConfig, VirtIOCrypto};
pub use error::Error;
pub use protocol::{Algorithm, Direction, Job, Limits, SessionId, IV_LEN, MAX_BATCH};
pub use wait::Sleep;
