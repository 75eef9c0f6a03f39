//! One log file of the writer, `/soak/wN`: what was confirmed durable (an
//! fsync covering it returned), where the next record goes, and the
//! checks. A call that fails is never data loss by itself: only a file
//! that reads back, without error, with fewer intact records than were
//! fsynced is ([`Trouble::Lost`]).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fd, Fs};
use conflux_fs_protocol::ops::{O_CREAT, O_RDWR};

use crate::record::{self, intact_run, SIZE};

/// Bytes read per call when a whole file is checked.
const CHUNK: usize = 16 * 1024;

/// Why a round or a check did not complete.
pub enum Trouble {
    /// A call failed (a restart, an I/O error): nothing is known lost.
    Call(&'static str, Error),
    /// The file reads back without error but holds only `intact` of the
    /// `durable` records fsynced: data loss.
    Lost { intact: u64, durable: u64 },
    /// A batch read back right after its fsync differs from what was
    /// written (`intact` of `count` records from `first` are right).
    Wrong { first: u64, count: u64, intact: u64 },
}

pub struct Log {
    pub file: u32,
    fd: Option<Fd>,
    /// The last record an fsync covered (0: none yet).
    pub durable: u64,
    /// The next record's number.
    next: u64,
}

impl Log {
    pub fn new(file: u32) -> Log {
        Log {
            file,
            fd: None,
            durable: 0,
            next: 1,
        }
    }

    pub fn path(&self) -> String {
        format!("/soak/w{}", self.file)
    }

    /// Forgets the handle (the server restarted, or a call on it failed):
    /// the next round opens the file again and checks it whole first.
    pub fn drop_handle(&mut self, fs: &mut Fs, server_gone: bool) {
        if let Some(fd) = self.fd.take() {
            if !server_gone {
                let _ = fs.close(fd);
            }
        }
    }

    /// Appends `count` records, fsyncs, and reads them back. A file opened
    /// anew (first round, or after trouble) is checked whole first and its
    /// torn tail (records written but never fsynced) cut off.
    pub fn round(&mut self, fs: &mut Fs, count: u64) -> Result<(), Trouble> {
        let fd = self.open(fs)?;
        let first = self.next;
        let bytes: Vec<u8> = (first..first + count)
            .flat_map(|seq| record::encode(self.file, seq))
            .collect();
        let at = (first - 1) * SIZE as u64;
        match fs.pwrite(fd, &bytes, at) {
            Ok(n) if n == bytes.len() => {}
            Ok(_) => return Err(Trouble::Call("pwrite (short)", Error::TooLarge)),
            Err(e) => return Err(Trouble::Call("pwrite", e)),
        }
        self.next += count;
        fs.fsync(fd).map_err(|e| Trouble::Call("fsync", e))?;
        self.durable = first + count - 1;
        let mut back = vec![0u8; bytes.len()];
        let n = fs
            .pread(fd, &mut back, at)
            .map_err(|e| Trouble::Call("pread", e))?;
        let intact = intact_run(self.file, first, &back[..n]);
        if intact != count {
            return Err(Trouble::Wrong {
                first,
                count,
                intact,
            });
        }
        Ok(())
    }

    /// Checks that every record fsynced so far is intact; returns how many
    /// records the file holds intact.
    pub fn check(&mut self, fs: &mut Fs) -> Result<u64, Trouble> {
        let fd = self.open(fs)?;
        self.intact(fs, fd)
    }

    fn open(&mut self, fs: &mut Fs) -> Result<Fd, Trouble> {
        if let Some(fd) = self.fd {
            return Ok(fd);
        }
        let fd = fs
            .open(&self.path(), O_RDWR | O_CREAT, 0o644)
            .map_err(|e| Trouble::Call("open", e))?;
        self.fd = Some(fd);
        let intact = self.intact(fs, fd)?;
        fs.ftruncate(fd, intact * SIZE as u64)
            .map_err(|e| Trouble::Call("ftruncate (cut the unsynced tail)", e))?;
        self.next = intact + 1;
        Ok(fd)
    }

    fn intact(&mut self, fs: &mut Fs, fd: Fd) -> Result<u64, Trouble> {
        let mut buf = vec![0u8; CHUNK];
        let mut intact = 0u64;
        loop {
            let n = fs
                .pread(fd, &mut buf, intact * SIZE as u64)
                .map_err(|e| Trouble::Call("pread (check)", e))?;
            let run = intact_run(self.file, intact + 1, &buf[..n]);
            intact += run;
            if n < CHUNK || run < (n / SIZE) as u64 {
                break;
            }
        }
        if intact < self.durable {
            return Err(Trouble::Lost {
                intact,
                durable: self.durable,
            });
        }
        Ok(intact)
    }
}
