//! What the software flow stage (`flowsoft`) does to one buffer, apart
//! from the task that moves buffers, so it is host-tested.
//!
//! - [`cipher`]: AES-CBC and AES-CTR of one buffer with the flow's key and
//!   IV, the same bytes a virtio-crypto device gives, so a flow may
//!   encrypt on the device and decrypt here (or be moved between them).
//! - [`crc`]: the buffer with its CRC-32C appended.
//!
//! A check sink's tally travels in its STATS figures as
//! `conflux_flow_protocol::record::Tally::to_words`.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

pub mod cipher;
pub mod crc;
