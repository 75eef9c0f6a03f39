//! The workload's files: `/fsr/fNN`, three 4 KiB chunks of a pattern that
//! depends on the file's number, written one chunk per IPC and fsynced.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fd, Fs};
use conflux_fs_protocol::ops::{O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY};
use conflux_userlib::println;

const CHUNK: usize = 4096;
const CHUNKS: usize = 3;
const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

fn path(n: u32) -> alloc::string::String {
    format!("/fsr/f{n:02}")
}

/// File `n`'s contents.
fn contents(n: u32) -> Vec<u8> {
    conflux_userlib::testing::pattern(n + 1, CHUNK * CHUNKS)
}

/// Writes file `n` (replacing what is there) and fsyncs it. On failure,
/// the handle that was open (if any) and the error.
pub fn write(fs: &mut Fs, n: u32) -> Result<(), (Fd, Error)> {
    let fd = fs
        .open(&path(n), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        .map_err(|e| (Fd(u64::MAX), e))?;
    for chunk in contents(n).chunks(CHUNK) {
        fs.write(fd, chunk).map_err(|e| (fd, e))?;
    }
    fs.fsync(fd).map_err(|e| (fd, e))?;
    fs.close(fd).map_err(|e| (fd, e))?;
    Ok(())
}

/// Whether file `n` holds exactly what [`write`] wrote.
pub fn check(fs: &mut Fs, n: u32) -> bool {
    let want = contents(n);
    let got = fs.open(&path(n), O_RDONLY, 0).and_then(|fd| {
        let mut buf = vec![0u8; want.len() + 1];
        let len = fs.read(fd, &mut buf);
        fs.close(fd)?;
        buf.truncate(len?);
        Ok(buf)
    });
    match got {
        Ok(bytes) if CRC.checksum(&bytes) == CRC.checksum(&want) && bytes.len() == want.len() => {
            true
        }
        Ok(bytes) => {
            println!(
                "{}: {} bytes with CRC {:#010x}, expected {} bytes with CRC {:#010x}",
                path(n),
                bytes.len(),
                CRC.checksum(&bytes),
                want.len(),
                CRC.checksum(&want)
            );
            false
        }
        Err(e) => {
            println!("{}: cannot read it back: {e}", path(n));
            false
        }
    }
}
