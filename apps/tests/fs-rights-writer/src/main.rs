//! A file-server client confined to `/box`, read-write, through an
//! unbadged capability (test fs-rights). It tries to reach, change, move,
//! link and remove what lies outside its root, and to remove or move the
//! root itself (`attacks`); it mints a badge of its own, which must be
//! refused a session (`minted`). It starts once the
//! reader is done; at the end it connects as an administrator with the
//! whole tree, checks that nothing outside the roots changed and that its
//! own changes all landed inside `/box` (`judge`), then shuts the server
//! down so the runner can e2fsck the disk.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod attacks;
mod judge;
mod minted;

use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::{O_DIRECTORY, O_RDONLY};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// What a refused request of this client gets.
pub const fn refused(e: FsError) -> Result<(), Error> {
    Err(Error::Fs(e))
}

/// `r` with its value dropped, to compare with an expected error.
pub fn outcome<T>(r: Result<T, Error>) -> Result<(), Error> {
    r.map(drop)
}

/// The names of the directory `path`, sorted.
pub fn listing(fs: &mut Fs, path: &str) -> Result<Vec<String>, Error> {
    let fd = fs.open(path, O_RDONLY | O_DIRECTORY, 0)?;
    let mut all = Vec::new();
    loop {
        let page = fs.readdir(fd)?;
        if page.is_empty() {
            break;
        }
        all.extend(
            page.iter()
                .map(|d| String::from_utf8_lossy(d.name()).into_owned()),
        );
    }
    fs.close(fd)?;
    all.sort();
    Ok(all)
}

/// `list` as owned names, to compare with [`listing`].
pub fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|n| String::from(*n)).collect()
}

/// All of the (small, text) file `path`, as text for the console.
pub fn contents(fs: &mut Fs, path: &str) -> Result<String, Error> {
    let fd = fs.open(path, O_RDONLY, 0)?;
    let mut data = alloc::vec![0u8; 4096];
    let n = fs.read(fd, &mut data)?;
    fs.close(fd)?;
    Ok(String::from_utf8_lossy(&data[..n]).into_owned())
}

/// `bytes` as [`contents`] gives them.
pub fn text(bytes: &[u8]) -> Result<String, Error> {
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

fn main() {
    let mut c = Checks::new();
    // The reader goes first, so the console shows each task's checks in
    // one piece and the judge sees both tasks' work.
    let _ = Notification(config::caps::DONE).wait();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    attacks::run(&mut c, &mut fs);
    minted::run(&mut c);
    judge::run(&mut c);
    c.finish()
}
