//! A file-server client confined to `/www`, read-only (test fs-rights):
//! it tries every way out of its root (`escapes`) and every change to the
//! files it can see (`changes`), per call and inside compounds, and each
//! must get its exact result. Then it tells the writer (which checks the
//! disk as an administrator afterwards) that it is done.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod changes;
mod escapes;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::record::Kind;
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

/// The kind `stat` gives `path`, or its error.
pub fn kind(fs: &mut Fs, path: &str) -> Result<Kind, Error> {
    fs.stat(path).map(|s| s.kind)
}

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    escapes::run(&mut c, &mut fs);
    changes::run(&mut c, &mut fs);
    let _ = Notification(config::caps::DONE).signal();
    c.finish()
}
