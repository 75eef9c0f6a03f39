//! `[test] udp`: datagrams the runner sends to a UDP forward.

/// One `[test] udp` entry: `count` datagrams of `size` bytes, each a
/// self-checking record of `seed` encrypted on its own with AES-128-CBC
/// under `key` and `iv`, sent to host port `port` at `rate` per second (0:
/// as fast as the socket takes them) once the console shows `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UdpBlast {
    pub port: u16,
    pub after: String,
    pub count: u32,
    pub size: u32,
    pub seed: u64,
    pub key: [u8; 16],
    pub iv: [u8; 16],
    pub rate: u32,
}
