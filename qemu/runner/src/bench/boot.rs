//! `bench boot`: how long the default system takes from QEMU's start to
//! being usable, and where that time goes, over [`RUNS`] boots under tcg.
//!
//! Each boot runs with the kernel's boot trace on (`boot-trace`: a line
//! `boot trace: tsc N WHAT` per kernel milestone and per task's first
//! run, see the kernel's `boottrace`). Every console line is dated on
//! the host by when it came out of QEMU's pipe ([`Console::first_seen`],
//! wall clock since QEMU's process was spawned). The trace's TSC counts
//! are the host's TSC cycles since the virtual machine started running
//! (what TCG gives the guest), so with the host's TSC rate ([`tsc_rate`])
//! they become host times too: the machine started at the earliest
//! `arrival - tsc / rate` over the trace lines (a line can come out late,
//! never early). Beside the guest, the runner sends one HTTP request to
//! httpd through the system's forward (moved to a free host port) once
//! httpd says it serves, and dates the first whole status line.
//!
//! Records: bench `boot`, config `default`, mode `tcg`; per milestone
//! `qemu_start_to_*` and per phase `phase_*`, each with param `median`,
//! `min` and `max` (ms).

mod phases;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use super::append;
use crate::qemu::Console;
use crate::{forwards, image};
use phases::Milestones;

/// Boots measured.
const RUNS: usize = 15;
/// How long one boot may take to answer HTTP before it counts as failed.
const BOOT_DEADLINE: Duration = Duration::from_secs(30);

/// Runs the benchmark: prints the table and appends the records.
pub fn run() -> Result<(), String> {
    let mut built = image::build_named("default")?;
    let rate = tsc_rate();
    let mut runs = Vec::new();
    for i in 0..RUNS {
        let port = free_port()?;
        forwards::set_http_port(&mut built.manifest, port)?;
        let (m, console) = one_boot(&built, port, rate)
            .map_err(|e| format!("bench boot, boot {} of {RUNS}: {e}", i + 1))?;
        if i == 0 {
            if let Some(missing) = m.missing() {
                return Err(format!(
                    "bench boot: the console never showed {missing}; console:\n{console}"
                ));
            }
        }
        runs.push(m);
    }
    let table = phases::Table::from_runs(&runs);
    print!("{}", table.render(RUNS, rate));
    append(&table.records())
}

/// One boot: its milestones, and its console (for errors).
fn one_boot(built: &image::Built, port: u16, rate: f64) -> Result<(Milestones, String), String> {
    super::measure_beside_with(
        "bench boot",
        built,
        BOOT_DEADLINE + Duration::from_secs(5),
        phases::TRACE_ARGUMENT,
        move |console| {
            answer_after_serving(console, port).map(|(at, _)| Milestones::read(console, rate, at))
        },
    )
}

/// Waits for httpd's "serving" line, then asks httpd for `/` until a
/// whole status line comes back: when it came (since QEMU's start), and
/// its status code.
fn answer_after_serving(console: &Console, port: u16) -> Result<(Duration, u16), String> {
    let deadline = Instant::now() + BOOT_DEADLINE;
    while console.first_seen(phases::HTTPD_SERVING).is_none() {
        if Instant::now() > deadline {
            return Err(format!(
                "httpd never said `{}` within {BOOT_DEADLINE:?}",
                phases::HTTPD_SERVING
            ));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut last = String::new();
    while Instant::now() < deadline {
        match ask(port) {
            Ok(code) => return Ok((console.elapsed(), code)),
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Err(format!(
        "httpd said it serves but answered no request on 127.0.0.1:{port} within {BOOT_DEADLINE:?}; last error: {last}"
    ))
}

/// One `GET /` on a fresh connection; the status code of the answer.
fn ask(port: u16) -> Result<u16, String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(1))
        .map_err(|e| format!("connect: {e}"))?;
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .map_err(|e| format!("send: {e}"))?;
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    loop {
        if let Some(code) = crate::http_peer::status_of(&got) {
            return Ok(code);
        }
        match s.read(&mut buf) {
            Ok(0) => return Err(format!("closed after {}", crate::http_peer::escape(&got))),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => return Err(format!("read: {e}")),
        }
    }
}

/// A host port free on 127.0.0.1 now (the forward is moved there, so
/// the benchmark never meets another engineer's QEMU on 8080).
fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot read a bound port: {e}"))
}

/// The host's TSC cycles per millisecond, measured against the wall
/// clock over 200 ms (QEMU's TCG guest reads the host's TSC).
fn tsc_rate() -> f64 {
    // Safety: RDTSC only reads the counter.
    let tsc = || unsafe { core::arch::x86_64::_rdtsc() };
    let (t0, c0) = (Instant::now(), tsc());
    std::thread::sleep(Duration::from_millis(200));
    let (c1, t1) = (tsc(), t0.elapsed());
    (c1 - c0) as f64 / (t1.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests;
