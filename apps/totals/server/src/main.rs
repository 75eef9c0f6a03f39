//! totals's server: keeps one total for all its clients.
//!
//! Its loop is the pattern of every Conflux server. `reply_recv` answers
//! the request before (through the *reply slot*, where the kernel left
//! that caller's reply capability) and waits for the next one in the same
//! system call; the *receive slot* is the endpoint capability the manifest
//! gave the server (`config::caps::TOTALS`). A request the server
//! cannot serve gets an error label back ([`Error`]), never a panic: the
//! server outlives its clients' mistakes.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

mod total;

use conflux_userlib::ipc::{Endpoint, Mapped, Message, Region};
use conflux_userlib::println;
use cosy_abi::{Insn, OpResult, Program, Registers, Target};
use total::Total;

// This app's own protocol (apps/totals/protocol).
use totals_protocol::{self as protocol, Error};

conflux_userlib::entry!(main);

/// The reply slot: where the kernel puts a caller's reply capability while
/// the server works on its request (the first slot the manifest left free).
const REPLY: usize = config::caps::FIRST_FREE;
/// Where a capability sent with a request would land; 0 refuses them
/// (this protocol takes none).
const NO_CAP: usize = 0;
/// The longest compound taken, in bytes.
const MAX_COMPOUND: usize = 2048;
/// The most ops a compound may have.
const MAX_OPS: usize = 64;
/// The most steps one run may take (loops included).
const MAX_STEPS: u32 = 100_000;

fn main() {
    let endpoint = Endpoint(config::caps::TOTALS);
    let shared = Region(config::caps::SHARED)
        .premapped(config::caps::SHARED_ADDR, config::caps::SHARED_SIZE);
    let mut total = Total::default();
    println!("serving");
    // The first `reply_recv` has no caller to answer: the reply slot is
    // still empty, so it only waits.
    let mut answer = Message::default();
    loop {
        let got = match endpoint.reply_recv(REPLY, NO_CAP, &answer) {
            Ok(got) => got,
            Err(e) => {
                println!("receiving on the endpoint failed: {e}; stopping");
                return;
            }
        };
        answer = match handle(&got.msg, &mut total, &shared) {
            Ok(words) => Message::new(protocol::OK, &words),
            Err(e) => Message::new(e.label(), &[]),
        };
    }
}

/// Serves one request; the reply's words, or the error to reply with.
fn handle(msg: &Message, total: &mut Total, shared: &Mapped) -> Result<[u64; 2], Error> {
    match msg.label {
        protocol::ADD => Ok([total.add(msg.words[0])?, 0]),
        protocol::GET => Ok([total.get(), 0]),
        protocol::RUN => run(msg.words[0], msg.words[1], total, shared),
        _ => Err(Error::UnknownLabel),
    }
}

/// Verifies and runs the compound the client wrote at `offset` of the
/// shared region: its exit value and the steps it took.
fn run(offset: u64, len: u64, total: &mut Total, shared: &Mapped) -> Result<[u64; 2], Error> {
    let len = usize::try_from(len)
        .ok()
        .filter(|&len| len <= MAX_COMPOUND)
        .ok_or(Error::BadCompound)?;
    // Copied out before it is verified: the client can change the region
    // at any time, and what runs must be what was checked.
    let mut bytes = [0u8; MAX_COMPOUND];
    shared
        .copy_out(offset, &mut bytes[..len])
        .map_err(|e| refused(&e))?;
    let target = Target {
        ops: protocol::OPS,
        regions: &[],
        max_steps: MAX_STEPS,
    };
    let program =
        Program::verify(&bytes[..len], &target, [Insn::EMPTY; MAX_OPS]).map_err(|e| refused(&e))?;
    let mut results = [OpResult::EMPTY; MAX_OPS];
    let mut no_regions: [&mut [u8]; 0] = [];
    let report = program.run(total, &mut no_regions, &mut Registers::new(), &mut results);
    if report.is_clean() {
        Ok([report.exit_value, u64::from(report.steps)])
    } else {
        println!("a compound failed: {report}");
        Err(Error::CompoundFailed)
    }
}

/// Logs why a compound was refused.
fn refused(why: &dyn core::fmt::Display) -> Error {
    println!("refused a compound: {why}");
    Error::BadCompound
}
