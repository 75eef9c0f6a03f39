//! File-server client test: every operation through the per-call path
//! (VAN), the same work as compounds (COSY) and with zero-copy buffers in
//! a data region (COSY-FAST); the data is checked by CRC each time, and
//! each bad request must get its own specific error. The runner checks
//! the disk with e2fsck afterwards.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod compounds;
mod errors;
mod typed;
mod van;

use conflux_fs_client::Fs;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

pub use conflux_userlib::testing::pattern;

pub fn crc(bytes: &[u8]) -> u32 {
    CRC.checksum(bytes)
}

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    c.that("connected", true, ());
    van::run(&mut c, &mut fs);
    compounds::run(&mut c, &mut fs);
    errors::run(&mut c, &mut fs);
    typed::run(&mut c, &mut fs);
    c.eq("shut the file server down", fs.shutdown(), Ok(()));
    c.finish()
}
