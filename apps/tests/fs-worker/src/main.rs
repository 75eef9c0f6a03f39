//! File-server worker: a well-behaved client that writes files of
//! different sizes and reads them back, checking each by CRC, while
//! another client attacks the same server (test fs-hostile). When done it
//! signals the `done` notification, so the attacker knows it may shut the
//! server down.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::format;
use alloc::vec;

use conflux_fs_client::Fs;
use conflux_fs_protocol::ops::{O_CREAT, O_EXCL, O_RDWR, SEEK_SET};
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Files written and read back.
const FILES: u32 = 24;

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

use conflux_userlib::testing::pattern;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    c.eq("mkdir /w", fs.mkdir("/w", 0o755), Ok(()));
    let mut good = 0;
    for i in 0..FILES {
        if round(&mut fs, i) {
            good += 1;
        }
    }
    c.eq("every file read back with its CRC", good, FILES);
    let _ = Notification(config::caps::DONE).signal();
    c.finish()
}

/// Writes file `i` (sizes from 1 byte to about 70 KiB), reads it back and
/// compares CRCs; prints what went wrong.
fn round(fs: &mut Fs, i: u32) -> bool {
    let len = 1 + (i as usize * 2_917) % 70_000;
    let data = pattern(i + 7, len);
    let path = format!("/w/f{i}");
    let result = (|| {
        let fd = fs.open(&path, O_RDWR | O_CREAT | O_EXCL, 0o644)?;
        let wrote = fs.write(fd, &data)?;
        fs.seek(fd, 0, SEEK_SET)?;
        let mut back = vec![0u8; len + 16];
        let read = fs.read(fd, &mut back)?;
        fs.close(fd)?;
        Ok::<_, conflux_fs_client::Error>((wrote, read, CRC.checksum(&back[..read])))
    })();
    match result {
        Ok((wrote, read, crc)) if wrote == len && read == len && crc == CRC.checksum(&data) => true,
        other => {
            println!("CHECK FAILED: {path} ({len} bytes): {other:?}");
            false
        }
    }
}
