//! Test task: flows into and out of files, the application only
//! signalling; `flowfile` reads and writes them through the file server.
//!
//! 1. pattern → `file:/flows/out`; after Done and DESTROY, the file holds
//!    every record (its size says so), and `file:/flows/out` → check finds
//!    every one whole, in order, once.
//! 2. pattern → AES-CBC encrypt → `file:/flows/secret`; the file holds
//!    ciphertext (its first record does not check), and
//!    `file:/flows/secret` → decrypt → check finds every record whole.
//! 3. A range: `file:/flows/out:OFFSET:LENGTH` → check gets exactly the
//!    records of that range.
//! 4. A limit: pattern → `file:/flows/cut:0:LENGTH` writes LENGTH bytes
//!    and counts the rest as dropped.
//! 5. Refusals: a source on a missing file and a sink into a missing
//!    directory are refused at START, naming the stage.
//!
//! Then the file server is shut down, so the runner's e2fsck finds the
//! disk clean.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_flow_protocol::api::{FlowRequest, FlowStatus};
use conflux_flow_protocol::record::Checker;
use conflux_flow_protocol::record::Tally;
use conflux_flow_protocol::stage::{
    Cipher, Direction, Engine, FilePath, Key, Mode, StageSpec, StageStatus,
};
use conflux_fs_client::{Error as FsError, Fs};
use conflux_fs_protocol::ops;
use conflux_userlib::println;
use flow_client::text::Lines;
use flow_client::{Error, FlowState, FlowStats, Flows, Refusal};

conflux_userlib::entry!(main);

const RECORDS: u64 = 200;
const BUFFER: u32 = 1024;
const PATIENCE: u32 = 400_000;

fn file(path: &str, offset: u64, length: u64) -> StageSpec {
    StageSpec::File {
        path: FilePath::new(path).expect("the test's paths are valid"),
        offset,
        length,
    }
}

fn whole(path: &str) -> StageSpec {
    file(path, 0, u64::MAX)
}

fn cipher(direction: Direction) -> StageSpec {
    StageSpec::Cipher(Cipher {
        mode: Mode::Cbc,
        direction,
        engine: Engine::Software,
        key: Key::new(&[0x3c; 16]).expect("16 bytes is an AES key"),
        iv: [0x42; 16],
    })
}

fn pattern(seed: u64) -> StageSpec {
    StageSpec::Pattern {
        count: RECORDS,
        seed,
    }
}

fn request(source: StageSpec, ts: &[StageSpec], sink: StageSpec) -> FlowRequest {
    FlowRequest::new(source, ts, sink, 0, 0, BUFFER).expect("the test's requests are well formed")
}

/// Creates the flow, watches it to the end, destroys it; its last stats.
fn run(flows: &Flows, what: &str, req: &FlowRequest) -> Option<FlowStats> {
    match flows.run(req, PATIENCE) {
        Ok(Some(s)) => {
            println!("{what}: {}", Lines(&s));
            Some(s)
        }
        Ok(None) => {
            println!("FAIL: {what}: did not finish");
            None
        }
        Err(e) => {
            println!("FAIL: {what}: {e}");
            None
        }
    }
}

/// `(good, missing, repeated, damaged)` of a finished flow's check sink.
fn tally(s: &Option<FlowStats>) -> Option<(u64, u64, u64, u64)> {
    s.as_ref()
        .filter(|s| s.state == FlowState::Done)
        .map(|s| Tally::from_words(s.sink))
}

/// Every edge carried `n` buffers, none dropped or left queued.
fn carried(s: &Option<FlowStats>, n: u64) -> bool {
    s.as_ref().is_some_and(|s| {
        s.state == FlowState::Done
            && s.edges[..s.edge_count]
                .iter()
                .all(|e| e.buffers == n && e.drops == 0 && e.queued == 0)
    })
}

fn size(fs: &mut Fs, path: &str) -> Option<u64> {
    fs.stat(path).ok().map(|s| s.size)
}

/// The first record of `path`, checked against `seed`'s.
fn first_record_checks(fs: &mut Fs, path: &str, seed: u64) -> bool {
    let mut buf = [0u8; BUFFER as usize];
    let Ok(fd) = fs.open(path, ops::O_RDONLY, 0) else {
        return false;
    };
    let n = fs.read(fd, &mut buf).unwrap_or(0);
    let _ = fs.close(fd);
    let mut c = Checker::new(seed);
    c.check(&buf[..n]);
    c.tally.good == 1
}

fn refused_at(flows: &Flows, req: &FlowRequest, stage: u64) -> bool {
    match flows.create(req) {
        Err(Error::Refused(r)) => {
            println!("refused as it should be: {r}");
            r == Refusal {
                status: FlowStatus::StageRefused,
                stage,
                detail: StageStatus::DeviceRefused as u64,
            }
        }
        Ok(id) => {
            let _ = flows.destroy(id);
            false
        }
        Err(_) => false,
    }
}

/// The system `flow-file-restart`: the file server dies in an fsync's
/// write-back while the sink's batch waits in its cache, and restarts.
fn across_a_restart(flows: &Flows, check: &mut impl FnMut(&str, bool), bytes: u64) {
    let w = run(
        flows,
        "pattern to file across a restart",
        &request(pattern(23), &[], whole("/flows/restart")),
    );
    check(
        "the sink wrote every record once across the restart",
        carried(&w, RECORDS) && w.as_ref().is_some_and(|s| s.sink == [RECORDS, bytes]),
    );
    check(
        "the restart was a transient failure, retried",
        w.as_ref().is_some_and(|s| s.ladder[0] >= 1),
    );
    let r = run(
        flows,
        "file to check after the restart",
        &request(whole("/flows/restart"), &[], StageSpec::Check { seed: 23 }),
    );
    check(
        "read back after the restart: every record whole, in order, once",
        tally(&r) == Some((RECORDS, 0, 0, 0)),
    );
}

fn main() {
    let flows = Flows::new(config::caps::FLOWMGR);
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let mut failed = 0;
    let mut check = |what: &str, ok: bool| {
        if ok {
            println!("ok: {what}");
        } else {
            failed += 1;
            println!("FAIL: {what}");
        }
    };
    match fs.mkdir("/flows", 0o755) {
        Ok(()) | Err(FsError::Fs(conflux_fs_protocol::FsError::Exists)) => {}
        Err(e) => println!("FAIL: mkdir /flows: {e}"),
    }
    let bytes = RECORDS * u64::from(BUFFER);
    if config::SYSTEM_NAME == "flow-file-restart" {
        across_a_restart(&flows, &mut check, bytes);
        if failed == 0 {
            println!("all restart checks passed");
        }
        return;
    }

    let w = run(
        &flows,
        "pattern to file",
        &request(pattern(21), &[], whole("/flows/out")),
    );
    check(
        "records written to /flows/out: every buffer carried, none dropped",
        carried(&w, RECORDS) && w.as_ref().is_some_and(|s| s.sink == [RECORDS, bytes]),
    );
    check(
        "the file holds every byte after DESTROY",
        size(&mut fs, "/flows/out") == Some(bytes),
    );
    let r = run(
        &flows,
        "file to check",
        &request(whole("/flows/out"), &[], StageSpec::Check { seed: 21 }),
    );
    check(
        "records read back from the file: every one whole, in order, once",
        tally(&r) == Some((RECORDS, 0, 0, 0)) && carried(&r, RECORDS),
    );

    let e = run(
        &flows,
        "encrypt to file",
        &request(
            pattern(22),
            &[cipher(Direction::Encrypt)],
            whole("/flows/secret"),
        ),
    );
    check(
        "encrypted records written to /flows/secret",
        carried(&e, RECORDS) && size(&mut fs, "/flows/secret") == Some(bytes),
    );
    check(
        "the file holds ciphertext, not records",
        !first_record_checks(&mut fs, "/flows/secret", 22)
            && first_record_checks(&mut fs, "/flows/out", 21),
    );
    let d = run(
        &flows,
        "file to decrypt",
        &request(
            whole("/flows/secret"),
            &[cipher(Direction::Decrypt)],
            StageSpec::Check { seed: 22 },
        ),
    );
    check(
        "decrypted out of the file: every record whole, in order, once",
        tally(&d) == Some((RECORDS, 0, 0, 0)) && carried(&d, RECORDS),
    );

    let b = u64::from(BUFFER);
    let g = run(
        &flows,
        "a range of the file",
        &request(
            file("/flows/out", 10 * b, 5 * b),
            &[],
            StageSpec::Check { seed: 21 },
        ),
    );
    check(
        "a range reads exactly its records (10 to 14)",
        tally(&g) == Some((5, 10, 0, 0)) && carried(&g, 5),
    );

    let cut = run(
        &flows,
        "pattern to a limited file",
        &request(pattern(23), &[], file("/flows/cut", 0, 10 * b)),
    );
    check(
        "a limited sink writes its length and drops the rest",
        cut.as_ref().is_some_and(|s| {
            s.state == FlowState::Done && s.sink == [10, 10 * b] && s.edges[0].drops == RECORDS - 10
        }) && size(&mut fs, "/flows/cut") == Some(10 * b),
    );

    check(
        "a source on a missing file is refused, naming the stage",
        refused_at(
            &flows,
            &request(whole("/flows/missing"), &[], StageSpec::Null),
            0,
        ),
    );
    check(
        "a sink into a missing directory is refused, naming the stage",
        refused_at(
            &flows,
            &request(
                pattern(24),
                &[cipher(Direction::Encrypt)],
                whole("/nodir/out"),
            ),
            2,
        ),
    );
    check(
        "a source on a directory is refused",
        refused_at(&flows, &request(whole("/flows"), &[], StageSpec::Null), 0),
    );

    // Unmounted cleanly, so the runner's e2fsck finds the disk clean.
    check("the file server shut down cleanly", fs.shutdown().is_ok());
    if failed == 0 {
        println!("all checks passed");
    }
}
