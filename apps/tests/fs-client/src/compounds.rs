//! Compounds: `ls -l` as one (COSY), a read loop whose data the client
//! copies out (COSY), and a write + read-back in a data region used in
//! place (COSY-FAST); a prepared compound run with new parameters. All
//! but `ls -l` (a recipe of the protocol crate) are written with `cosy!`.

use alloc::vec::Vec;

use conflux_fs_client::Fs;
use conflux_fs_protocol::ops::*;
use conflux_fs_protocol::record::Kind;
use conflux_userlib::testing::Checks;
use cosy_abi::typed::RunOutcome;
use cosy_macro::cosy;

use crate::{crc, pattern};

/// What /t/b holds after the VAN part.
fn expected_b() -> Vec<u8> {
    let mut b = pattern(1, 300 * 1024);
    b.truncate(1000);
    b[100..104].copy_from_slice(b"XYZW");
    b.resize(5000, 0);
    b
}

pub fn run(c: &mut Checks, fs: &mut Fs) {
    list(c, fs);
    read_loop(c, fs);
    zero_copy(c, fs);
    prepared(c, fs);
}

fn list(c: &mut Checks, fs: &mut Fs) {
    match fs.list_long("/t") {
        Ok((entries, cut)) => {
            c.eq("ls -l /t as one compound: entries", entries.len(), 21);
            c.eq("not cut", cut, false);
            let size = |name: &[u8]| {
                entries
                    .iter()
                    .find(|(d, _)| d.name() == name)
                    .map(|(_, s)| (s.kind, s.size, s.perm))
            };
            c.eq("ls -l: b", size(b"b"), Some((Kind::File, 5000, 0o644)));
            c.eq("ls -l: f07", size(b"f07"), Some((Kind::File, 70, 0o600)));
        }
        Err(e) => c.that("ls -l /t as one compound", false, e),
    }
}

fn read_loop(c: &mut Checks, fs: &mut Fs) {
    // open; read 4 KiB chunks into consecutive places until a short one;
    // close; exit with the total. Written with `cosy!`, as an app would.
    let compound = cosy!(TABLE, || {
        #![fail_fast]
        let path = buf(0, 0, 16);
        let mut total = 0;
        // The chunk moves on with the total read so far.
        let chunk = buf_at(0, total, 4096, 4096);
        let fd = open(path, O_RDONLY, 0);
        loop {
            let n = read(fd, chunk, 4096);
            total += n;
            if n != 4096 {
                break;
            }
        }
        close(fd);
        total
    });
    let compound = compound.build().expect("builds");
    fs.control()[..6].copy_from_slice(b"/t/b\0\0");
    let run = fs.run(&compound, &[]);
    c.that(
        "COSY read loop finished",
        run.is_ok_and(|r| r.outcome == RunOutcome::Clean),
        run,
    );
    let total = run.map_or(0, |r| r.exit_value as usize);
    c.eq("COSY read loop: bytes", total, 5000);
    // COSY: the data is copied out of the shared region into the app's.
    let copy: Vec<u8> = fs.control()[4096..4096 + total].to_vec();
    c.eq("COSY read loop: CRC", crc(&copy), crc(&expected_b()));
}

fn zero_copy(c: &mut Checks, fs: &mut Fs) {
    let number = match fs.attach(
        crate::config::caps::FS_DATA,
        crate::config::caps::FS_DATA_ADDR,
    ) {
        Ok(n) => n,
        Err(e) => return c.that("attach a data region", false, e),
    };
    c.eq("attach a data region", number, 1);
    const LEN: usize = 64 * 1024;
    let data = pattern(9, LEN);
    let region = fs.data(number).expect("attached");
    region[..LEN].copy_from_slice(&data);
    region[LEN..LEN + 8].copy_from_slice(b"/t/fast\0");
    // Write the 64 KiB from the data region, fsync, read it back into the
    // region's second half: the bytes never pass through the app.
    let b = cosy!(TABLE, || {
        #![fail_fast]
        let path = buf(number, LEN as u32, 8);
        let src = buf(number, 0, LEN as u32);
        let dst = buf(number, 2 * LEN as u32, LEN as u32);
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644);
        let mut n = write(fd, src, LEN as u64);
        fsync(fd);
        n = pread(fd, dst, LEN as u64, 0);
        close(fd);
        n
    });
    let run = fs.run(&b.build().expect("builds"), &[]);
    c.eq(
        "COSY-FAST write + read back",
        run.map(|r| r.exit_value),
        Ok(LEN as u64),
    );
    let region = fs.data(number).expect("attached");
    c.eq(
        "COSY-FAST data in place: CRC",
        crc(&region[2 * LEN..3 * LEN]),
        crc(&data),
    );
    c.eq(
        "and on the disk (VAN stat)",
        fs.stat("/t/fast").map(|s| s.size),
        Ok(LEN as u64),
    );
}

fn prepared(c: &mut Checks, fs: &mut Fs) {
    // pread(r0 = fd, 8 bytes at r1) into the control region.
    let b = cosy!(TABLE, |fd, at| {
        let into = buf(0, 64, 8);
        pread(fd, into, 8, at)
    });
    let handle = fs.prepare(&b.build().expect("builds"));
    c.that("prepare a compound", handle.is_ok(), handle);
    let fd = fs.open("/t/b", O_RDONLY, 0).expect("open /t/b");
    let want = expected_b();
    for offset in [0u64, 100, 4992] {
        let h = *handle.as_ref().unwrap_or(&0);
        let run = fs.run_prepared(h, &[fd.0, offset]);
        let got = fs.control()[64..72].to_vec();
        let o = offset as usize;
        c.eq(
            "prepared pread with new parameters",
            (run.map(|r| r.exit_value), got),
            (Ok(8), want[o..o + 8].to_vec()),
        );
    }
    c.eq("close", fs.close(fd), Ok(()));
}
