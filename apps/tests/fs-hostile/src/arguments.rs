//! Hostile arguments to well-formed requests, and handles that belong to
//! other clients (the worker has files open meanwhile).

use conflux_fs_client::{Error, Fd, Fs, Operand};
use conflux_fs_protocol::ops::{FSTAT, O_RDONLY, READ, SEEK_SET};
use conflux_fs_protocol::FsError;
use conflux_userlib::testing::Checks;
use cosy_abi::code;

fn fs_err<T>(e: FsError) -> Result<T, Error> {
    Err(Error::Fs(e))
}

pub fn run(c: &mut Checks, fs: &mut Fs) {
    c.eq(
        "unknown open flags",
        fs.open("/README", 1 << 30, 0).map(drop),
        fs_err(FsError::Invalid),
    );
    c.eq(
        "stat a missing file",
        fs.stat("/no/such/file").map(drop),
        fs_err(FsError::NotFound),
    );
    let fd = fs.open("/README", O_RDONLY, 0).expect("open /README");
    c.eq(
        "write to a file opened read-only",
        fs.write(fd, b"x").map(drop),
        fs_err(FsError::BadHandle),
    );
    c.eq(
        "an unknown whence",
        fs.seek(fd, 0, 77).map(drop),
        fs_err(FsError::Invalid),
    );
    c.eq(
        "a read into a buffer past the control region",
        fs.call(
            READ,
            &[
                Operand::Value(fd.0),
                Operand::Buf {
                    region: 0,
                    offset: u32::MAX - 16,
                    len: 4096,
                },
                Operand::Value(4096),
            ],
        ),
        Err(Error::Request(code::REF_OUT_OF_BOUNDS)),
    );
    c.eq(
        "a buffer operand naming region 255",
        fs.call(FSTAT, &[Operand::Value(fd.0), Operand::Value(u64::MAX)]),
        Err(Error::Request(code::REF_OUT_OF_BOUNDS)),
    );
    c.eq("rewind", fs.seek(fd, 0, SEEK_SET), Ok(0));
    // Handle numbers this session never opened: whatever other clients
    // hold under those numbers is theirs alone.
    let mut others = 0;
    for n in 0..16u64 {
        if n != fd.0 && fs.fstat(Fd(n)) == fs_err(FsError::BadHandle) {
            others += 1;
        }
    }
    c.eq(
        "15 handle numbers of other sessions are bad here",
        others,
        15,
    );
    c.eq("close", fs.close(fd), Ok(()));
    c.eq("close it twice", fs.close(fd), fs_err(FsError::BadHandle));
    c.eq(
        "a huge handle number",
        fs.fstat(Fd(u64::MAX)).map(drop),
        fs_err(FsError::BadHandle),
    );
}
