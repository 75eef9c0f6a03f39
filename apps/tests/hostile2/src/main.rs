//! Hostile, with every kind of capability: random syscalls with hostile
//! arguments, restarted by init mid-run, checking from inside that the
//! kernel kept its promises.
//!
//! The task holds an endpoint it can call (`sink`, whose server answers
//! everything), an endpoint it serves (`hin`, where the caller keeps a call
//! pending with a capability attached, so this task receives transferred
//! capabilities and holds reply capabilities), a notification, a region,
//! the HPET's MMIO page, COM2's IRQ line and I/O ports, each with every
//! meaningful right. Each of `INCARNATIONS` incarnations makes its share of
//! the calls (`CONFLUX_HOSTILE_CALLS` at build time, seed from the TSC or
//! `CONFLUX_HOSTILE_SEED`), then checks that no capability has rights
//! beyond its kind's initial ones and that every revocation it made left
//! no descendant usable, and faults so init restarts it; the last one
//! stops the caller and prints the tally. The incarnation number and the
//! failures so far live in region `life`, which random calls never name.
//! What the random calls may not do is in `guard`.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod guard;
mod lineage;
mod rights;

use conflux_abi::{SysError, Sysno};
use conflux_userlib::hostile::{parse_knob as parse, Rng};
use conflux_userlib::ipc::{self, Endpoint, Message, Region, Slot};
use conflux_userlib::println;
use conflux_userlib::sys::{rdtsc, syscall6};
use lineage::Lineage;

conflux_userlib::entry!(main);

use config::caps;

pub const SINK: usize = caps::SINK;
pub const LIFE: usize = caps::LIFE;
pub const FIRST_FREE: usize = caps::FIRST_FREE;
/// Where callers' reply capabilities land.
pub const REPLY_SLOT: usize = caps::FIRST_FREE;
/// Transferred capabilities land in one of these, in turn.
const GOT_SLOTS: core::ops::Range<usize> = caps::FIRST_FREE + 1..caps::FIRST_FREE + 5;
/// Syscalls over all incarnations, unless `CONFLUX_HOSTILE_CALLS` says otherwise.
const DEFAULT_CALLS: u64 = 1_000_000;
const INCARNATIONS: u64 = 4;
/// A deliberate receive on `hin` after this many random calls.
const SERVE_EVERY: u64 = 64;
/// Checks per incarnation (rights, revocations).
const CHECKS: u64 = 2;
/// Answer (label and word 0) that ends the caller.
const STOP: u32 = 2;
const STOP_WORD: u64 = 0x5709_5709_5709_5709;

/// Takes the pending call on `hin` (answering the previous one first),
/// recording the reply capability and any transferred capability.
fn serve(lineage: &mut Lineage, got: usize, answer: &Message) -> Result<(), SysError> {
    let hin = Endpoint(caps::HIN);
    let r = match hin.reply_recv(REPLY_SLOT, got, answer) {
        // The reply slot holds something a random call put there.
        Err(SysError::SlotOccupied) => {
            let _ = Slot(REPLY_SLOT).delete();
            hin.recv(REPLY_SLOT, got)
        }
        r => r,
    }?;
    lineage.root(REPLY_SLOT);
    if r.msg.cap.is_some() {
        lineage.root(got);
    }
    Ok(())
}

/// Keeps the lineage true after random call `num` with arguments `a`.
fn record(lineage: &mut Lineage, num: u64, a: &[u64; 6], ok: bool) -> Option<()> {
    match Sysno::from_raw(num)? {
        Sysno::CapMint | Sysno::CapCopy if ok => lineage.derive(a[0], a[1]),
        Sysno::CapDelete | Sysno::Reply if ok => lineage.clear(a[0]),
        Sysno::ReplyRecv => {
            let (_, reply, _) = conflux_abi::syscall::unpack_slots(a[0]).unwrap_or((0, 0, 0));
            if Slot(reply).info().is_err() {
                lineage.clear(reply as u64);
            }
        }
        Sysno::CapRevoke if ok => {
            let escape = lineage.check_revoked(a[0])?;
            println!(
                "revocation escaped: after cap_revoke({}) slot {} (a descendant) holds {:?}{}",
                a[0],
                escape.slot,
                escape.info,
                if escape.gap {
                    "; a capability between them had been deleted"
                } else {
                    ""
                }
            );
            return Some(());
        }
        _ => {}
    }
    None
}

fn main() {
    let life = Region(caps::LIFE).premapped(caps::LIFE_ADDR, caps::LIFE_SIZE);
    let incarnation = life.read_u64(0).expect("word inside the mapped region");
    let failed_before = life.read_u64(8).expect("word inside the mapped region");
    if incarnation >= INCARNATIONS || failed_before > INCARNATIONS * CHECKS {
        println!(
            "CHECK FAILED: region life is intact: incarnation {incarnation:#x}, failures {failed_before:#x}"
        );
        conflux_userlib::sys::exit(1);
    }
    life.write_u64(0, incarnation + 1)
        .expect("word inside the mapped region");

    let seed = parse(option_env!("CONFLUX_HOSTILE_SEED"))
        .map(|s| s + incarnation)
        .unwrap_or_else(|| rdtsc() | 1);
    let calls = parse(option_env!("CONFLUX_HOSTILE_CALLS")).unwrap_or(DEFAULT_CALLS) / INCARNATIONS;
    println!("incarnation {incarnation}: seed {seed:#x} ({calls} calls); reproduce with CONFLUX_HOSTILE_SEED");
    let allowed = rights::Allowed::from_initial();
    let mut lineage = Lineage::new();
    (1..FIRST_FREE).for_each(|s| lineage.root(s));
    let mut rng = Rng(seed);
    let span = Sysno::ALL.len() as u64 + 3; // a few numbers past the last syscall
    let (mut ok, mut revokes, mut escaped, mut unknown) = (0u64, 0u64, 0u64, 0u64);
    let mut got_slots = GOT_SLOTS.cycle();
    for i in 0..calls {
        if i % SERVE_EVERY == 0 {
            let got = got_slots.next().unwrap_or(GOT_SLOTS.start);
            if let Err(e) = serve(&mut lineage, got, &Message::new(0, &[])) {
                println!("serving hin failed: {e:?}");
            }
        }
        let mut a = [(); 6].map(|_| rng.arg());
        let num = guard::tame(
            rng.next_u64() % span,
            &mut a,
            rng.next_u64().is_multiple_of(2),
        );
        let r = syscall6(num, a[0], a[1], a[2], a[3], a[4], a[5]);
        if r.rax != 0 && SysError::from_code(r.rax).is_none() {
            unknown += 1;
            println!(
                "call {i}: syscall {num} returned unknown status {:#x}",
                r.rax
            );
        }
        ok += (r.rax == 0) as u64;
        revokes += (r.rax == 0 && num == Sysno::CapRevoke as u64) as u64;
        escaped += record(&mut lineage, num, &a, r.rax == 0).is_some() as u64;
    }
    println!(
        "incarnation {incarnation}: {calls} syscalls done: {ok} succeeded, {revokes} revocations"
    );

    let mut failed = 0;
    match allowed.first_excess() {
        None => println!("ok: incarnation {incarnation}: no capability has rights beyond its kind's initial ones"),
        Some((slot, kind, r)) => {
            failed += 1;
            println!("CHECK FAILED: incarnation {incarnation}: slot {slot} (kind {kind}) has rights {r:#x}, beyond its kind's initial ones");
        }
    }
    if escaped == 0 && unknown == 0 {
        println!("ok: incarnation {incarnation}: every descendant of the {revokes} revoked capabilities is gone");
    } else {
        failed += 1;
        println!("CHECK FAILED: incarnation {incarnation}: {escaped} revocations left a descendant usable; {unknown} calls returned a status that is no SysError");
    }
    life.write_u64(8, failed_before + failed)
        .expect("word inside the mapped region");

    if incarnation + 1 < INCARNATIONS {
        println!("incarnation {incarnation}: faulting on purpose to be restarted");
        conflux_userlib::testing::fault_on_purpose();
    }
    let stopped = serve(&mut lineage, GOT_SLOTS.start, &Message::new(0, &[]))
        .and_then(|()| ipc::reply(REPLY_SLOT, &Message::new(STOP, &[STOP_WORD])));
    println!("stopped the caller: {stopped:?}");
    let (failed, total) = (failed_before + failed, INCARNATIONS * CHECKS);
    if failed == 0 {
        println!("all {total} checks passed");
    } else {
        println!("{failed} of {total} checks FAILED");
    }
    conflux_userlib::sys::exit(failed);
}
