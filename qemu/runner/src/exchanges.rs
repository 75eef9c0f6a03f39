//! A test's `[test] http` exchanges, run beside the guest
//! (`qemu::Beside`): each waits for its `after` line, then runs through
//! the HTTP peer against 127.0.0.1:`port`; `background` ones run on
//! their own threads while the next ones start. All are joined and judged
//! at the end, in manifest order. A serving system (`outcome =
//! "serving"`) is then stopped once every expected line is out.
//!
//! Expected bodies are loaded before QEMU starts (files of the disk
//! folder; generated files from their seed), so a wrong path fails early.
//! Each fetch logs its requests/s and bytes/s as a `[runner]` line.
//! `[test] udp` blasts run on a thread of their own, and each `[test]
//! tcp_sink` receiver (`tcp_peer`) listens before QEMU starts and reads
//! on its own thread; all are judged with the exchanges.

use std::collections::HashMap;
use std::path::{Component, Path};
use std::sync::Arc;
use std::time::{Duration, Instant};

use conflux_manifest::{
    BodyCheck, HttpExchange, HttpKind, Manifest, Method, RawSend, SinkContent, Then,
};

use crate::disks::{self, generate};
use crate::http_peer::{
    self, ConditionalPlan, CrowdPlan, Expected, FetchPlan, HoldPlan, Probe, RawPlan, RawReport,
    RawThen, Stats, Target,
};
use crate::oracle;
use crate::qemu::{Beside, BesideReport, Console};
use crate::{tcp_peer, udp_peer};

/// One exchange ready to run.
enum Plan {
    Fetch(FetchPlan),
    Raw(RawPlan),
    Hold(HoldPlan),
    Conditional(ConditionalPlan),
    Crowd(CrowdPlan),
}

/// The exchanges of `manifest`'s test as work beside the guest, or `None`
/// when there is nothing to do beside it. `timeout` bounds the waits for
/// console lines.
pub fn beside(manifest: &Manifest, timeout: Duration) -> Result<Option<Beside>, String> {
    let Some(spec) = &manifest.test else {
        return Ok(None);
    };
    let serving = spec.outcome == conflux_manifest::Outcome::Serving;
    if spec.http.is_empty()
        && spec.udp.is_empty()
        && spec.tcp_sink.is_empty()
        && spec.listen.is_empty()
        && !serving
    {
        return Ok(None);
    }
    let lookouts = spec
        .listen
        .iter()
        .map(|&port| Lookout::listen(port))
        .collect::<Result<Vec<_>, String>>()?;
    let blasts = spec.udp.clone();
    // Listening now, before QEMU starts: it connects to each guest
    // forward's host port at once.
    let receivers = spec
        .tcp_sink
        .iter()
        .map(|s| {
            let mut expect = match &s.content {
                SinkContent::Records { count, size, seed } => {
                    tcp_peer::Expect::records(*count, *size as usize, *seed)
                }
                SinkContent::File { path, chunk } => {
                    let bytes = generated_bytes(manifest, path)?;
                    tcp_peer::Expect::bytes(bytes, *chunk as usize)?
                }
            };
            if let Some((key, iv)) = s.cipher {
                expect = expect.encrypted(key, iv);
            }
            let receiver = tcp_peer::Receiver::listen(s.port, expect)?;
            let receiver = match s.may_cut_secs {
                Some(secs) => receiver.may_cut(Duration::from_secs(secs.into()), s.cut_at_unit),
                None => receiver,
            };
            Ok((s.clone(), receiver))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut bodies = Bodies::new(manifest);
    let plans: Vec<(HttpExchange, Plan)> = spec
        .http
        .iter()
        .enumerate()
        .map(|(i, ex)| {
            Ok((
                ex.clone(),
                plan(ex, &mut bodies).map_err(|e| format!("test.http[{i}]: {e}"))?,
            ))
        })
        .collect::<Result<_, String>>()?;
    let expect = spec.expect.clone();
    let tasks: Vec<String> = manifest.tasks.iter().map(|t| t.name.clone()).collect();
    let work = move |console: &Console| {
        let deadline = Instant::now() + timeout;
        // Datagrams go out on their own thread, each after its line, while
        // the HTTP exchanges run here.
        let (mut report, udp, tcp) = std::thread::scope(|scope| {
            let udp = scope.spawn(|| udp_all(&blasts, console, deadline));
            let tcp: Vec<_> = receivers
                .into_iter()
                .map(|(s, r)| (s, scope.spawn(move || r.receive(deadline))))
                .collect();
            let report = run_all(plans, console, deadline);
            let tcp: Vec<_> = tcp.into_iter().map(|(s, t)| (s, t.join())).collect();
            (report, udp.join(), tcp)
        });
        for (s, result) in tcp {
            let name = match &s.content {
                SinkContent::Records { count, size, .. } => {
                    format!("tcp_sink (port {}, {count} x {size} bytes)", s.port)
                }
                SinkContent::File { path, chunk } => {
                    format!("tcp_sink (port {}, {path} in {chunk}-byte chunks)", s.port)
                }
            };
            match result.unwrap_or_else(|_| Err("the receiver's thread panicked".into())) {
                Ok(r) if r.cut => report.log.push_str(&format!(
                    "[runner] {name}: ok: cut after {} bytes, every whole unit before right ({:.2} s)\n",
                    r.bytes,
                    r.span.as_secs_f64()
                )),
                Ok(r) => report.log.push_str(&format!(
                    "[runner] {name}: ok: every unit whole, in order, once ({} bytes in {:.2} s)\n",
                    r.bytes,
                    r.span.as_secs_f64()
                )),
                Err(e) => {
                    report
                        .log
                        .push_str(&format!("[runner] {name}: FAILED: {e}\n"));
                    report.problems.push(format!("{name}: {e}"));
                }
            }
        }
        match udp {
            Ok(udp) => {
                report.log.push_str(&udp.log);
                report.problems.extend(udp.problems);
            }
            Err(_) => report
                .problems
                .push("the UDP sender's thread panicked".into()),
        }
        if serving {
            let names: Vec<&str> = tasks.iter().map(String::as_str).collect();
            let met = console.wait_until(deadline, |out| oracle::expect_met(&expect, &names, out));
            report.log.push_str(&format!(
                "[runner] serving: every exchange judged{}\n",
                if met {
                    ", every expected line out"
                } else {
                    "; not every expected line came"
                }
            ));
        } else if !lookouts.is_empty() {
            // Until the guest is done: a connection may come at any time.
            console.wait_until(deadline, |_| false);
        }
        for lookout in &lookouts {
            match lookout.visitors() {
                Ok(()) => report.log.push_str(&format!(
                    "[runner] listen (port {} at every address of this machine): no connection came\n",
                    lookout.port
                )),
                Err(e) => {
                    report.log.push_str(&format!("[runner] listen: FAILED: {e}\n"));
                    report.problems.push(e);
                }
            }
        }
        report
    };
    Ok(Some(Beside {
        work: Box::new(work),
        stop: serving,
    }))
}

/// A port the runner listens on at every address of this machine, which
/// nothing may connect to (`[test] listen`).
struct Lookout {
    port: u16,
    listener: std::net::TcpListener,
}

impl Lookout {
    fn listen(port: u16) -> Result<Self, String> {
        let listener = std::net::TcpListener::bind(("0.0.0.0", port)).map_err(|e| {
            format!("cannot listen on port {port} at every address (test.listen): {e}")
        })?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("port {port}: {e}"))?;
        Ok(Self { port, listener })
    }

    /// `Err` naming who connected, if anyone did.
    fn visitors(&self) -> Result<(), String> {
        match self.listener.accept() {
            Ok((_, from)) => Err(format!(
                "a connection from {from} reached port {} of this machine: the guest got out of its network",
                self.port
            )),
            Err(_) => Ok(()),
        }
    }
}

/// The bytes of the folder disk's generated file `path` (a `tcp_sink`'s
/// expected content).
pub fn generated_bytes(manifest: &Manifest, path: &str) -> Result<Arc<Vec<u8>>, String> {
    let file = manifest
        .devices
        .iter()
        .find_map(|d| match &d.disk {
            Some(conflux_manifest::DiskImage::Folder { generate, .. }) => generate
                .iter()
                .find(|g| g.files.is_none() && g.path.trim_start_matches('/') == path),
            _ => None,
        })
        .ok_or_else(|| format!("`{path}` is not a generated file of the folder disk"))?;
    Ok(Arc::new(generate::bytes(file.seed, file.size)))
}

/// Runs every exchange in order, each after its line, and judges them.
fn run_all(plans: Vec<(HttpExchange, Plan)>, console: &Console, deadline: Instant) -> BesideReport {
    let mut report = BesideReport::default();
    let mut running = Vec::new();
    let mut done = Vec::new();
    for (index, (exchange, plan)) in plans.into_iter().enumerate() {
        let name = describe(index, &exchange);
        if !console.wait_until(deadline, |out| out.contains(&exchange.after)) {
            let never = format!(
                "never started: the console never showed {:?}",
                exchange.after
            );
            done.push((index, name, Err(never)));
            continue;
        }
        if exchange.background {
            running.push((index, name, std::thread::spawn(move || run(&plan))));
        } else {
            done.push((index, name, run(&plan)));
        }
    }
    for (index, name, handle) in running {
        let result = handle
            .join()
            .unwrap_or_else(|_| Err("the exchange's thread panicked".into()));
        done.push((index, name, result));
    }
    done.sort_by_key(|(index, _, _)| *index);
    for (_, name, result) in done {
        match result {
            Ok(line) => report
                .log
                .push_str(&format!("[runner] {name}: ok: {line}\n")),
            Err(e) => {
                report
                    .log
                    .push_str(&format!("[runner] {name}: FAILED: {e}\n"));
                report.problems.push(format!("{name}: {e}"));
            }
        }
    }
    report
}

/// Sends every `[test] udp` blast in order, each after its line.
fn udp_all(
    blasts: &[conflux_manifest::UdpBlast],
    console: &Console,
    deadline: Instant,
) -> BesideReport {
    let mut report = BesideReport::default();
    for (index, b) in blasts.iter().enumerate() {
        let name = format!(
            "udp #{index} (port {}, {} x {} bytes)",
            b.port, b.count, b.size
        );
        if !console.wait_until(deadline, |out| out.contains(&b.after)) {
            let e = format!("never started: the console never showed {:?}", b.after);
            report
                .log
                .push_str(&format!("[runner] {name}: FAILED: {e}\n"));
            report.problems.push(format!("{name}: {e}"));
            continue;
        }
        let blast = udp_peer::Blast {
            port: b.port,
            count: b.count,
            size: b.size as usize,
            seed: b.seed,
            key: b.key,
            iv: b.iv,
            rate: b.rate,
        };
        match blast.send() {
            Ok(sent) => report.log.push_str(&format!(
                "[runner] {name}: sent {} datagrams in {:.2} s ({:.0}/s)\n",
                sent.datagrams,
                sent.elapsed.as_secs_f64(),
                f64::from(sent.datagrams) / sent.elapsed.as_secs_f64().max(1e-9)
            )),
            Err(e) => {
                report
                    .log
                    .push_str(&format!("[runner] {name}: FAILED: {e}\n"));
                report.problems.push(format!("{name}: {e}"));
            }
        }
    }
    report
}

/// `http #3 (get, port 8080, /a, /b)`: index, kind, port and paths.
fn describe(index: usize, exchange: &HttpExchange) -> String {
    let paths = match &exchange.kind {
        HttpKind::Fetch(f) => format!(", {}", f.paths.join(", ")),
        HttpKind::Raw(_) => String::new(),
        HttpKind::Hold(h) => match &h.probe {
            Some(p) => format!(", {} x {}, probe {}", h.peers, h.path, p.path),
            None => format!(", {} x {}", h.peers, h.path),
        },
        HttpKind::Conditional(c) => format!(", {}", c.path),
        HttpKind::Crowd(c) => format!(", {} x {}", c.clients, c.path),
    };
    format!(
        "http #{index} ({}, port {}{paths})",
        exchange.kind.name(),
        exchange.port
    )
}

/// Runs one plan: a summary for the log, or what went wrong.
fn run(plan: &Plan) -> Result<String, String> {
    match plan {
        Plan::Fetch(p) => http_peer::fetch(p).map(|s: Stats| {
            let cut = match &s.first_cut {
                Some(first) => format!("; {} answers cut short, the first: {first}", s.cut),
                None => String::new(),
            };
            format!(
                "{} requests in {:.2} s: {:.1} requests/s, {:.0} bytes/s ({} body bytes, {} reconnects{cut})",
                s.requests,
                s.elapsed.as_secs_f64(),
                s.requests_per_sec(),
                s.bytes_per_sec(),
                s.body_bytes,
                s.reconnects
            )
        }),
        Plan::Raw(p) => http_peer::raw(p).map(|r: RawReport| r.summary()),
        Plan::Hold(p) => http_peer::hold(p).map(|r| r.summary(p)),
        Plan::Conditional(p) => http_peer::conditional(p),
        Plan::Crowd(p) => http_peer::crowd(p).map(|r| r.summary(p)),
    }
}

fn plan(exchange: &HttpExchange, bodies: &mut Bodies) -> Result<Plan, String> {
    let target = Target::loopback(exchange.port);
    let deadline = Duration::from_secs(exchange.deadline_secs.into());
    Ok(match &exchange.kind {
        HttpKind::Fetch(f) => Plan::Fetch(FetchPlan {
            target,
            head: f.method == Method::Head,
            paths: f
                .paths
                .iter()
                .map(|p| Ok((p.clone(), bodies.expected(f.body, p)?)))
                .collect::<Result<_, String>>()?,
            status: f.status,
            clients: f.clients,
            requests: f.requests,
            deadline,
            may_cut: f.may_cut_secs.map(|s| Duration::from_secs(s.into())),
        }),
        HttpKind::Raw(r) => Plan::Raw(RawPlan {
            target,
            send: match &r.send {
                RawSend::Text(text) => text.as_bytes().to_vec(),
                RawSend::HeaderFlood(n) => http_peer::flood_head(*n),
            },
            then: match r.then {
                Then::Wait => RawThen::Wait,
                Then::Close => RawThen::Close,
                Then::Idle(secs) => RawThen::Idle(Duration::from_secs(secs.into())),
            },
            expect_status: r.expect_status,
            deadline,
        }),
        HttpKind::Crowd(c) => Plan::Crowd(CrowdPlan {
            target,
            path: c.path.clone(),
            expected: bodies.expected(c.body, &c.path)?,
            clients: c.clients,
            probe_within: Duration::from_secs(c.probe_secs.into()),
            deadline,
        }),
        HttpKind::Hold(h) => Plan::Hold(HoldPlan {
            target,
            path: h.path.clone(),
            peers: h.peers,
            served: h.served,
            hold: Duration::from_secs(h.hold_secs.into()),
            cut: h.cut,
            probe: h
                .probe
                .as_ref()
                .map(|p| {
                    Ok::<_, String>(Probe {
                        path: p.path.clone(),
                        expected: bodies.expected(p.body, &p.path)?,
                        within: Duration::from_secs(p.within_secs.into()),
                    })
                })
                .transpose()?,
            deadline,
        }),
        HttpKind::Conditional(c) => conditional_plan(target, c, deadline, bodies)?,
    })
}

/// A conditional exchange: its file's bytes, which its ranges are
/// compared with.
fn conditional_plan(
    target: Target,
    c: &conflux_manifest::Conditional,
    deadline: Duration,
    bodies: &mut Bodies,
) -> Result<Plan, String> {
    let Expected::Bytes(body) = bodies.expected(c.body, &c.path)? else {
        return Err(format!(
            "{}: a conditional exchange needs the file's bytes",
            c.path
        ));
    };
    Ok(Plan::Conditional(ConditionalPlan {
        target,
        path: c.path.clone(),
        body,
        deadline,
    }))
}

/// The host copies of the bodies the exchanges check, each made once.
struct Bodies<'m> {
    manifest: &'m Manifest,
    made: HashMap<String, Arc<[u8]>>,
}

impl<'m> Bodies<'m> {
    fn new(manifest: &'m Manifest) -> Self {
        Self {
            manifest,
            made: HashMap::new(),
        }
    }

    /// What the body at `url` must be under `check`.
    fn expected(&mut self, check: BodyCheck, url: &str) -> Result<Expected, String> {
        match check {
            BodyCheck::Empty => return Ok(Expected::Empty),
            BodyCheck::None => return Ok(Expected::Unchecked),
            BodyCheck::Generated | BodyCheck::Folder => {}
        }
        let key = format!("{}:{url}", check.as_str());
        if let Some(bytes) = self.made.get(&key) {
            return Ok(Expected::Bytes(Arc::clone(bytes)));
        }
        let (folder, generated) = disks::folder_and_generated(self.manifest)
            .ok_or("the system has no disk built from a folder")?;
        let relative = &url[1..];
        let bytes: Arc<[u8]> = match check {
            BodyCheck::Generated => {
                let file = generated
                    .iter()
                    .find(|g| g.path == relative && g.files.is_none())
                    .ok_or_else(|| format!("{url} is not a generated file"))?;
                generate::bytes(file.seed, file.size).into()
            }
            _ => folder_file(folder, relative)?.into(),
        };
        self.made.insert(key, Arc::clone(&bytes));
        Ok(Expected::Bytes(bytes))
    }
}

/// The file of `folder` at the URL path `relative`, which must stay inside.
fn folder_file(folder: &Path, relative: &str) -> Result<Vec<u8>, String> {
    let path = Path::new(relative);
    if !path.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(format!(
            "/{relative} is checked against the disk folder, but it is not a plain path inside it"
        ));
    }
    std::fs::read(folder.join(path)).map_err(|e| {
        format!(
            "/{relative} is checked against the file {} of the disk folder, which cannot be read: {e}",
            folder.join(path).display()
        )
    })
}

#[cfg(test)]
mod tests;
