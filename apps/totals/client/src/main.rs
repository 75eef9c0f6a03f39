//! totals's client: asks the server one request at a time (one IPC
//! round trip each), shows that a bad request gets an error reply, then
//! sends the same kind of work as one compound (one round trip for a
//! whole loop of operations) and exits.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use conflux_userlib::ipc::{Endpoint, Message, Region};
use conflux_userlib::{println, SysError};
use core::fmt;
use cosy_abi::{Builder, Cmp};

// This app's own protocol (apps/totals/protocol).
use totals_protocol::{self as protocol, Error};

conflux_userlib::entry!(main);

/// A label the server does not know.
const BOGUS: u32 = 99;

fn main() {
    let server = Endpoint(config::caps::TOTALS);
    let shared = Region(config::caps::SHARED)
        .premapped(config::caps::SHARED_ADDR, config::caps::SHARED_SIZE);
    for amount in 1..=3 {
        match request(&server, protocol::ADD, &[amount]) {
            Ok([total, _]) => println!("add {amount}: total {total}"),
            Err(e) => return println!("add {amount} failed: {e}"),
        }
    }
    match request(&server, BOGUS, &[]) {
        Err(Failure::Refused(e)) => println!("label {BOGUS} refused: {e}"),
        Ok(words) => return println!("label {BOGUS}: expected an error reply, got {words:?}"),
        Err(e) => return println!("label {BOGUS}: expected an error reply: {e}"),
    }
    let compound = match adds(10).build() {
        Ok(bytes) => bytes,
        Err(e) => return println!("building the compound failed: {e:?}"),
    };
    // The compound travels through the shared region; the request says
    // where it is.
    if let Err(e) = shared.copy_in(0, &compound) {
        return println!("the compound does not fit the shared region: {e}");
    }
    match request(&server, protocol::RUN, &[0, compound.len() as u64]) {
        Ok([total, steps]) => println!("compound: total {total} after {steps} steps in one call"),
        Err(e) => println!("the compound failed: {e}"),
    }
}

/// A compound that adds 1, 2, ..., `n` to the total, then exits with it.
fn adds(n: u64) -> Builder {
    let mut b = Builder::new();
    let (i, total) = (b.reg(), b.reg());
    b.for_loop(i, 1, Cmp::LeU, n, 1, |b| {
        b.call_void(protocol::OP_ADD, (i,));
    });
    b.call(total, protocol::OP_GET, ());
    b.exit(total);
    b
}

/// Why a request got no answer.
enum Failure {
    /// The call itself failed (e.g. the server is gone).
    Ipc(SysError),
    /// The server refused it.
    Refused(Error),
    /// A reply label the protocol does not define.
    UnknownReply(u32),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Ipc(e) => write!(f, "the call failed: {e}"),
            Failure::Refused(e) => write!(f, "the server refused it: {e}"),
            Failure::UnknownReply(label) => {
                write!(f, "the server replied with unknown label {label}")
            }
        }
    }
}

/// Calls the server; the reply's first two words.
fn request(server: &Endpoint, label: u32, words: &[u64]) -> Result<[u64; 2], Failure> {
    let reply = server
        .call(&Message::new(label, words))
        .map_err(Failure::Ipc)?;
    match reply.label {
        protocol::OK => Ok([reply.words[0], reply.words[1]]),
        other => {
            Err(Error::from_label(other).map_or(Failure::UnknownReply(other), Failure::Refused))
        }
    }
}
