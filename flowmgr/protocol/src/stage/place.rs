//! Where a file or network stage reads or sends: a file's path and a
//! host's IPv4 address and port, as they travel in a spec's fixed words.
//!
//! Both are checked once when a spec is decoded, so a stage never sees a
//! path with a NUL in it or a port 0.

use core::fmt;

/// Bytes a path may take in a spec (four words).
pub const MAX_PATH: usize = 32;

/// A file's absolute path: `/`-led, at most [`MAX_PATH`] bytes of UTF-8,
/// no NUL, no empty component.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FilePath {
    len: u8,
    bytes: [u8; MAX_PATH],
}

impl FilePath {
    /// `None` unless `path` is a valid absolute path that fits.
    pub fn new(path: &str) -> Option<Self> {
        let ok = path.len() <= MAX_PATH
            && path.len() > 1
            && path.starts_with('/')
            && !path.ends_with('/')
            && !path.contains('\0')
            && !path.contains("//");
        if !ok {
            return None;
        }
        let mut bytes = [0; MAX_PATH];
        bytes[..path.len()].copy_from_slice(path.as_bytes());
        Some(Self {
            len: path.len() as u8,
            bytes,
        })
    }

    /// From the `len` bytes of a decoded spec.
    pub(crate) fn from_raw(len: u64, bytes: &[u8; MAX_PATH]) -> Option<Self> {
        let b = bytes.get(..usize::try_from(len).ok()?)?;
        Self::new(core::str::from_utf8(b).ok()?)
    }

    pub fn as_str(&self) -> &str {
        // Checked to be UTF-8 when made.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }

    pub(crate) fn raw(&self) -> (u64, &[u8; MAX_PATH]) {
        (u64::from(self.len), &self.bytes)
    }
}

impl fmt::Debug for FilePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for FilePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A host's IPv4 address and a port (not 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    pub addr: [u8; 4],
    pub port: u16,
}

impl Peer {
    /// One word: the address's octets, most significant first, in bits
    /// 0..32, the port in 32..48.
    pub(crate) fn word(&self) -> u64 {
        u64::from(u32::from_be_bytes(self.addr)) | u64::from(self.port) << 32
    }

    pub(crate) fn from_word(w: u64) -> Option<Self> {
        let port = (w >> 32) as u16;
        if port == 0 || w >> 48 != 0 {
            return None;
        }
        Some(Self {
            addr: (w as u32).to_be_bytes(),
            port,
        })
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.addr;
        write!(f, "{a}.{b}.{c}.{d}:{}", self.port)
    }
}
