//! Bad requests, each with its own error, and the server still serving.

use conflux_fs_client::{Error, Fd, Fs, Operand};
use conflux_fs_protocol::ops::*;
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;
use cosy_abi::code;

fn fs_err<T>(e: FsError) -> Result<T, Error> {
    Err(Error::Fs(e))
}

pub fn run(c: &mut Checks, fs: &mut Fs) {
    c.eq(
        "stat a missing file",
        fs.stat("/nope").map(|_| ()),
        fs_err(FsError::NotFound),
    );
    c.eq(
        "unknown open flags",
        fs.open("/t/b", 1 << 30, 0).map(|_| ()),
        fs_err(FsError::Invalid),
    );
    c.eq(
        "close a handle never opened",
        fs.close(Fd(40)),
        fs_err(FsError::BadHandle),
    );
    c.eq(
        "mkdir an existing name",
        fs.mkdir("/t", 0o755),
        fs_err(FsError::Exists),
    );
    c.eq(
        "rmdir a non-empty directory",
        fs.rmdir("/t"),
        fs_err(FsError::NotEmpty),
    );
    c.eq(
        "open a directory for writing",
        fs.open("/t", O_WRONLY, 0).map(|_| ()),
        fs_err(FsError::IsADirectory),
    );
    let past = Operand::Buf {
        region: 0,
        offset: u32::MAX - 4,
        len: 64,
    };
    c.eq(
        "a buffer operand outside the region",
        fs.call(FSTAT, &[Operand::Value(0), past]),
        Err(Error::Request(code::REF_OUT_OF_BOUNDS)),
    );
    let unknown = Operand::Buf {
        region: 3,
        offset: 0,
        len: 64,
    };
    c.eq(
        "a region that was never attached",
        fs.call(STAT, &[unknown, unknown]),
        Err(Error::Request(code::REF_OUT_OF_BOUNDS)),
    );
    c.eq(
        "an operation number past the table",
        fs.call(500, &[]),
        fs_err(FsError::NoSuchOp),
    );
    // A compound with garbage bytes: refused by the verifier.
    let garbage = [0x5Au8; 64];
    let r = fs.run(&garbage, &[]);
    c.that(
        "a garbage compound is refused",
        matches!(r, Err(Error::Rejected { .. })),
        r,
    );
    let r = fs.run_prepared(3, &[]);
    c.eq(
        "run a prepared handle never made",
        r.map(|_| ()),
        fs_err(FsError::BadHandle),
    );
    c.eq(
        "still serving: stat /t/b",
        fs.stat("/t/b").map(|s| s.size),
        Ok(5000),
    );
}
