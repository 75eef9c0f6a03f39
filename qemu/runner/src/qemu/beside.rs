//! Work beside a captured guest: a thread that watches the console while
//! QEMU runs (a test's HTTP exchanges) and may ask the runner to stop
//! QEMU once it is done.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Shared;

/// Work run on its own thread beside the guest while it runs, watching
/// its console (a test's HTTP exchanges). With `stop`, QEMU is stopped
/// (SIGKILL) once the work returns: how a serving system's test ends.
pub struct Beside {
    pub work: Box<dyn FnOnce(&Console) -> BesideReport + Send>,
    pub stop: bool,
}

/// What [`Beside`] work reports: lines for the log (`[runner] ...`) and
/// what went wrong.
#[derive(Debug, Default)]
pub struct BesideReport {
    pub log: String,
    pub problems: Vec<String>,
}

/// `text` up to its last line end: the lines the guest has finished. A
/// line still being printed may be cut anywhere (`port=57` of
/// `port=5710`), so fields are parsed from whole lines only.
pub fn whole_lines(text: &str) -> &str {
    text.rfind('\n').map_or("", |end| &text[..end])
}

/// The guest's console as [`Beside`] work sees it.
#[derive(Clone)]
pub struct Console {
    shared: Arc<Shared>,
    /// Raised once QEMU has exited, so that nothing waits for text that
    /// cannot come any more.
    exited: Arc<AtomicBool>,
    /// When QEMU's process was spawned: where console times start.
    spawned: Instant,
    /// QEMU's process id (`None` in tests of beside work).
    pid: Option<u32>,
}

impl Console {
    pub(super) fn new(shared: Arc<Shared>, spawned: Instant, pid: Option<u32>) -> Self {
        Self {
            shared,
            exited: Arc::new(AtomicBool::new(false)),
            spawned,
            pid,
        }
    }

    /// QEMU's process id, for reading what its threads did
    /// (`host_wait`); `None` for a console of a test.
    pub fn qemu_pid(&self) -> Option<u32> {
        self.pid
    }

    /// Time since QEMU's start, on the clock of [`Console::first_seen`].
    pub fn elapsed(&self) -> Duration {
        self.spawned.elapsed()
    }

    /// A console that already shows `text` (for tests of beside work).
    #[cfg(test)]
    pub fn showing(text: &str) -> Self {
        Self::new(
            Arc::new(std::sync::Mutex::new((
                text.as_bytes().to_vec(),
                None,
                vec![(text.len(), Duration::ZERO)],
            ))),
            Instant::now(),
            None,
        )
    }

    /// Ends every wait: QEMU has exited.
    pub(super) fn qemu_exited(&self) {
        self.exited.store(true, Ordering::Relaxed);
    }

    /// Whether QEMU has exited.
    pub fn exited(&self) -> bool {
        self.exited.load(Ordering::Relaxed)
    }

    /// Everything printed so far (without carriage returns).
    pub fn text(&self) -> String {
        let g = self.shared.lock().expect("reader lock");
        String::from_utf8_lossy(&g.0).replace('\r', "")
    }

    /// When `text` first appeared on the console, measured from QEMU's
    /// start: when the read from QEMU's pipe that completed it ended (the
    /// host's wall clock, so late by at most the reader's wake-up).
    /// `text` lies within one line: lines end in `\r\n` here.
    pub fn first_seen(&self, text: &str) -> Option<Duration> {
        let g = self.shared.lock().expect("reader lock");
        let needle = text.as_bytes();
        if needle.is_empty() {
            return None;
        }
        let end = g.0.windows(needle.len()).position(|w| w == needle)? + needle.len();
        g.2.iter().find(|(upto, _)| *upto >= end).map(|(_, at)| *at)
    }

    /// Waits until `done(console text)` holds: false if `deadline` passes
    /// or QEMU exits first.
    pub fn wait_until(&self, deadline: Instant, done: impl Fn(&str) -> bool) -> bool {
        loop {
            if done(&self.text()) {
                return true;
            }
            if Instant::now() >= deadline || self.exited.load(Ordering::Relaxed) {
                return done(&self.text());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
