//! A session's fixed limits on the network server, at each and one past
//! it. Prepared compounds (`MAX_PREPARED`): every one up to the limit is
//! kept and runs; the next is refused `SessionFull` (and the kept ones
//! still run); a release makes room for exactly one more, which gets the
//! freed handle. A compound's ops (`MAX_OPS`): as many run, one more is
//! rejected before it runs. Its steps (`MAX_STEPS`): a budget above them
//! is cut to them.

extern crate alloc;

use conflux_net_client::ipc::MAX_PREPARED;
use conflux_net_client::{Net, NetError, SockKind};
use conflux_userlib::testing::Checks;
use cosy_abi::typed::Failure;
use cosy_abi::{code, Builder};

use crate::err;

/// A compound that only exits with `value`.
fn exits(value: u64) -> alloc::vec::Vec<u8> {
    let mut b = Builder::new();
    b.exit(value);
    b.build().unwrap_or_default()
}

/// Prepared compound `handle`'s exit value when run.
fn runs(net: &mut Net, handle: u64) -> Option<u64> {
    net.run_prepared(handle, &[]).ok().map(|r| r.exit_value)
}

pub fn prepared(net: &mut Net, c: &mut Checks) {
    let mut handles = [u64::MAX; MAX_PREPARED];
    for (i, h) in handles.iter_mut().enumerate() {
        match net.prepare(&exits(i as u64 + 1)) {
            Ok(got) => *h = got,
            Err(e) => return c.that("prepare up to the session's limit", false, e),
        }
    }
    c.that("prepare up to the session's limit", true, MAX_PREPARED);
    c.eq(
        "one prepared compound past the limit",
        err(net.prepare(&exits(0))),
        Some(NetError::SessionFull),
    );
    let all: alloc::vec::Vec<_> = handles.iter().map(|&h| runs(net, h)).collect();
    let want: alloc::vec::Vec<_> = (1..=MAX_PREPARED as u64).map(Some).collect();
    c.eq("each kept compound still runs after the refusal", all, want);
    c.eq("release one", net.release(handles[0]).is_ok(), true);
    c.eq(
        "the next prepare takes the freed handle",
        net.prepare(&exits(9)).ok(),
        Some(handles[0]),
    );
    c.eq("and runs", runs(net, handles[0]), Some(9));
    c.eq(
        "full again",
        err(net.prepare(&exits(0))),
        Some(NetError::SessionFull),
    );
    for h in handles {
        let _ = net.release(h);
    }
}

/// A compound of `ops` ops: `r0 = 1` until the last, which exits `r0`.
fn ops_long(ops: usize) -> alloc::vec::Vec<u8> {
    let mut b = Builder::new();
    let r = b.reg();
    for _ in 1..ops {
        b.mov(r, 1u64);
    }
    b.exit(r);
    b.build().unwrap_or_default()
}

pub fn compound(net: &mut Net, c: &mut Checks) {
    let ops = net.max_ops() as usize;
    c.eq(
        "a compound of the server's most ops runs",
        net.run(&ops_long(ops), &[]).map(|r| r.exit_value).ok(),
        Some(1),
    );
    let refused = match net.run(&ops_long(ops + 1), &[]) {
        Err(conflux_net_client::Error::Rejected { code, .. }) => Some(code),
        _ => None,
    };
    c.eq(
        "one op more is rejected before it runs",
        refused,
        Some(code::TOO_MANY_OPS),
    );
    // A budget far over the limit is capped to it, not refused: a tight
    // loop stops when the server's steps run out.
    let mut b = Builder::new();
    b.step_budget(u32::MAX);
    let spin = b.label();
    b.bind(spin);
    b.jump(spin);
    let spin = b.build().unwrap_or_default();
    let max = net.max_steps() as u32;
    let stopped = match net.run(&spin, &[]) {
        Err(conflux_net_client::Error::Compound(stop)) => Some((stop.op, stop.name, stop.error)),
        _ => None,
    };
    c.eq(
        "a tight loop asking for 2^32-1 steps stops at the server's limit",
        stopped,
        Some((Some(0), "jump", Failure::Abi(code::BUDGET_EXHAUSTED))),
    );
    let at = net.compound_offset(spin.len()).unwrap_or(0);
    let steps = cosy_abi::Compound::new_checked(&net.control()[at..at + spin.len()])
        .map(|view| view.report().steps);
    c.eq(
        "... after exactly the server's limit of steps",
        steps,
        Ok(max),
    );
    let served = net.socket(SockKind::Datagram).and_then(|s| net.close(s));
    c.eq(
        "the session is served after them: a socket",
        served.is_ok(),
        true,
    );
}
