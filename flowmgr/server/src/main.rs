//! `flowmgr`: the flow manager task.
//!
//! Applications call it on its endpoint (`conflux_flow_protocol::api`):
//! CREATE a flow, STATS, PAUSE, RESUME, DESTROY it, LIST theirs. It owns,
//! from the manifest's `[flows]`, an endpoint and a doorbell of every
//! stage task and a set of flow slots (a pool and five edges each, the
//! edges premapped here), and wires a flow's stages to each other with
//! copies of exactly their own capabilities; then it steps off the data
//! path. The logic is `conflux-flowmgr-core`'s (host-tested); this task
//! adds the system calls ([`system::Kernel`]) and the message loop
//! ([`serve`]).
//!
//! **Watching on its own**: the manifest gives it a notification (`watch`),
//! bound to its endpoint; while a flow runs or recovers, its timer fires
//! every [`WATCH_TICKS`] and each expiry checks every such flow as `STATS`
//! would, so a stage that died is restarted or moved, and the application
//! notified, without the application asking.
//!
//! **After a restart** (init restarts it on a fault where the manifest
//! says so) it first takes back what its predecessor handed out
//! ([`conflux_flowmgr_core::reclaim`]): every stage task's flows are
//! stopped and every slot revoked. The predecessor's flows are gone; their
//! applications' next call fails once with `DeadPeer`, and their ids then
//! answer `UnknownFlow` (the new instance's ids start at a generation
//! taken from the clock).
//!
//! Capability slots past the manifest's: the reply slot, the receive slot
//! for a capability a client sends, a spare slot for the copy a stage is
//! handed, then one slot per flow slot for its application's notification.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

mod clock;
mod fault;
mod serve;
mod system;

use conflux_flowmgr_core::{reclaim, Manager};
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Where a caller's reply capability waits while its request is served.
const REPLY: usize = config::caps::FIRST_FREE;
/// Where a capability sent with a request lands.
const RECEIVED: usize = config::caps::FIRST_FREE + 1;
/// Where the copy handed to a stage is made (and deleted after the call).
const SPARE: usize = config::caps::FIRST_FREE + 2;
/// Flow slot `n`'s application notification, if it gave one.
const NOTIFY_BASE: usize = config::caps::FIRST_FREE + 3;
/// Kernel ticks (10 ms each) between two looks at the running flows: a
/// dead stage costs its flow at most this long before recovery starts.
const WATCH_TICKS: u64 = 10;

fn main() {
    let stages = config::flows::STAGES;
    let slots = config::flows::SLOTS;
    let mut sys = system::Kernel::new();
    let mut manager = Manager::new(stages.len(), slots.len(), config::flows::POOL_SIZE as u64);
    manager.set_clients(conflux_flowmgr_core::quota::Clients {
        badges: config::caps::FLOWMGR_CLIENTS,
        quotas: config::caps::FLOWMGR_CLIENT_QUOTAS,
    });
    manager.learn(&mut sys);
    let found = reclaim::reclaim(&mut sys, stages.len(), slots.len());
    let restarted = found.stopped > 0;
    if restarted {
        println!(
            "restarted: stopped {} stage flows a previous instance left running and revoked every flow slot; those flows are gone, and their ids answer UnknownFlow",
            found.stopped
        );
        // Ids from here on differ from the predecessor's, so one a client
        // kept most likely names nothing (32 bits: see `FlowId`). A first
        // boot keeps generation 1, so ids are the same from run to run.
        manager.start_generations_at(conflux_userlib::sys::rdtsc() as u32 >> 1 | 1);
    }
    let mut injection = fault::Injection::new(restarted);
    for (t, (name, _, _)) in stages.iter().enumerate() {
        match manager.registry().task(t).filter(|s| s.known) {
            Some(s) => println!(
                "stage task {name}: kinds {:#x}{}",
                s.kinds,
                if s.device { ", device" } else { "" }
            ),
            None => {
                println!("stage task {name} did not answer INFO: offered nothing until it does")
            }
        }
    }
    println!(
        "serving: {} stage tasks, {} flow slots of {} KiB",
        stages.len(),
        slots.len(),
        config::flows::POOL_SIZE / 1024
    );
    let ep = Endpoint(config::caps::FLOWMGR);
    let watch = Notification(config::caps::WATCH);
    let clock = clock::Clock::start(&watch);
    match &clock {
        Some(c) => manager.set_tsc_hz(c.first_rate(&watch)),
        None => println!("cannot read the kernel's ticks through the watch notification: flows with a rate limit are refused; check the manifest gives flowmgr `watch` with rights rw"),
    }
    let bound = watch.bind(&ep);
    if let Err(e) = bound {
        println!("cannot bind the watch notification to the flowmgr endpoint ({e}): flows are checked only when asked; check the manifest gives flowmgr `watch` with rights rw");
    }
    // Whether a timer expiry is on its way.
    let mut armed = false;
    let mut answer = Message::default();
    loop {
        let got = match ep.reply_recv(REPLY, RECEIVED, &answer) {
            Ok(g) => g,
            Err(e) => {
                println!("receive on the flowmgr endpoint failed ({e}): stopping; check the manifest gives flowmgr its endpoint");
                return;
            }
        };
        if got.notified().is_some() {
            // The timer: nobody to answer.
            armed = false;
            manager.watch(&mut sys);
            answer = Message::default();
        } else {
            injection.before(got.msg.label);
            answer = serve::handle(&mut manager, &mut sys, &got);
        }
        if bound.is_ok() && !armed && manager.watching() {
            armed = match watch.timer(WATCH_TICKS) {
                Ok(now) => {
                    // A longer baseline: a finer figure for later flows.
                    if let Some(c) = &clock {
                        let hz = c.rate(now, conflux_userlib::sys::rdtsc());
                        if hz != 0 {
                            manager.set_tsc_hz(hz);
                        }
                    }
                    true
                }
                Err(e) => {
                    println!("cannot arm flowmgr's watch timer ({e}): flows are checked only when asked until the next request");
                    false
                }
            };
        }
    }
}
