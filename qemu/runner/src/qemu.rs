//! Starting QEMU: the machine every Conflux system runs on, interactively
//! or captured (for tests and benchmarks) with a timeout.

use crate::accel::{self, Accel};
use crate::devices;
use crate::forwards;
use crate::image::{self, Built};
use crate::netback::{self, passt::Passts};
use crate::run_verdict;
use crate::symbolize;
use crate::typist;

mod beside;

pub use beside::{whole_lines, Beside, BesideReport, Console};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const QEMU: &str = "qemu-system-x86_64";
/// Text of the kernel's banner line, printed once every task is loaded.
pub const BANNER_MARK: &str = "' up: ";

/// Finds QEMU on the PATH, or says how to install it.
pub fn find_qemu() -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(QEMU))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{QEMU} not found on PATH: install it with `sudo apt-get install qemu-system-x86` (or run `bash qemu/setup.sh`)"))
}

/// CPUs QEMU gets: the manifest's, except under icount, where a guest with
/// more than one CPU may never finish booting (seen with Linux here).
fn cpus(built: &Built, accel: Accel) -> u32 {
    if accel == Accel::Icount {
        1
    } else {
        built.manifest.system.cpus
    }
}

/// The network of one QEMU run: the backend chosen and, under passt, its
/// processes, stopped when this drops (so keep it until QEMU has exited).
pub struct NetRun {
    pub choice: netback::Choice,
    /// Whether the system has a network device at all.
    pub present: bool,
    passts: Option<Passts>,
}

impl NetRun {
    /// `, network: passt` for the boot line, or nothing without a network.
    fn describe(&self) -> String {
        if self.present {
            format!(", network: {}", self.choice.network)
        } else {
            String::new()
        }
    }
}

/// Chooses `built`'s network backend (printing why, when it falls back)
/// and starts passt when it is the one; the HTTP peer connects
/// concurrently only where the backend takes concurrent connections.
pub fn start_network(built: &Built) -> Result<NetRun, String> {
    let env = netback::from_env()?;
    let choice = netback::choose(&built.manifest, built.network, env, &netback::Host::probe())?;
    if let Some(line) = &choice.fallback {
        eprintln!("conflux: {line}");
    }
    let present = netback::has_network(&built.manifest);
    let passts = if present && choice.network == conflux_manifest::Network::Passt {
        Some(netback::passt::start(&built.manifest)?)
    } else {
        None
    };
    crate::http_peer::connect_concurrently(passts.is_some());
    Ok(NetRun {
        choice,
        present,
        passts,
    })
}

/// The kernel command line for `kernel_args` under `accel`: under icount
/// it adds `idle=halt`, since an idle CPU that polls before halting spends
/// guest instructions — guest time there — for as long as the host takes
/// to finish a device's work, which would make the counts depend on the
/// host (docs/kernel.md, "Idle"). Linux reads the same word the same way.
pub(crate) fn kernel_line(accel: Accel, kernel_args: &str) -> String {
    let mut line = kernel_args.trim().to_owned();
    if accel == Accel::Icount {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str("idle=halt");
    }
    line
}

/// The QEMU command for `built` under `accel` with `kernel_args` on the
/// kernel's command line ([`kernel_line`]), without serial settings.
/// (Callers add COM1 for the console and COM2 as a null device that tests
/// drive through an I/O-port capability.)
pub(crate) fn command(
    built: &Built,
    accel: Accel,
    net: &NetRun,
    kernel_args: &str,
) -> Result<Command, String> {
    let mut cmd = Command::new(find_qemu()?);
    let sys = &built.manifest.system;
    let cpus = cpus(built, accel);
    cmd.args([
        "-machine",
        "q35",
        "-nodefaults",
        "-no-reboot",
        "-display",
        "none",
    ])
    .args([
        "-m",
        &format!("{}M", sys.memory_mib),
        "-smp",
        &cpus.to_string(),
    ])
    // Named threads (`CPU 0/TCG`, ...): the benchmarks tell the guest
    // CPUs' host threads from QEMU's others by them (host_wait.rs).
    .args(["-name", &format!("{},debug-threads=on", sys.name)])
    .args(["-device", "isa-debug-exit,iobase=0xf4,iosize=4"])
    .arg("-kernel")
    .arg(&built.kernel)
    .arg("-initrd")
    .arg(&built.image)
    .args(accel.qemu_args());
    let line = kernel_line(accel, kernel_args);
    if !line.is_empty() {
        cmd.args(["-append", &line]);
    }
    let dir = built.image.parent().unwrap_or(std::path::Path::new("."));
    devices::prepare(&built.manifest, dir, built.fresh_disk)?;
    cmd.args(devices::args(&built.manifest, dir, |name| {
        net.passts.as_ref().and_then(|p| p.socket(name))
    }));
    cmd.args(extra_args());
    Ok(cmd)
}

/// Extra QEMU arguments from `CONFLUX_QEMU_ARGS` (split at whitespace), for
/// chasing a bug with QEMU's own tools, e.g. `-d int,cpu_reset -D q.log`.
fn extra_args() -> Vec<String> {
    std::env::var("CONFLUX_QEMU_ARGS")
        .map(|s| s.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

fn describe(built: &Built, accel: Accel, net: &NetRun) -> String {
    let s = &built.manifest.system;
    format!(
        "system '{}' under {accel} (QEMU q35, {} CPU, {} MiB{})",
        s.name,
        cpus(built, accel),
        s.memory_mib,
        net.describe()
    )
}

/// Builds `system` and boots it with the console on this terminal.
pub fn run_interactive(
    system: &str,
    accel: Option<Accel>,
    fresh_disk: bool,
    http_port: Option<u16>,
    network: Option<conflux_manifest::Network>,
) -> Result<(), String> {
    let accel = accel.unwrap_or_else(accel::default_accel);
    accel::check(accel)?;
    let mut built = image::build_named(system)?;
    built.fresh_disk = fresh_disk;
    built.network = network;
    if let Some(port) = http_port {
        forwards::set_http_port(&mut built.manifest, port)?;
    }
    forwards::check_free(&built.manifest)?;
    let net = start_network(&built)?;
    eprintln!(
        "conflux: booting {}; quit with Ctrl-A X",
        describe(&built, accel, &net)
    );
    for line in forwards::describe(&built.manifest) {
        eprintln!("conflux: {line}");
    }
    // A terminal goes to QEMU as it is (raw mode, Ctrl-A X); piped input
    // is typed once the kernel's banner is out, like a test's `input`.
    let piped = !std::io::stdin().is_terminal();
    let mut cmd = command(&built, accel, &net, "")?;
    cmd.args(["-serial", "mon:stdio", "-serial", "null"])
        .stdout(Stdio::piped());
    if piped {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot start QEMU: {e}"))?;
    let banner = Arc::new(AtomicBool::new(false));
    if let Some(stdin) = child.stdin.take() {
        let seen = Arc::clone(&banner);
        // Not joined: our input may never end; the thread ends with us.
        let _ = typist::spawn(
            stdin,
            typist::Source::OurStdin,
            move || seen.load(Ordering::Relaxed),
            Instant::now() + Duration::from_secs(3600),
        );
    }
    let output = forward_output(&mut child, &banner)?;
    let status = child.wait().map_err(|e| format!("waiting for QEMU: {e}"))?;
    for line in symbolize::annotate(&output, &built.kernel) {
        eprintln!("{line}");
    }
    eprintln!("conflux: QEMU exited: {}", verdict_text(status.code()));
    let problems = run_verdict::problems(&output, status.code());
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "system '{}' did not run cleanly: {}",
            built.manifest.system.name,
            problems.join("; ")
        ))
    }
}

/// Copies QEMU's output to our stdout as it arrives, raising `banner`
/// once the kernel's banner has passed; returns all of it.
fn forward_output(child: &mut Child, banner: &AtomicBool) -> Result<String, String> {
    let mut out = child.stdout.take().ok_or("QEMU stdout not captured")?;
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    let mut stdout = std::io::stdout();
    while let Ok(n) = out.read(&mut buf) {
        if n == 0 {
            break;
        }
        let _ = stdout.write_all(&buf[..n]);
        let _ = stdout.flush();
        all.extend_from_slice(&buf[..n]);
        if !banner.load(Ordering::Relaxed) && String::from_utf8_lossy(&all).contains(BANNER_MARK) {
            banner.store(true, Ordering::Relaxed);
        }
    }
    Ok(String::from_utf8_lossy(&all).into_owned())
}

/// Readable meaning of QEMU's exit status.
pub fn verdict_text(code: Option<i32>) -> String {
    use conflux_abi::exit::Verdict;
    match code.and_then(Verdict::from_qemu_status) {
        Some(Verdict::AllTasksEnded) => "all tasks ended, no kernel fault".into(),
        Some(Verdict::KernelFault) => {
            "the kernel stopped the machine after a kernel fault or panic".into()
        }
        None => match code {
            Some(0) => "the guest powered the machine off (or QEMU was quit with Ctrl-A X)".into(),
            Some(c) => {
                format!("QEMU exited with status {c} (not a Conflux verdict: QEMU itself failed?)")
            }
            None => "QEMU was killed by a signal".into(),
        },
    }
}

/// What a captured run produced.
pub struct Captured {
    pub output: String,
    /// QEMU's exit status; `None` when the run timed out and was killed.
    pub status: Option<i32>,
    pub elapsed: Duration,
    /// NMIs QEMU accepted (QMP `inject-nmi` answered with `return`).
    pub nmis_injected: usize,
    /// When the runner killed QEMU on purpose ([`Kill`]): how long after
    /// the line appeared.
    pub killed_after: Option<Duration>,
    /// What the [`Beside`] work reported, if there was one.
    pub beside: Option<BesideReport>,
    /// The runner stopped QEMU because the [`Beside`] work was done and
    /// asked for it.
    pub stopped: bool,
}

/// Kill QEMU with SIGKILL `delay` after `line` appears on the console
/// (a crash test's round).
pub struct Kill<'a> {
    pub line: &'a str,
    pub delay: Duration,
}

/// Boots `built` with the console captured, killing QEMU after `timeout`;
/// `kernel_args` becomes the kernel command line.
pub fn run_captured(
    built: &Built,
    accel: Accel,
    timeout: Duration,
    kernel_args: &str,
) -> Result<Captured, String> {
    run_captured_with_nmis(built, accel, timeout, kernel_args, &[], b"")
}

/// [`run_captured`], injecting an NMI `nmi_after_ms[i]` milliseconds after
/// the kernel's banner (through QMP on a Unix socket, never TCP), and
/// typing `input` on the console once the banner is out.
pub fn run_captured_with_nmis(
    built: &Built,
    accel: Accel,
    timeout: Duration,
    kernel_args: &str,
    nmi_after_ms: &[u32],
    input: &[u8],
) -> Result<Captured, String> {
    run_captured_full(
        built,
        accel,
        timeout,
        kernel_args,
        nmi_after_ms,
        input,
        None,
        None,
    )
}

/// [`run_captured_with_nmis`]; with `kill`, SIGKILLs QEMU once
/// `kill.line` has been on the console for `kill.delay`; with `beside`,
/// runs that work on its own thread (and stops QEMU when it returns, if
/// it asks to).
#[allow(clippy::too_many_arguments)]
pub fn run_captured_full(
    built: &Built,
    accel: Accel,
    timeout: Duration,
    kernel_args: &str,
    nmi_after_ms: &[u32],
    input: &[u8],
    kill: Option<&Kill>,
    beside: Option<Beside>,
) -> Result<Captured, String> {
    let start = Instant::now();
    // Dropped when this function returns: QEMU has exited by then.
    let net = start_network(built)?;
    let mut cmd = command(built, accel, &net, kernel_args)?;
    let qmp_socket = (!nmi_after_ms.is_empty()).then(qmp_socket_path);
    if let Some(path) = &qmp_socket {
        let _ = std::fs::remove_file(path);
        cmd.arg("-qmp")
            .arg(format!("unix:{},server=on,wait=off", path.display()));
    }
    // Times on the console are measured from here: QEMU's start.
    let spawned = Instant::now();
    let mut child = cmd
        .args(["-serial", "stdio", "-serial", "null", "-monitor", "none"])
        .stdin(if input.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start QEMU: {e}"))?;
    let shared = Arc::new(Mutex::new(Output::default()));
    let reader = {
        let shared = Arc::clone(&shared);
        let mut out = child.stdout.take().ok_or("QEMU stdout not captured")?;
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let at = spawned.elapsed();
                let mut g = shared.lock().expect("reader lock");
                g.0.extend_from_slice(&buf[..n]);
                let end = g.0.len();
                g.2.push((end, at));
                if g.1.is_none() && String::from_utf8_lossy(&g.0).contains(BANNER_MARK) {
                    g.1 = Some(at);
                }
            }
        })
    };
    let typing = child.stdin.take().map(|stdin| {
        let shared = Arc::clone(&shared);
        typist::spawn(
            stdin,
            typist::Source::Text(input.to_vec()),
            move || shared.lock().expect("reader lock").1.is_some(),
            start + timeout,
        )
    });
    let nmi_sender = qmp_socket.clone().map(|path| {
        let shared = Arc::clone(&shared);
        let times = nmi_after_ms.to_vec();
        std::thread::spawn(move || inject_nmis(&path, &times, spawned, timeout, &shared))
    });
    let console = Console::new(Arc::clone(&shared), spawned, Some(child.id()));
    let stop_after_beside = beside.as_ref().is_some_and(|b| b.stop);
    let beside = beside.map(|b| {
        let console = console.clone();
        std::thread::spawn(move || (b.work)(&console))
    });
    let mut line_seen: Option<Instant> = None;
    let mut killed_after = None;
    let mut stopped = false;
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| format!("waiting for QEMU: {e}"))?
        {
            break s.code();
        }
        if stop_after_beside && beside.as_ref().is_some_and(|b| b.is_finished()) {
            let _ = child.kill();
            let _ = child.wait();
            stopped = true;
            break None;
        }
        if let Some(kill) = kill {
            if line_seen.is_none() && contains(&shared, kill.line) {
                line_seen = Some(Instant::now());
            }
            if let Some(seen) = line_seen.filter(|seen| seen.elapsed() >= kill.delay) {
                // `Child::kill` is SIGKILL on Unix: QEMU gets no chance to
                // flush anything it has not yet handed to the host kernel.
                let _ = child.kill();
                let _ = child.wait();
                killed_after = Some(seen.elapsed());
                break None;
            }
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    console.qemu_exited();
    let beside = beside.map(|b| {
        b.join().unwrap_or_else(|_| BesideReport {
            log: "[runner] the work beside the guest panicked\n".into(),
            problems: vec!["the runner's work beside the guest panicked".into()],
        })
    });
    let _ = reader.join();
    drop(typing.map(|t| t.join()));
    let (nmis_injected, nmi_log) = match nmi_sender {
        Some(sender) => sender
            .join()
            .unwrap_or_else(|_| (0, "[runner] NMI sender panicked\n".to_owned())),
        None => (0, String::new()),
    };
    if let Some(path) = &qmp_socket {
        let _ = std::fs::remove_file(path);
    }
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    let g = shared.lock().expect("reader lock");
    let mut output = String::from_utf8_lossy(&g.0).replace('\r', "");
    if !stderr.trim().is_empty() {
        output.push_str("\n[qemu stderr]\n");
        output.push_str(&stderr);
    }
    if !nmi_log.is_empty() {
        output.push('\n');
        output.push_str(&nmi_log);
    }
    if let Some(report) = beside.as_ref().filter(|r| !r.log.is_empty()) {
        output.push('\n');
        output.push_str(&report.log);
    }
    if stopped {
        output.push_str(&format!(
            "[runner] QEMU stopped by the runner after {:.1} s: the work beside the guest was done\n",
            elapsed.as_secs_f64()
        ));
    }
    Ok(Captured {
        output,
        status,
        elapsed,
        nmis_injected,
        killed_after,
        beside,
        stopped,
    })
}

/// Whether the console output so far contains `text`.
fn contains(shared: &Shared, text: &str) -> bool {
    let g = shared.lock().expect("reader lock");
    String::from_utf8_lossy(&g.0).contains(text)
}

/// A fresh Unix socket path for one QEMU's QMP monitor.
fn qmp_socket_path() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("conflux-qmp-{}-{n}.sock", std::process::id()))
}

/// The console so far: its bytes, when the banner came, and when each
/// read from QEMU's pipe ended (bytes so far, time since QEMU's start),
/// from which [`Console::first_seen`] dates any text.
type Output = (Vec<u8>, Option<Duration>, Vec<(usize, Duration)>);

/// Output, banner time and arrival times, shared between the console
/// reader and others.
type Shared = Mutex<Output>;

/// Connects to QMP at `path`, waits for the kernel banner, then sends
/// `inject-nmi` at each of `times` (ms after the banner). Returns how many
/// QEMU accepted and a log (lines starting `[runner]`, never `conflux:`).
fn inject_nmis(
    path: &std::path::Path,
    times: &[u32],
    start: Instant,
    timeout: Duration,
    shared: &Shared,
) -> (usize, String) {
    let mut log = String::new();
    let result = (|| -> Result<usize, String> {
        let mut qmp = Qmp::connect(path, start, timeout)?;
        qmp.command("qmp_capabilities")?;
        let banner = loop {
            if let Some(at) = shared.lock().expect("reader lock").1 {
                break at;
            }
            if start.elapsed() > timeout {
                return Err("the kernel banner never appeared".into());
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut injected = 0;
        for &ms in times {
            let at = banner + Duration::from_millis(ms.into());
            if let Some(wait) = at.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
            qmp.command("inject-nmi")?;
            injected += 1;
            log.push_str(&format!(
                "[runner] NMI {injected} injected {} ms after the banner (asked: {ms} ms)\n",
                start.elapsed().saturating_sub(banner).as_millis()
            ));
        }
        Ok(injected)
    })();
    match result {
        Ok(n) => (n, log),
        Err(e) => {
            let n = log.lines().count();
            log.push_str(&format!("[runner] NMI injection stopped: {e}\n"));
            (n, log)
        }
    }
}

/// A QMP connection: one JSON object per line each way.
struct Qmp {
    writer: std::os::unix::net::UnixStream,
    reader: std::io::BufReader<std::os::unix::net::UnixStream>,
}

impl Qmp {
    /// Connects (QEMU creates the socket shortly after it starts) and reads
    /// the greeting.
    fn connect(path: &std::path::Path, start: Instant, timeout: Duration) -> Result<Self, String> {
        use std::os::unix::net::UnixStream;
        let stream = loop {
            match UnixStream::connect(path) {
                Ok(stream) => break stream,
                Err(e) if start.elapsed() > timeout => {
                    return Err(format!("cannot connect to QMP at {}: {e}", path.display()))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let reader = std::io::BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let mut qmp = Self {
            writer: stream,
            reader,
        };
        let greeting = qmp.line()?;
        if !greeting.contains("\"QMP\"") {
            return Err(format!("unexpected QMP greeting: {greeting}"));
        }
        Ok(qmp)
    }

    fn line(&mut self) -> Result<String, String> {
        use std::io::BufRead;
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Err("QMP closed (QEMU exited?)".into()),
            Ok(_) => Ok(line),
            Err(e) => Err(format!("reading QMP: {e}")),
        }
    }

    /// Runs `name` (no arguments); `Ok` when QEMU answers `return`.
    fn command(&mut self, name: &str) -> Result<(), String> {
        writeln!(self.writer, "{{\"execute\":\"{name}\"}}")
            .map_err(|e| format!("writing QMP: {e}"))?;
        loop {
            let line = self.line()?;
            if line.contains("\"event\"") {
                continue;
            }
            if line.contains("\"return\"") {
                return Ok(());
            }
            return Err(format!("QMP {name} failed: {}", line.trim()));
        }
    }
}

/// Builds `system` and starts it halted with QEMU's gdb stub on :1234.
pub fn run_gdb(system: &str) -> Result<(), String> {
    let built = image::build_named(system)?;
    let accel = Accel::Tcg;
    let net = start_network(&built)?;
    eprintln!(
        "conflux: {} halted, gdb stub on localhost:1234. Attach from another terminal with:",
        describe(&built, accel, &net)
    );
    eprintln!(
        "\n    gdb -ex 'file {}' -ex 'target remote localhost:1234' -ex 'break kernel_main' -ex 'continue'\n",
        built.kernel.display()
    );
    eprintln!("conflux: task symbols: add-symbol-file target/x86_64-unknown-none/release/<task crate>; quit QEMU with Ctrl-A X");
    let status = command(&built, accel, &net, "")?
        .args(["-serial", "mon:stdio", "-serial", "null", "-s", "-S"])
        .status()
        .map_err(|e| format!("cannot start QEMU: {e}"))?;
    eprintln!("conflux: QEMU exited: {}", verdict_text(status.code()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_icount_turns_the_kernels_idle_polling_off() {
        assert_eq!(kernel_line(Accel::Icount, ""), "idle=halt");
        assert_eq!(
            kernel_line(Accel::Icount, "selftest=panic "),
            "selftest=panic idle=halt"
        );
        assert_eq!(kernel_line(Accel::Tcg, ""), "");
        assert_eq!(kernel_line(Accel::Tcg, "boot-trace"), "boot-trace");
        assert_eq!(kernel_line(Accel::Kvm, "boot-trace"), "boot-trace");
    }
}
