//! Malformed and greedy compounds: broken headers, buffer refs past their
//! region or to regions never shared, more ops than the server decodes,
//! a budget far over the server's limit, garbage bytes.

use alloc::vec;
use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs, OpFailure};
use conflux_fs_protocol::ipc;
use conflux_fs_protocol::ops::STAT;
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Message;
use conflux_userlib::testing::Checks;
use cosy_abi::typed::{Failure, RunOutcome};
use cosy_abi::{code, Builder};

use crate::raw;

/// The code the verifier refused the compound with, or what came instead.
fn refusal<T: core::fmt::Debug>(r: Result<T, Error>) -> Result<u16, alloc::string::String> {
    match r {
        Err(Error::Rejected { code, .. }) => Ok(code),
        other => Err(alloc::format!("{other:?}")),
    }
}

/// A small valid compound: r0 = 1; exit r0.
fn valid() -> Vec<u8> {
    let mut b = Builder::new();
    let r = b.reg();
    b.mov(r, 1u64);
    b.exit(r);
    b.build().expect("a valid compound")
}

/// `valid()` with bytes `at..` replaced by `with`.
fn patched(at: usize, with: &[u8]) -> Vec<u8> {
    let mut bytes = valid();
    bytes[at..at + with.len()].copy_from_slice(with);
    bytes
}

pub fn run(c: &mut Checks, fs: &mut Fs) {
    c.eq(
        "a valid compound runs",
        fs.run(&valid(), &[]).map(|r| (r.outcome, r.exit_value)),
        Ok((RunOutcome::Clean, 1)),
    );
    headers(c, fs);
    refs(c, fs);
    limits(c, fs);
    c.eq(
        "a compound span past the control region",
        raw(
            crate::config::caps::FS,
            &Message::new(ipc::RUN, &[u64::MAX - 8, 64]),
        )
        .map(drop),
        Err(Error::Fs(FsError::BadBuffer)),
    );
}

fn headers(c: &mut Checks, fs: &mut Fs) {
    let cases: [(&str, Vec<u8>, u16); 8] = [
        (
            "16 bytes: shorter than a header",
            valid()[..16].to_vec(),
            code::TRUNCATED,
        ),
        ("garbage bytes", vec![0x5A; 256], code::BAD_MAGIC),
        ("wrong magic", patched(0, b"COZY"), code::BAD_MAGIC),
        ("version 2.0", patched(4, &[2]), code::UNSUPPORTED_VERSION),
        ("a reserved flag", patched(6, &[2]), code::UNKNOWN_FLAGS),
        (
            "a reserved header byte",
            patched(20, &[1]),
            code::HEADER_RESERVED,
        ),
        (
            "total_len off by 16",
            patched(8, &[16]),
            code::LENGTH_MISMATCH,
        ),
        (
            "a zero budget",
            patched(16, &[0, 0, 0, 0]),
            code::ZERO_BUDGET,
        ),
    ];
    for (what, bytes, want) in cases {
        c.eq(what, refusal(fs.run(&bytes, &[])), Ok(want));
    }
}

fn refs(c: &mut Checks, fs: &mut Fs) {
    // Regions 0 (control) and 1 (spare) are shared; 2 is not.
    let mut b = Builder::new();
    let (path, out) = (b.buf(2, 0, 16), b.buf(0, 0, 64));
    b.call_void(STAT, (path, out));
    let bytes = b.build().expect("builds");
    c.eq(
        "a buffer ref to a region never shared",
        refusal(fs.run(&bytes, &[])),
        Ok(code::UNKNOWN_REGION),
    );
    let mut b = Builder::new();
    let len = fs.control().len() as u32;
    let (path, out) = (b.buf(0, len - 8, 64), b.buf(0, 0, 64));
    b.call_void(STAT, (path, out));
    let bytes = b.build().expect("builds");
    c.eq(
        "a buffer ref past the end of its region",
        refusal(fs.run(&bytes, &[])),
        Ok(code::STATIC_REF_OUT_OF_BOUNDS),
    );
    // A register-relative ref is checked when it runs.
    let mut b = Builder::new();
    let at = b.reg();
    let (path, out) = (b.buf_at(0, at, 0, 16), b.buf(0, 0, 64));
    let r = b.reg();
    b.call(r, STAT, (path, out));
    b.exit(r);
    let bytes = b.build().expect("builds");
    c.eq(
        "a register-relative ref moved past the region",
        fs.run(&bytes, &[u64::MAX - 4]).map(|r| r.exit_value as i64),
        Ok(-i64::from(code::REF_OUT_OF_BOUNDS)),
    );
}

fn limits(c: &mut Checks, fs: &mut Fs) {
    let ops = fs.max_ops() as usize;
    let mut b = Builder::new();
    let r = b.reg();
    for _ in 0..=ops {
        b.mov(r, 1u64);
    }
    let bytes = b.build().expect("builds");
    c.eq(
        "one op more than the server decodes",
        refusal(fs.run(&bytes, &[])),
        Ok(code::TOO_MANY_OPS),
    );
    // A budget far over the limit is capped to the limit, not refused:
    // the tight loop stops when the server's steps run out.
    let mut b = Builder::new();
    b.step_budget(u32::MAX);
    let spin = b.label();
    b.bind(spin);
    b.jump(spin);
    let bytes = b.build().expect("builds");
    let max = fs.max_steps() as u32;
    c.eq(
        "a tight loop asking for 2^32-1 steps stops at the server's limit",
        fs.run(&bytes, &[]).map(|r| r.outcome),
        Err(Error::Compound(OpFailure {
            op: Some(0),
            name: "jump",
            error: Failure::Abi(code::BUDGET_EXHAUSTED),
        })),
    );
    let at = fs.compound_offset(bytes.len()).unwrap_or(0);
    let steps = cosy_abi::Compound::new_checked(&fs.control()[at..at + bytes.len()])
        .map(|view| view.report().steps);
    c.eq(
        "... after exactly the server's limit of steps",
        steps,
        Ok(max),
    );
}
