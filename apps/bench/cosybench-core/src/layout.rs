//! Where the compounds' buffers lie in the region they use (the control
//! region for COSY, the data region for COSY-FAST): the same offsets in
//! both. COSY's compounds also copy each operation's data between the
//! operation's buffer and the app's buffer at [`APP`] (see
//! [`crate::Config`]); COSY-FAST's operations use the app's buffer
//! itself. The control region's end holds the compound itself
//! (`Fs::run`), far above these.

/// A NUL-terminated path (the source file).
pub const PATH_A: u32 = 0;
/// A second path (the copy's destination).
pub const PATH_B: u32 = 1024;
/// Bytes set aside for each path.
pub const PATH_LEN: u32 = 1024;
/// grep's search string.
pub const NEEDLE: u32 = 2048;
/// The data chunk reads go into and writes come from.
pub const CHUNK: u32 = 4096;
/// The chunk's size: 4 KiB, as in the papers.
pub const CHUNK_LEN: u32 = 4096;
/// COSY: the app's buffer, where each operation's data is copied to (a
/// read's) or from (a write's); the same offsets below it as at
/// [`CHUNK`] and after (`APP + x` mirrors `CHUNK + x`), above every
/// operation buffer of the workloads.
pub const APP: u32 = 65536;
/// Bytes of the app's buffer.
pub const APP_LEN: u32 = 65536;

/// Writes `path` NUL-terminated at `at` of `region`; false if it does not
/// fit its [`PATH_LEN`] bytes.
pub fn put_path(region: &mut [u8], at: u32, path: &str) -> bool {
    let (at, bytes) = (at as usize, path.as_bytes());
    if bytes.len() >= PATH_LEN as usize {
        return false;
    }
    match region.get_mut(at..at + bytes.len() + 1) {
        Some(dst) => {
            dst[..bytes.len()].copy_from_slice(bytes);
            dst[bytes.len()] = 0;
            true
        }
        None => false,
    }
}
