//! The server's capability table, shared: data regions of every session
//! take slots from one pool in the file server, so this client opens
//! sessions under eleven more badges and attaches regions in each (up to
//! the session's own limit, `SessionFull`) until the server refuses one
//! with `TableFull`. With the table full, other clients are still served
//! and a session with no data region still connects (control regions have
//! slots of their own); once one of the filling sessions ends, exactly the
//! slots it held can be taken again, by another session, and no more.

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ipc::{self, MAX_REGIONS};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::{Message, Slot};
use conflux_userlib::println;
use conflux_userlib::testing::Checks;

use crate::config::caps;
use crate::raw;

/// The badges whose sessions fill the table.
const FILL: [usize; 11] = [
    caps::AS_1,
    caps::AS_2,
    caps::AS_3,
    caps::AS_4,
    caps::AS_5,
    caps::AS_6,
    caps::AS_7,
    caps::AS_8,
    caps::AS_9,
    caps::AS_10,
    caps::AS_11,
];
/// A badge kept out of the filling, to connect while the table is full.
const FRESH: usize = caps::AS_12;
/// A free slot for each copy of the spare region lent.
const LENT: usize = caps::FIRST_FREE + 4;

/// Sends `label` on `ep` lending a fresh copy of the spare region: the
/// reply's first word.
fn lend(ep: usize, label: u32, words: &[u64]) -> Result<u64, Error> {
    let _ = Slot(LENT).delete();
    let _ = Slot(caps::SPARE).copy(LENT);
    let got = raw(ep, &Message::new(label, words).lending(LENT));
    let _ = Slot(LENT).delete();
    got.map(|w| w[0])
}

fn connect(ep: usize) -> Result<u64, Error> {
    lend(ep, ipc::CONNECT, &[ipc::VERSION])
}

fn attach(ep: usize) -> Result<u64, Error> {
    lend(ep, ipc::ATTACH, &[])
}

pub fn run(c: &mut Checks, fs: &mut Fs) {
    // Per filling session: the regions it attached; and the error that
    // ended the filling (the session it came to is the last one).
    let mut held: Vec<usize> = Vec::new();
    let mut stop = None;
    for ep in FILL {
        if let Err(e) = connect(ep) {
            stop = Some(e);
            break;
        }
        let mut n = 0;
        let refused = loop {
            match attach(ep) {
                Ok(_) => n += 1,
                Err(e) => break e,
            }
        };
        held.push(n);
        if refused != Error::Fs(FsError::SessionFull) || n != MAX_REGIONS - 1 {
            stop = Some(refused);
            break;
        }
    }
    let total: usize = held.iter().sum();
    println!(
        "attached {total} data regions in {} sessions before the server refused one",
        held.len()
    );
    c.eq(
        "attach in session after session until the server's capability table is full",
        stop,
        Some(Error::Fs(FsError::TableFull)),
    );
    c.that(
        "more than one session took slots from the shared pool",
        held.len() > 1 && held[0] == MAX_REGIONS - 1,
        &held,
    );
    c.eq(
        "with the table full, another client is still served: stat /README",
        fs.stat("/README").map(|s| s.size > 0),
        Ok(true),
    );
    c.eq(
        "with the table full, a new session still connects (its control region has its own slot)",
        connect(FRESH).map(drop),
        Ok(()),
    );
    c.eq(
        "and its ATTACH is refused with the table's error, not the session's",
        attach(FRESH),
        Err(Error::Fs(FsError::TableFull)),
    );
    c.eq(
        "the first filling session ends (DETACH)",
        raw(FILL[0], &Message::new(ipc::DETACH, &[])).map(drop),
        Ok(()),
    );
    let again: Vec<_> = (0..MAX_REGIONS).map(|_| attach(FRESH)).collect();
    let mut want: Vec<_> = (1..MAX_REGIONS as u64).map(Ok).collect();
    want.push(Err(Error::Fs(FsError::SessionFull)));
    c.eq(
        "the slots it gave back serve another session, up to that session's limit",
        again,
        want,
    );
    let last = FILL[held.len() - 1];
    c.eq(
        "and no more: the refused session is still refused",
        attach(last),
        Err(Error::Fs(FsError::TableFull)),
    );
    for ep in FILL.iter().chain([&FRESH]) {
        let _ = raw(*ep, &Message::new(ipc::DETACH, &[]));
    }
    c.eq(
        "with every filling session ended, the table has room again",
        attach(caps::FS),
        Ok(2),
    );
}
