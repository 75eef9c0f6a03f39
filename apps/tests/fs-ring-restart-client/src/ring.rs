//! Ring helpers of the test: one entry submitted and waited for, its
//! answer as a value or the error its status names; NOPs in batches.

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, Operand, Ticket};
use conflux_fs_protocol::ops;
use cosy_abi::code;
use cosy_abi::ring::DEPTH;

/// `len` bytes at `offset` of the control region.
pub fn control(offset: u32, len: u32) -> Operand {
    Operand::Buf {
        region: 0,
        offset,
        len,
    }
}

/// An answer's value, or the error its status stands for (a ring's
/// status is the code a compound op would report, as a reply label's
/// is, but for `code::OK`).
pub fn value(status: u16, value: u64) -> Result<u64, Error> {
    if status == code::OK {
        return Ok(value);
    }
    Err(Error::from_status(u32::from(status), 0).unwrap_or(Error::Request(status)))
}

/// Submits operation `op`, flushes, and waits for its answer: its value.
/// An answer for another ticket is an error here (nothing else is in
/// flight when this is called).
pub fn one(fs: &mut Fs, op: u16, operands: &[Operand]) -> Result<u64, Error> {
    let t = fs.ring_submit(op, operands)?;
    fs.ring_flush()?;
    let r = fs.ring_wait()?;
    if r.ticket != t {
        conflux_userlib::println!(
            "CHECK FAILED: waited for ticket {:#x} and reaped {:#x}",
            t.tag(),
            r.ticket.tag()
        );
        return Err(Error::Request(r.completion.status));
    }
    value(r.completion.status, r.completion.value)
}

/// `count` NOPs in batches of the depth; the tickets answered OK (each
/// one once, and only tickets of this call).
pub fn nops(fs: &mut Fs, count: u32) -> Result<Vec<Ticket>, Error> {
    let mut answered = Vec::new();
    let mut left = count;
    while left > 0 {
        let batch = left.min(DEPTH);
        let mut waiting = Vec::new();
        for _ in 0..batch {
            waiting.push(fs.ring_submit(ops::NOP, &[])?);
        }
        fs.ring_flush()?;
        for _ in 0..batch {
            let r = fs.ring_wait()?;
            if let Some(at) = waiting.iter().position(|t| *t == r.ticket) {
                let t = waiting.swap_remove(at);
                if r.completion.is_ok() {
                    answered.push(t);
                }
            }
        }
        left -= batch;
    }
    Ok(answered)
}
