//! Where fs-ops' buffers lie in the region a compound uses (the control
//! region for COSY, the attached data region for COSY-FAST), and in the
//! app's own memory for VAN: the same offsets everywhere, so one piece
//! of code reads what any configuration left.
//!
//! The *operation's* buffers are where the file operation reads or
//! writes: a path, a stat record, data. COSY copies between them and the
//! app's buffers at `APP_*` once per operation, as a system call copies
//! between kernel and user memory; COSY-FAST's operations use the app's
//! buffers themselves ([`app`]). The control region's last bytes hold the
//! compound (`Fs::run`), above all of these.

use conflux_fs_protocol::record::{Dirent, DirentPlus, Stat};

use crate::Config;

/// The operation's path (NUL-terminated).
pub const PATH: u32 = 0;
pub const PATH_LEN: u32 = 1024;
/// The operation's stat record.
pub const RECORD: u32 = 1024;
pub const RECORD_LEN: u32 = Stat::SIZE as u32;
/// COSY: the app's path, copied to [`PATH`] for each operation.
pub const APP_PATH: u32 = 2048;
/// COSY: the app's stat record, copied from [`RECORD`] after each `stat`.
pub const APP_RECORD: u32 = 3072;
/// open-read-close: the app's table of paths, one per file, each
/// [`NAME_LEN`] bytes (the app's in every configuration).
pub const NAMES: u32 = 4096;
pub const NAME_LEN: u32 = 64;
/// The most paths the table holds.
pub const MAX_NAMES: u32 = (DATA - NAMES) / NAME_LEN;
/// The operation's data: a block, a 64 KiB chunk, a batch of entries
/// (with their status, for readdirplus).
pub const DATA: u32 = 65536;
pub const DATA_LEN: u32 = 65536;
/// COSY: the app's data buffer.
pub const APP_DATA: u32 = 131_072;
/// Bytes the layout spans (VAN's app memory is this long).
pub const SPAN: u32 = APP_DATA + DATA_LEN;
/// pread's and pwrite's block.
pub const BLOCK: u32 = 4096;
/// Entries one `readdir` or `readdirplus` asks for (VAN's batch too:
/// `Fs::readdir`, `Fs::readdir_plus`).
pub const BATCH: u32 = 64;
/// A directory entry's bytes.
pub const DIRENT: u32 = Dirent::SIZE as u32;
/// A directory entry's bytes with its status before it (readdirplus).
pub const DIRENT_PLUS: u32 = DirentPlus::SIZE as u32;

// A batch of entries must fit the data buffer it is read into.
const _: () = assert!(BATCH * DIRENT <= DATA_LEN, "a readdir batch overflows DATA");
// 64 entries with their status take 20,992 bytes: a third of it.
const _: () = assert!(
    BATCH * DIRENT_PLUS <= DATA_LEN,
    "a readdirplus batch overflows DATA"
);

/// Where the app's own buffers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Places {
    pub path: u32,
    pub record: u32,
    pub data: u32,
}

/// The app's buffers in `config`: COSY's apart from the operation's
/// (COSY copies between them), COSY-FAST's the operation's own. VAN's
/// are in the app's memory at COSY's offsets (the client library copies
/// to and from the control region).
pub fn app(config: Config) -> Places {
    match config {
        Config::Van | Config::Cosy => Places {
            path: APP_PATH,
            record: APP_RECORD,
            data: APP_DATA,
        },
        Config::CosyFast => Places {
            path: PATH,
            record: RECORD,
            data: DATA,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_buffers_overlap() {
        let spans = [
            (PATH, PATH_LEN),
            (RECORD, RECORD_LEN),
            (APP_PATH, PATH_LEN),
            (APP_RECORD, RECORD_LEN),
            (NAMES, MAX_NAMES * NAME_LEN),
            (DATA, DATA_LEN),
            (APP_DATA, DATA_LEN),
        ];
        for (i, a) in spans.iter().enumerate() {
            for b in &spans[i + 1..] {
                assert!(a.0 + a.1 <= b.0 || b.0 + b.1 <= a.0, "{a:?} and {b:?}");
            }
            assert!(a.0 + a.1 <= SPAN);
        }
    }

    #[test]
    fn cosy_fast_uses_the_operations_buffers_and_cosy_its_own() {
        assert_eq!(app(Config::CosyFast).data, DATA);
        assert_eq!(app(Config::Cosy).data, APP_DATA);
        assert_eq!(app(Config::Van), app(Config::Cosy));
    }
}
