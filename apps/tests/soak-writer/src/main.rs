//! The soak test's file writer (`qemu/systems/soak.toml`, `cargo make
//! soak`). It loops until the file `/soak/stop` appears: each round
//! appends a batch of numbered, checksummed records ([`record`]) to one
//! of [`FILES`] log files in turn, fsyncs, and reads the batch back; every
//! [`CHECK_EVERY`] rounds, and whenever a file is opened again after
//! trouble, it reads each file whole and checks that every record an
//! fsync covered is still there ([`log`]).
//!
//! Meanwhile the soak kills the file server and the disk driver now and
//! then (init restarts them). A call that fails is not data loss: the
//! writer reconnects after `ServerRestarted` or a dead peer, opens its
//! files again, checks them, and goes on, backing off while calls keep
//! failing. Only a file that reads back without error but is missing
//! fsynced records, or a batch that reads back wrong right after its
//! fsync, is `CHECK FAILED`; so is a file server that fails every call
//! for [`GIVE_UP_MS`]. Output is sparse (the console budget): one line
//! per recovery and a progress line every [`REPORT_MS`].
//! When `/soak/stop` exists it checks every file once more, prints its
//! tally (`stopped after ...`), and ends.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod clock;
mod log;
mod record;

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::println;

use clock::Clock;
use log::{Log, Trouble};

conflux_userlib::entry!(main);

/// Log files written in turn.
const FILES: u32 = 3;
/// Records per round.
const BATCH: u64 = 8;
/// Pause between rounds: the writer is one load among several.
const PACE_MS: u64 = 100;
/// Rounds between whole-file checks.
const CHECK_EVERY: u64 = 300;
/// Time between progress lines.
const REPORT_MS: u64 = 20_000;
/// How long the file server may fail every call before the writer says so.
const GIVE_UP_MS: u64 = 120_000;
/// The file whose existence ends the run (the soak's driver writes it
/// through the shell).
const STOP: &str = "/soak/stop";

/// What the writer did, for its progress lines and its last one.
#[derive(Default)]
struct Tally {
    rounds: u64,
    checks: u64,
    errors: u64,
    reconnects: u64,
}

struct Writer {
    fs: Fs,
    clock: Clock,
    logs: Vec<Log>,
    tally: Tally,
    /// When a call last succeeded.
    last_ok: u64,
}

fn main() {
    let clock = Clock::new(config::caps::CLOCK);
    let fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let now = clock.now_ms();
    let mut w = Writer {
        fs,
        clock,
        logs: (0..FILES).map(Log::new).collect(),
        tally: Tally::default(),
        last_ok: now,
    };
    w.until_ok("mkdir /soak", |fs| match fs.mkdir("/soak", 0o755) {
        Ok(()) | Err(Error::Fs(FsError::Exists)) => Ok(()),
        Err(e) => Err(e),
    });
    println!("writing {BATCH} records a round to {FILES} files in /soak, each batch fsynced and read back; `{STOP}` ends the run");
    let mut report_at = now + REPORT_MS;
    loop {
        if w.stop_asked() {
            w.finish();
        }
        let file = (w.tally.rounds % u64::from(FILES)) as usize;
        let result = w.logs[file].round(&mut w.fs, BATCH);
        w.after(file, result);
        w.tally.rounds += 1;
        if w.tally.rounds.is_multiple_of(CHECK_EVERY) && w.check_all() {
            w.tally.checks += 1;
        }
        let now = w.clock.now_ms();
        if now >= report_at {
            report_at = now + REPORT_MS;
            println!(
                "round {}: {} records fsynced and read back; {} whole checks passed; {} failed calls survived ({} reconnects)",
                w.tally.rounds,
                w.durable(),
                w.tally.checks,
                w.tally.errors,
                w.tally.reconnects
            );
        }
        w.clock.sleep_ms(PACE_MS);
    }
}

impl Writer {
    fn durable(&self) -> u64 {
        self.logs.iter().map(|l| l.durable).sum()
    }

    /// Whether `/soak/stop` exists (a failed call: not yet).
    fn stop_asked(&mut self) -> bool {
        match self.fs.stat(STOP) {
            Ok(_) => true,
            Err(Error::Fs(FsError::NotFound)) => false,
            Err(e) => {
                self.trouble(None, Trouble::Call("stat /soak/stop", e));
                false
            }
        }
    }

    /// Checks every file whole; true when all were checked (a failed call
    /// leaves it to a later round).
    fn check_all(&mut self) -> bool {
        for i in 0..self.logs.len() {
            if let Err(t) = self.logs[i].check(&mut self.fs) {
                self.trouble(Some(i), t);
                return false;
            }
        }
        self.last_ok = self.clock.now_ms();
        true
    }

    fn after(&mut self, file: usize, result: Result<(), Trouble>) {
        match result {
            Ok(()) => self.last_ok = self.clock.now_ms(),
            Err(t) => self.trouble(Some(file), t),
        }
    }

    /// Handles trouble on `file` (if one): data loss and wrong read-backs
    /// end the run with `CHECK FAILED`; a failed call is survived.
    fn trouble(&mut self, file: Option<usize>, t: Trouble) {
        let (what, e) = match t {
            Trouble::Call(what, e) => (what, e),
            Trouble::Lost { intact, durable } => {
                let path = file.map(|f| self.logs[f].path()).unwrap_or_default();
                println!("CHECK FAILED: {path} holds {intact} intact records but {durable} were fsynced: data lost (after {} reconnects); the writer stops", self.tally.reconnects);
                conflux_userlib::sys::exit(1)
            }
            Trouble::Wrong {
                first,
                count,
                intact,
            } => {
                let path = file.map(|f| self.logs[f].path()).unwrap_or_default();
                println!("CHECK FAILED: {path}: records {first}..{} read back right after their fsync, and only {intact} of {count} are intact; the writer stops", first + count);
                conflux_userlib::sys::exit(1)
            }
        };
        self.tally.errors += 1;
        let gone = matches!(e, Error::ServerRestarted | Error::Ipc(_));
        for (i, log) in self.logs.iter_mut().enumerate() {
            if gone || Some(i) == file {
                log.drop_handle(&mut self.fs, gone);
            }
        }
        let waited = self.clock.now_ms().saturating_sub(self.last_ok);
        if waited > GIVE_UP_MS {
            println!("CHECK FAILED: every call to the file server has failed for {} s (last: {what}: {e}); the writer stops", waited / 1000);
            conflux_userlib::sys::exit(1)
        }
        if gone {
            self.reconnect(what, e);
        } else {
            println!("{what} failed: {e}; opening the file again and checking it whole");
            self.clock.sleep_ms(200);
        }
    }

    /// Reconnects to the file server, backing off while it is not back.
    fn reconnect(&mut self, what: &str, e: Error) {
        let start = self.clock.now_ms();
        let mut pause = 50;
        loop {
            match self.fs.reconnect() {
                Ok(()) => break,
                Err(_) if self.clock.now_ms() - self.last_ok > GIVE_UP_MS => {
                    println!("CHECK FAILED: the file server has not come back for {} s after {what}: {e}; the writer stops", GIVE_UP_MS / 1000);
                    conflux_userlib::sys::exit(1)
                }
                Err(_) => {
                    self.clock.sleep_ms(pause);
                    pause = (pause * 2).min(1000);
                }
            }
        }
        self.tally.reconnects += 1;
        println!(
            "{what} failed: {e}; reconnected to the file server after {} ms; every file is checked whole again",
            self.clock.now_ms() - start
        );
    }

    /// Runs `op` until it succeeds, surviving restarts.
    fn until_ok(&mut self, what: &'static str, op: impl Fn(&mut Fs) -> Result<(), Error>) {
        loop {
            match op(&mut self.fs) {
                Ok(()) => return,
                Err(e) => self.trouble(None, Trouble::Call(what, e)),
            }
        }
    }

    /// The last check of every file, the tally, and the end.
    fn finish(&mut self) -> ! {
        while !self.check_all() {
            self.clock.sleep_ms(200);
        }
        self.tally.checks += 1;
        for log in &mut self.logs {
            log.drop_handle(&mut self.fs, false);
        }
        let t = &self.tally;
        println!(
            "stopped after {} rounds: {} records fsynced in {FILES} files, every one read back intact; {} whole checks passed; {} failed calls survived ({} reconnects)",
            t.rounds,
            self.durable(),
            t.checks,
            t.errors,
            t.reconnects
        );
        conflux_userlib::sys::exit(0)
    }
}
