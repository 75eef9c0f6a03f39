//! Plays `flowmgr` for the flow stage tasks, so they are tested without
//! it: the manifest's `[flows] manager` is this task, which therefore
//! holds the stage tasks' endpoints and doorbells and the flow slots'
//! pools and edges. It wires pipelines across the software stage
//! (`soft`), the virtio-crypto driver (`crypto`) and the virtio-blk
//! driver (`blk`), checks every record arrives once, whole and in order,
//! and then behaves like a hostile neighbour and a careless manager.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

#[allow(unsafe_code)]
mod wire;

use conflux_flow_protocol::edge::{Input, Taken};
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{
    label, Cipher, Direction, Engine, Grant, Key, Mode, StageSpec, StageStatus,
};
use conflux_flow_protocol::{Buf, Span};
use conflux_userlib::ipc::Notification;
use conflux_userlib::testing::Checks;
use wire::{simple, task, Stage, Task};

conflux_userlib::entry!(main);

/// Records per flow, and their size (a multiple of AES's block).
const N: u64 = 256;
const RECORD: u32 = 1024;
/// Buffers per edge.
const BUFFERS: u32 = 16;
/// Where the block flows write and read.
const FIRST_SECTOR: u64 = 64;
/// How many times a wait polls before giving up.
const PATIENCE: u32 = 2_000_000;

fn span(e: u64) -> Span {
    Span {
        lo: e * 64 * 1024,
        count: BUFFERS,
        size: RECORD,
    }
}

fn cipher(direction: Direction, engine: Engine) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction,
        engine,
        key: Key::new(&[0x42; 32]).expect("32 bytes"),
        iv: *b"flow-wirer-iv-16",
    })
}

fn stage(
    task: Task,
    flow: u32,
    spec: StageSpec,
    input: Option<usize>,
    output: Option<usize>,
) -> Stage {
    Stage {
        task,
        flow,
        spec,
        input,
        output,
    }
}

/// A check sink's tally: (good, missing, repeated, damaged).
fn tally(s: &Stage) -> (u64, u64, u64, u64) {
    let (_, w) = simple(s.task, label::STATS, s.flow);
    Tally::from_words([w[3], w[4]])
}

/// Polls `done` until it holds; whether it did.
fn wait(mut done: impl FnMut() -> bool) -> bool {
    (0..PATIENCE).any(|_| done())
}

/// Waits for the check sink `check` to have seen `n` records; its tally.
fn checked(check: &Stage, n: u64) -> (u64, u64, u64, u64) {
    let mut t = (0, 0, 0, 0);
    wait(|| {
        t = tally(check);
        t.0 + t.1 + t.2 + t.3 >= n
    });
    t
}

/// The next buffer the upstream stage sends on `input`, waiting for it.
fn next_full(input: &mut Input) -> Taken {
    let mut got = None;
    wait(|| {
        got = input.take_full().ok().flatten();
        got.is_some()
    });
    got
}

fn main() {
    let mut c = Checks::new();
    let soft = task("soft");
    let crypto = task("crypto");
    let blk = task("blk");
    let kinds = |t: Task| wire::info(t).1[..2].try_into().unwrap_or([0u64; 2]);
    c.eq(
        "INFO soft: cipher, crc32c, null, pattern, check",
        kinds(soft),
        [0xf8, 0],
    );
    c.eq(
        "INFO crypto: cipher on a device",
        kinds(crypto),
        [1 << 3, 1],
    );
    c.eq("INFO blk: blocks", kinds(blk), [1 << 2, 0]);
    let nic = task("nic");
    c.eq("INFO nic: udp", kinds(nic), [1 << 1, 0]);

    device_cipher_round_trip(&mut c, soft, crypto);
    device_cipher_changes_the_bytes(&mut c, soft, crypto);
    blocks_round_trip(&mut c, soft, blk);
    crc_then_null(&mut c, soft);
    hostile(&mut c, soft);
    named_twice(&mut c, crypto);
    udp_ports(&mut c, soft, nic);
    for (name, t) in [
        ("soft", soft),
        ("crypto", crypto),
        ("blk", blk),
        ("nic", nic),
    ] {
        c.eq(
            &alloc::format!("{name} still answers after its flows' capabilities were revoked"),
            wire::info(t).0,
            Some(StageStatus::Ok),
        );
    }
    c.finish()
}

/// (a) pattern (soft) → encrypt (crypto device) → decrypt (soft) → check (soft).
fn device_cipher_round_trip(c: &mut Checks, soft: Task, crypto: Task) {
    let slot = wire::slot(0);
    let stages = [
        stage(
            soft,
            0,
            StageSpec::Pattern { count: N, seed: 7 },
            None,
            Some(0),
        ),
        stage(
            crypto,
            0,
            cipher(Direction::Encrypt, Engine::Device),
            Some(0),
            Some(1),
        ),
        stage(
            soft,
            1,
            cipher(Direction::Decrypt, Engine::Software),
            Some(1),
            Some(2),
        ),
        stage(soft, 2, StageSpec::Check { seed: 7 }, Some(2), None),
    ];
    let spans = [span(0), span(1), span(2)];
    c.eq(
        "wire pattern → crypto encrypt → soft decrypt → check",
        wire::wire(&slot, &stages, &spans),
        Ok(()),
    );
    let t = checked(&stages[3], N);
    c.eq(
        "device-encrypted, software-decrypted records: good, missing, repeated, damaged",
        t,
        (N, 0, 0, 0),
    );
    let through = slot.observe(1).map(|s| s.upstream[0]);
    c.eq("buffers the crypto device passed on", through, Some(N));
    c.that("every stage stops", wire::stop_all(&stages), ());
    c.eq(
        "copies of the slot's pool and edges left after STOP",
        slot.revoke(),
        0,
    );
}

/// (a') pattern → encrypt (device) → check: nothing arrives readable, so
/// the device really ciphered.
fn device_cipher_changes_the_bytes(c: &mut Checks, soft: Task, crypto: Task) {
    let slot = wire::slot(0);
    let n = 32;
    let stages = [
        stage(
            soft,
            0,
            StageSpec::Pattern { count: n, seed: 9 },
            None,
            Some(0),
        ),
        stage(
            crypto,
            0,
            cipher(Direction::Encrypt, Engine::Device),
            Some(0),
            Some(1),
        ),
        stage(soft, 2, StageSpec::Check { seed: 9 }, Some(1), None),
    ];
    c.eq(
        "wire pattern → crypto encrypt → check",
        wire::wire(&slot, &stages, &[span(0), span(1)]),
        Ok(()),
    );
    c.eq(
        "encrypted records are not records: all damaged",
        checked(&stages[2], n),
        (0, 0, 0, n),
    );
    c.that("every stage stops", wire::stop_all(&stages), ());
    c.eq("copies left after STOP", slot.revoke(), 0);
}

/// pattern → crc32c → null: every buffer grows by its 4-byte CRC.
fn crc_then_null(c: &mut Checks, soft: Task) {
    let slot = wire::slot(0);
    let n = 64;
    let stages = [
        stage(
            soft,
            0,
            StageSpec::Pattern { count: n, seed: 1 },
            None,
            Some(0),
        ),
        stage(soft, 1, StageSpec::Crc32c, Some(0), Some(1)),
        stage(soft, 2, StageSpec::Null, Some(1), None),
    ];
    let wide = Span {
        size: RECORD + 4,
        ..span(1)
    };
    c.eq(
        "wire pattern → crc32c → null",
        wire::wire(&slot, &stages, &[span(0), wide]),
        Ok(()),
    );
    let mut w = [0; 5];
    wait(|| {
        w = simple(soft, label::STATS, 2).1;
        w[3] >= n
    });
    c.eq(
        "null sink: buffers and bytes (each record + 4)",
        (w[3], w[4]),
        (n, n * u64::from(RECORD + 4)),
    );
    c.that("every stage stops", wire::stop_all(&stages), ());
    c.eq("copies left after STOP", slot.revoke(), 0);
}

/// (b) pattern → blocks sink, then blocks source → check.
fn blocks_round_trip(c: &mut Checks, soft: Task, blk: Task) {
    let slot = wire::slot(0);
    let sectors = N * u64::from(RECORD) / 512;
    let blocks = StageSpec::Blocks {
        first: FIRST_SECTOR,
        count: sectors,
    };
    let write = [
        stage(
            soft,
            0,
            StageSpec::Pattern { count: N, seed: 3 },
            None,
            Some(0),
        ),
        stage(blk, 0, blocks, Some(0), None),
    ];
    c.eq(
        "wire pattern → blocks sink",
        wire::wire(&slot, &write, &[span(0)]),
        Ok(()),
    );
    let mut figs = [0; 5];
    wait(|| {
        figs = simple(blk, label::STATS, 0).1;
        figs[3] >= FIRST_SECTOR + sectors
    });
    c.eq(
        "blocks sink: next sector and bytes taken",
        (figs[3], figs[4]),
        (FIRST_SECTOR + sectors, N * u64::from(RECORD)),
    );
    c.that("both stages stop", wire::stop_all(&write), ());
    c.eq("copies left after STOP", slot.revoke(), 0);

    let read = [
        stage(blk, 0, blocks, None, Some(0)),
        stage(soft, 0, StageSpec::Check { seed: 3 }, Some(0), None),
    ];
    c.eq(
        "wire blocks source → check",
        wire::wire(&slot, &read, &[span(0)]),
        Ok(()),
    );
    c.eq(
        "records read back from the disk: good, missing, repeated, damaged",
        checked(&read[1], N),
        (N, 0, 0, 0),
    );
    c.that("both stages stop", wire::stop_all(&read), ());
    c.eq("copies left after STOP", slot.revoke(), 0);
}

/// (c) A careless manager and a hostile neighbour: refusals, a descriptor
/// outside the span refused and counted, nothing left after STOP.
fn hostile(c: &mut Checks, soft: Task) {
    let slot = wire::slot(1);
    let flow = 3;
    c.eq(
        "ATTACH without a capability",
        wire::attach_nothing(soft, flow, Grant::Pool),
        Some(StageStatus::BadCapability),
    );
    let s = span(0);
    c.that("format the edge", slot.format(0, s), ());
    let source = stage(
        soft,
        flow,
        StageSpec::Pattern {
            count: 1000,
            seed: 5,
        },
        None,
        Some(0),
    );
    c.eq(
        "attach the pool and the output edge",
        slot.attach(&source, None, None),
        None,
    );
    let outside = Span {
        lo: wire::POOL - u64::from(RECORD),
        ..s
    };
    let start = |output| wire::start_of(&source, None, Some(output));
    c.eq(
        "START with a span past the pool's end",
        wire::start(soft, &start(outside)),
        Some(StageStatus::BadEdge),
    );
    c.eq(
        "START as it should be",
        wire::start(soft, &start(s)),
        Some(StageStatus::Ok),
    );

    // This task is the downstream stage now.
    let Some(mut input) = slot.input(0, s) else {
        c.that("attach to the edge as its downstream end", false, ());
        return;
    };
    let first = next_full(&mut input).and_then(Result::ok);
    c.that(
        "a record arrives",
        first.is_some_and(|b| b.len == RECORD && b.seq == 0),
        first,
    );
    // Hand back a buffer that is not one of the edge's: the next edge's.
    let forged = Buf {
        index: 0,
        offset: s.lo + u64::from(s.count) * u64::from(s.size),
        len: RECORD,
        seq: 0,
    };
    let _ = input.recycle(&forged, 0, conflux_userlib::sys::rdtsc());
    if let Some(b) = first {
        let _ = input.recycle(&b, b.len, conflux_userlib::sys::rdtsc());
    }
    let _ = Notification(soft.bell).signal();
    let mut refused = 0;
    wait(|| {
        refused = slot.observe(0).map_or(0, |e| e.upstream[3]);
        refused >= 1
    });
    c.eq(
        "the source refused and counted the forged descriptor",
        refused,
        1,
    );
    // The source goes on with the good buffers.
    let mut seqs = alloc::vec::Vec::new();
    for _ in 0..BUFFERS + 4 {
        let Some(Ok(b)) = next_full(&mut input) else {
            break;
        };
        seqs.push(b.seq);
        let _ = input.recycle(&b, b.len, conflux_userlib::sys::rdtsc());
        let _ = Notification(soft.bell).signal();
    }
    let want: alloc::vec::Vec<u32> = (1..=BUFFERS + 4).collect();
    c.eq(
        "records keep coming, in order, after the refusal",
        seqs,
        want,
    );
    c.eq(
        "STOP the source",
        simple(soft, label::STOP, flow).0,
        Some(StageStatus::Ok),
    );
    c.eq("copies left after STOP", slot.revoke(), 0);
    c.eq(
        "STATS of the stopped flow",
        simple(soft, label::STATS, flow).0,
        Some(StageStatus::UnknownFlow),
    );
    // The count above means something: a copy a stage still holds is
    // found and revoked (unmapped under it); the stage, not started, never
    // touches it, and its STOP afterwards still cleans up.
    let pool_only = stage(soft, flow, source.spec, None, None);
    c.eq(
        "attach the pool alone",
        slot.attach(&pool_only, None, None),
        None,
    );
    c.eq(
        "copies a revoke finds while a stage holds the pool",
        slot.revoke(),
        1,
    );
    c.eq(
        "STOP after the revoke",
        simple(soft, label::STOP, flow).0,
        Some(StageStatus::Ok),
    );
}

/// (e) A hostile upstream hands the crypto device's stage, which takes
/// several buffers at once, the same full buffer twice under two
/// sequence numbers: the pool is lent once, so the device ciphers it
/// once and the other is given up and counted; the stage goes on.
fn named_twice(c: &mut Checks, crypto: Task) {
    let slot = wire::slot(1);
    let flow = 4;
    let (s_in, s_out) = (span(0), span(1));
    c.that(
        "format the crypto stage's edges",
        slot.format(0, s_in) && slot.format(1, s_out),
        (),
    );
    let st = stage(
        crypto,
        flow,
        cipher(Direction::Encrypt, Engine::Device),
        Some(0),
        Some(1),
    );
    c.eq(
        "attach the crypto stage",
        slot.attach(&st, None, None),
        None,
    );
    let start = wire::start_of(&st, Some(s_in), Some(s_out));
    c.eq(
        "START the crypto stage",
        wire::start(crypto, &start),
        Some(StageStatus::Ok),
    );
    let (Some(mut up), Some(mut down)) = (slot.output(0, s_in), slot.input(1, s_out)) else {
        c.that("attach to both edges as the stage's neighbours", false, ());
        return;
    };
    let now = conflux_userlib::sys::rdtsc;
    let Some(Ok(b)) = up.take_empty().ok().flatten() else {
        c.that("an empty buffer to fill", false, ());
        return;
    };
    // The same buffer as records 0 and 1, then a buffer of its own as 2.
    let sent = [0, 1].map(|seq| up.send(&b, RECORD, seq, now()).is_ok());
    let third = up.take_empty().ok().flatten().and_then(Result::ok);
    let sent_third = third.is_some_and(|t| up.send(&t, RECORD, 2, now()).is_ok());
    c.that(
        "send one buffer twice, then another",
        sent == [true, true] && sent_third,
        (),
    );
    let _ = Notification(crypto.bell).signal();
    let mut seqs = alloc::vec::Vec::new();
    wait(|| {
        if let Ok(Some(Ok(b))) = down.take_full() {
            seqs.push(b.seq);
            let _ = down.recycle(&b, b.len, now());
        }
        let dropped = slot.observe(1).map_or(0, |e| e.upstream[2]);
        seqs.len() + dropped as usize >= 3
    });
    let dropped = slot.observe(1).map_or(0, |e| e.upstream[2]);
    c.that(
        "the twice-named buffer was ciphered once and the other counted as a drop",
        seqs.len() == 2 && dropped == 1 && seqs.last() == Some(&2),
        (seqs.clone(), dropped),
    );
    c.eq(
        "STOP the crypto stage",
        simple(crypto, label::STOP, flow).0,
        Some(StageStatus::Ok),
    );
    c.eq("copies left after STOP", slot.revoke(), 0);
}

/// (d) The NIC's UDP source: a port is one flow's at a time.
fn udp_ports(c: &mut Checks, soft: Task, nic: Task) {
    let port = StageSpec::Udp { port: 5700 };
    let slot = wire::slot(0);
    let flow = [
        stage(nic, 0, port, None, Some(0)),
        stage(soft, 0, StageSpec::Null, Some(0), None),
    ];
    c.eq(
        "wire udp 5700 → null",
        wire::wire(&slot, &flow, &[span(0)]),
        Ok(()),
    );
    let other = wire::slot(1);
    let second = stage(nic, 1, port, None, Some(0));
    c.that(
        "format the second slot's edge",
        other.format(0, span(0)),
        (),
    );
    c.eq(
        "attach the second flow",
        other.attach(&second, None, None),
        None,
    );
    let start = |s: &Stage| wire::start_of(s, None, Some(span(0)));
    c.eq(
        "a second UDP flow on port 5700",
        wire::start(nic, &start(&second)),
        Some(StageStatus::DeviceRefused),
    );
    c.that("every stage stops", wire::stop_all(&flow), ());
    c.eq("copies left after STOP", slot.revoke(), 0);
    c.eq(
        "the port is free again after STOP",
        wire::start(nic, &start(&second)),
        Some(StageStatus::Ok),
    );
    c.eq(
        "STOP it",
        simple(nic, label::STOP, 1).0,
        Some(StageStatus::Ok),
    );
    c.eq("copies left after STOP", other.revoke(), 0);
}
