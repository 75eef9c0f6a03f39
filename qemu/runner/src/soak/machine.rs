//! The soak's machine: QEMU booted with the console on a pipe, read by a
//! thread into a shared buffer (and a log file as it comes) and typed into
//! line by line, at any time, by whoever drives it.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::accel::Accel;
use crate::image::Built;
use crate::qemu;

pub struct Machine {
    child: Child,
    stdin: Mutex<ChildStdin>,
    console: Arc<Mutex<Vec<u8>>>,
    reader: Option<JoinHandle<()>>,
    /// The network backend (under passt, its processes): kept until QEMU
    /// has gone.
    _net: qemu::NetRun,
}

impl Machine {
    /// Boots `built` under `accel`, copying the console to `log`.
    pub fn boot(built: &Built, accel: Accel, log: &Path) -> Result<Machine, String> {
        let net = qemu::start_network(built)?;
        let mut child = qemu::command(built, accel, &net, "")?
            .args(["-serial", "stdio", "-serial", "null", "-monitor", "none"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start QEMU: {e}"))?;
        let stdin = child.stdin.take().ok_or("QEMU stdin not captured")?;
        let mut out = child.stdout.take().ok_or("QEMU stdout not captured")?;
        let mut file = std::fs::File::create(log)
            .map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let console = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::clone(&console);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let _ = file.write_all(&buf[..n]);
                shared
                    .lock()
                    .expect("console lock")
                    .extend_from_slice(&buf[..n]);
            }
        });
        Ok(Machine {
            child,
            stdin: Mutex::new(stdin),
            console,
            reader: Some(reader),
            _net: net,
        })
    }

    /// Where the console's last line (finished or not) starts.
    pub fn line_start(&self) -> usize {
        let g = self.console.lock().expect("console lock");
        g.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1)
    }

    /// The console from byte `from` on, without carriage returns.
    pub fn text_from(&self, from: usize) -> String {
        let g = self.console.lock().expect("console lock");
        String::from_utf8_lossy(&g[from.min(g.len())..]).replace('\r', "")
    }

    /// Waits until `done(text from byte from)` holds; false at `timeout`
    /// or once QEMU has exited.
    pub fn wait(
        &mut self,
        from: usize,
        timeout: Duration,
        mut done: impl FnMut(&str) -> bool,
    ) -> bool {
        let until = Instant::now() + timeout;
        loop {
            if done(&self.text_from(from)) {
                return true;
            }
            if Instant::now() >= until || self.exited().is_some() {
                return done(&self.text_from(from));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `line` and a newline on the console.
    pub fn type_line(&self, line: &str) -> Result<(), String> {
        let mut stdin = self.stdin.lock().expect("stdin lock");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("typing `{line}` on the console: {e} (QEMU gone?)"))
    }

    /// QEMU's exit status once it has exited (`Some(None)`: by a signal).
    pub fn exited(&mut self) -> Option<Option<i32>> {
        self.child.try_wait().ok().flatten().map(|s| s.code())
    }

    /// Waits up to `timeout` for QEMU to exit; kills it after that.
    /// Returns its status (`None`: killed) and the whole console.
    pub fn finish(mut self, timeout: Duration) -> (Option<i32>, String) {
        let until = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.exited() {
                break status;
            }
            if Instant::now() >= until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        (status, self.text_from(0))
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
