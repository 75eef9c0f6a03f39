//! Every change a read-only client could try, on names inside its root
//! and on a handle it opened for reading, per call and inside compounds:
//! each is refused with `ReadOnlyClient` before it starts. Reading and
//! `fsync`/`sync` stay open to it.

use alloc::format;

use conflux_fs_client::{Error, Fs, OpFailure};
use conflux_fs_protocol::ops::{
    OPEN, O_CREAT, O_EXCL, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY, STAT, UNLINK,
};
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;
use cosy_abi::typed::{Failure, RunOutcome};
use cosy_abi::Builder;

use crate::{outcome, refused};

const NO: Result<(), conflux_fs_client::Error> = refused(FsError::ReadOnlyClient);

pub fn run(c: &mut Checks, fs: &mut Fs) {
    for (flags, name) in [
        (O_WRONLY, "O_WRONLY"),
        (O_RDWR, "O_RDWR"),
        (O_RDONLY | O_CREAT, "O_RDONLY|O_CREAT"),
        (O_WRONLY | O_CREAT | O_EXCL, "O_WRONLY|O_CREAT|O_EXCL"),
        (O_RDWR | O_TRUNC, "O_RDWR|O_TRUNC"),
    ] {
        for p in ["/index.html", "/new.txt"] {
            c.eq(
                &format!("open {p} {name}"),
                outcome(fs.open(p, flags, 0o644)),
                NO,
            );
        }
    }
    c.eq("mkdir /d", fs.mkdir("/d", 0o755), NO);
    c.eq("rmdir /sub", fs.rmdir("/sub"), NO);
    c.eq("unlink /index.html", fs.unlink("/index.html"), NO);
    c.eq("unlink /leak", fs.unlink("/leak"), NO);
    c.eq("truncate /index.html", fs.truncate("/index.html", 0), NO);
    c.eq(
        "rename /index.html /moved",
        fs.rename("/index.html", "/moved"),
        NO,
    );
    c.eq(
        "link /index.html /again",
        fs.link("/index.html", "/again"),
        NO,
    );
    handle(c, fs);
    compounds(c, fs);
}

fn handle(c: &mut Checks, fs: &mut Fs) {
    let fd = match fs.open("/index.html", O_RDONLY, 0) {
        Ok(fd) => fd,
        Err(e) => return c.that("open /index.html to read", false, e),
    };
    c.eq(
        "write on a handle open to read",
        outcome(fs.write(fd, b"evil")),
        NO,
    );
    c.eq("pwrite on it", outcome(fs.pwrite(fd, b"evil", 0)), NO);
    c.eq("ftruncate on it", fs.ftruncate(fd, 0), NO);
    let mut buf = [0u8; 64];
    let read = fs.read(fd, &mut buf);
    c.eq(
        "read /index.html",
        read.map(|n| core::str::from_utf8(&buf[..n]).unwrap_or("(not UTF-8)")),
        Ok("<h1>inside /www</h1>\n"),
    );
    c.eq("fsync stays open to a reader", fs.fsync(fd), Ok(()));
    c.eq("sync too", fs.sync(), Ok(()));
    let _ = fs.close(fd);
}

/// Compounds are held to the same rights: a stat that leaves the root
/// finds nothing, an unlink or an open for writing stops the compound.
fn compounds(c: &mut Checks, fs: &mut Fs) {
    // The one op (index 0) stops the compound with the file error.
    let stopped = |op, e: FsError| -> Result<RunOutcome, Error> {
        Err(Error::Compound(OpFailure {
            op: Some(0),
            name: conflux_fs_client::op_name(op),
            error: Failure::Service(e),
        }))
    };
    let cases = [
        (STAT, "../secret.txt", 0, FsError::NotFound),
        (UNLINK, "/index.html", 0, FsError::ReadOnlyClient),
        (OPEN, "/index.html", O_RDWR, FsError::ReadOnlyClient),
    ];
    for (op, path, flags, want) in cases {
        let len = path.len() as u32 + 1;
        fs.control()[..path.len()].copy_from_slice(path.as_bytes());
        fs.control()[path.len()] = 0;
        let mut b = Builder::new();
        b.fail_fast(true);
        let (r, p, out) = (b.reg(), b.buf(0, 0, len), b.buf(0, 4096, 128));
        match op {
            STAT => b.call(r, STAT, (p, out)),
            UNLINK => b.call(r, UNLINK, (p,)),
            _ => b.call(r, OPEN, (p, flags, 0u64)),
        };
        let ran = match b.build() {
            Ok(bytes) => fs.run(&bytes, &[]).map(|r| r.outcome),
            Err(e) => return c.that("build a compound", false, e),
        };
        let name = conflux_fs_client::op_name(op);
        c.eq(&format!("compound: {name} {path}"), ran, stopped(op, want));
    }
}
