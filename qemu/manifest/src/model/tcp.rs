//! `[test] tcp_sink`: a stream the runner receives from the guest.

/// One `[test] tcp_sink` entry: before boot the runner listens on
/// 127.0.0.1:`port` (a `guest_forwards` host port), takes QEMU's
/// connection, and reads the stream the guest sends to the forward: it
/// must be exactly `count` self-checking records of `size` bytes made
/// from `seed`, each encrypted on its own with AES-128-CBC under `key`
/// and `iv` when they are given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpSink {
    pub port: u16,
    pub count: u32,
    pub size: u32,
    pub seed: u64,
    pub cipher: Option<([u8; 16], [u8; 16])>,
}
