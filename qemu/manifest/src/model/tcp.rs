//! `[test] tcp_sink`: a stream the runner receives from the guest.

/// One `[test] tcp_sink` entry: before boot the runner listens on
/// 127.0.0.1:`port` (a `guest_forwards` host port), takes QEMU's
/// connection, and reads the stream the guest sends to the forward: it
/// must be exactly `content`, each unit (record, or chunk of the file)
/// encrypted on its own with AES-128-CBC under `cipher`'s key and IV when
/// it is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpSink {
    pub port: u16,
    pub content: SinkContent,
    pub cipher: Option<([u8; 16], [u8; 16])>,
    /// The stream may be cut short (it ends, or stays quiet this many
    /// seconds after its first byte) if every whole unit before the cut
    /// is right: the guest's network server restarted under it.
    pub may_cut_secs: Option<u32>,
    /// With `may_cut_secs`: the cut must fall between units (the sender
    /// finishes what it started before it stops).
    pub cut_at_unit: bool,
}

/// What a `tcp_sink` stream must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SinkContent {
    /// `count` self-checking records of `size` bytes from `seed`.
    Records { count: u32, size: u32, seed: u64 },
    /// The bytes of the disk's generated file `path`, in `chunk`-byte
    /// units (the file's size is a multiple of it).
    File { path: String, chunk: u32 },
}
