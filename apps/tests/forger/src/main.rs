//! Forger: tries to make a supervisor believe another task faulted.
//!
//! init trusts only messages marked `from_kernel` with `FAULT_LABEL` on its
//! fault endpoint, and the manifest grants that endpoint to nobody (a
//! capability naming `faults` does not resolve). So this task aims its
//! forgeries at the decoy, an ordinary server, and checks the mark the
//! supervisor relies on cannot be faked: a call or send whose info word sets
//! the kernel-only bit (42) is refused, and the same fault report without
//! it arrives marked as a task's, with its sender's badge.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::{FaultKind, FaultMessage, Info, FAULT_LABEL};
use conflux_abi::{SysError, Sysno};
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::sys::syscall6;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

/// Task index of `victim` in `qemu/tests/forged-fault.toml` (its place in
/// start order, which is what a real fault report carries).
const VICTIM: u32 = 1;
/// Label that tells the decoy to stop.
const STOP: u32 = 9;

/// A call or send to the decoy with a raw info word.
fn raw(num: Sysno, info: u64, words: [u64; 4]) -> Result<(), SysError> {
    let r = syscall6(
        num as u64,
        config::caps::DECOY as u64,
        info,
        words[0],
        words[1],
        words[2],
        words[3],
    );
    match r.rax {
        0 => Ok(()),
        code => Err(SysError::from_code(code).unwrap_or(SysError::UnknownSyscall)),
    }
}

fn main() {
    let mut c = Checks::new();
    let report = FaultMessage {
        task: VICTIM,
        kind: FaultKind::Exception,
        vector: 14,
        error: 4,
        address: 0,
        rip: 0x40_1000,
    }
    .to_words();
    let forged = Info {
        from_kernel: true,
        ..Info::new(FAULT_LABEL, 4)
    }
    .encode()
    .expect("a valid info word");
    c.eq(
        "call claiming to be the kernel's fault report",
        raw(Sysno::Call, forged, report),
        Err(SysError::InvalidArgument),
    );
    c.eq(
        "send claiming to be the kernel's fault report",
        raw(Sysno::Send, forged, report),
        Err(SysError::InvalidArgument),
    );

    // The same report without the kernel's bit is an ordinary message: it
    // arrives, but marked as a task's, with the sender's badge.
    let decoy = Endpoint(config::caps::DECOY);
    let seen = decoy
        .call(&Message::new(FAULT_LABEL, &report))
        .map(|m| m.words);
    c.eq(
        "plain fault-labelled call: decoy saw [from_kernel, label, task, badge]",
        seen,
        Ok([0, u64::from(FAULT_LABEL), u64::from(VICTIM), 66]),
    );
    c.eq(
        "decoy stops",
        decoy.call(&Message::new(STOP, &[])).map(|m| m.label),
        Ok(STOP),
    );
    c.finish();
}
