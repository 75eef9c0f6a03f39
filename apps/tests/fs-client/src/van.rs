//! The per-call path: one IPC per operation.

use alloc::vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::*;
use conflux_fs_protocol::record::Kind;
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;

use crate::{crc, pattern};

pub fn run(c: &mut Checks, fs: &mut Fs) {
    // The disk was built from qemu/disk, which holds README.
    let readme = fs.stat("/README");
    c.that(
        "stat /README",
        readme.is_ok_and(|s| s.kind == Kind::File && s.size > 0),
        readme,
    );
    let fd = fs.open("/README", O_RDONLY, 0).expect("open /README");
    let mut head = [0u8; 7];
    c.eq(
        "read the start of /README",
        fs.read(fd, &mut head).map(|_| head),
        Ok(*b"Conflux"),
    );
    c.eq("close", fs.close(fd), Ok(()));

    c.eq("mkdir /t", fs.mkdir("/t", 0o755), Ok(()));
    c.eq("chdir /t", fs.chdir("/t"), Ok(()));
    c.eq("getcwd", fs.getcwd().as_deref(), Ok("/t"));
    // 300 KiB: more than the staging area, so several IPCs each way.
    let data = pattern(1, 300 * 1024);
    let fd = fs
        .open("a", O_RDWR | O_CREAT | O_EXCL, 0o644)
        .expect("create /t/a");
    c.eq("write 300 KiB", fs.write(fd, &data), Ok(data.len()));
    c.eq("fsync", fs.fsync(fd), Ok(()));
    c.eq("seek to the start", fs.seek(fd, 0, SEEK_SET), Ok(0));
    let mut back = vec![0u8; data.len() + 10];
    c.eq(
        "read it back (short at the end)",
        fs.read(fd, &mut back),
        Ok(data.len()),
    );
    c.eq("same CRC", crc(&back[..data.len()]), crc(&data));
    c.eq("pwrite 4 bytes at 100", fs.pwrite(fd, b"XYZW", 100), Ok(4));
    let mut four = [0u8; 4];
    c.eq(
        "pread them",
        fs.pread(fd, &mut four, 100).map(|_| four),
        Ok(*b"XYZW"),
    );
    c.eq(
        "the position stayed at the end",
        fs.seek(fd, 0, SEEK_CUR),
        Ok(data.len() as u64),
    );
    c.eq(
        "fstat size",
        fs.fstat(fd).map(|s| s.size),
        Ok(data.len() as u64),
    );
    c.eq("ftruncate to 1000", fs.ftruncate(fd, 1000), Ok(()));
    c.eq("close", fs.close(fd), Ok(()));
    c.eq("rename a -> b", fs.rename("a", "b"), Ok(()));
    c.eq("link b -> /t/c", fs.link("b", "/t/c"), Ok(()));
    c.eq(
        "two links",
        fs.stat("c").map(|s| (s.size, s.links)),
        Ok((1000, 2)),
    );
    c.eq("unlink c", fs.unlink("c"), Ok(()));
    c.eq("truncate b to 5000", fs.truncate("/t/b", 5000), Ok(()));
    for n in 0..20u32 {
        let name = alloc::format!("f{n:02}");
        let fd = fs.open(&name, O_WRONLY | O_CREAT, 0o600).expect("create");
        fs.write(fd, &pattern(n, n as usize * 10)).expect("write");
        fs.close(fd).expect("close");
    }
    let dir = fs.open("/t", O_RDONLY | O_DIRECTORY, 0).expect("open /t");
    let mut names = alloc::vec::Vec::new();
    loop {
        match fs.readdir(dir) {
            Ok(batch) if batch.is_empty() => break,
            Ok(batch) => names.extend(batch),
            Err(e) => {
                c.that("readdir", false, e);
                break;
            }
        }
    }
    c.eq("readdir lists 21 entries", names.len(), 21);
    c.eq("close the directory", fs.close(dir), Ok(()));
    c.eq("chdir /", fs.chdir("/"), Ok(()));
    let totals = fs.statfs();
    c.that(
        "statfs",
        totals.is_ok_and(|t| t.block_size == 4096 && t.free_blocks > 0),
        totals,
    );
    c.eq(
        "stat a removed name",
        fs.stat("/t/c").map(|_| ()),
        Err(Error::Fs(FsError::NotFound)),
    );
}
