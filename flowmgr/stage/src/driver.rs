//! The loop every device driver task runs, whether or not it is a flow
//! stage: the driver supplies sDDF's handlers, this module owns the loop.
//!
//! sDDF's components are event-driven: `init` once, `notified` when a
//! notification arrives, `protected` for a call from a trusted caller; the
//! library owns the loop. Here a driver is built by its `main` (`init`),
//! implements [`Driver`] (the device's completions, the clients' queues,
//! `notified` with the notification's bits), and, when the manifest makes
//! it a flow stage, a [`FlowSide`] whose `receive` answers `flowmgr`'s
//! messages (`protected`) on the FLOW endpoint the driver's notification
//! is bound to. Whether a driver is a stage is decided at start from its
//! configuration (`caps::FLOW` in its configuration section,
//! `StageEndpoint::from_config`), not compiled in, so one build of a
//! driver serves systems with and without flows.
//!
//! One turn: the device's completions, then every running flow (only
//! then, so a flow finds the device as the completions left it, before
//! the clients fill it again), then the clients. Without flows, a driver
//! whose clients have all detached is done; a stage serves on, since flows
//! come and go. The task sleeps only when nothing moved and every client
//! has been asked to ring (the queues' *signal me*).
//!
//! A stage that is still busy (frames keep arriving at the NIC, clients
//! keep the device full) but whose flow found its output edge full gives
//! way at the end of its turn ([`FlowSide::give_way`], a yield): on one
//! CPU the stages of a flow are equally urgent, and only the stage
//! downstream can empty that edge, so without it the busy stage would
//! spin — dropping every datagram for want of an empty buffer — until the
//! timer tick preempted it, while the stage that would free a buffer sat
//! ready beside it. That is the collapse the flow benchmark showed under
//! overload on one CPU. A stage whose neighbours run on other CPUs loses
//! only a system call by it.

/// What a driver does; the loop is [`run`]'s.
pub trait Driver {
    /// Takes what the device finished; whether anything moved.
    fn device(&mut self) -> bool;
    /// Serves the clients' queues once; whether anything moved.
    fn clients(&mut self) -> bool;
    /// The notification rang with `bits` (bit 0: the device's interrupt;
    /// the others doorbells and other tasks' signals), or 0 when a wait
    /// ended without them.
    fn notified(&mut self, bits: u64);
    /// Asks every client to ring before the task sleeps; false if one
    /// already has work waiting.
    fn ready_to_sleep(&mut self) -> bool;
    /// Without flows: whether the driver is done (every client detached).
    fn finished(&mut self) -> bool;
    /// Without flows: waits for the notification when `block`, else only
    /// looks at it; its bits, if any.
    fn wait(&mut self, block: bool) -> Option<u64>;
}

/// The flow side of a driver the manifest makes a stage.
pub trait FlowSide<D> {
    /// One step of every running flow; whether any buffer moved.
    fn work(&mut self, driver: &mut D) -> bool;
    /// Takes one message from `flowmgr` (answered here) or the bound
    /// notification, waiting for it when `block`; the notification's bits
    /// if it rang.
    fn receive(&mut self, driver: &mut D, block: bool) -> Option<u64>;
    /// Whether a flow found its output edge full since the last call.
    fn backed_up(&mut self, driver: &mut D) -> bool;
    /// Lets the other ready tasks of this priority run (a yield).
    fn give_way(&mut self, driver: &mut D);
}

/// A driver without flows: no flow side at all.
pub enum NoFlows {}

impl<D> FlowSide<D> for NoFlows {
    fn work(&mut self, _: &mut D) -> bool {
        match *self {}
    }

    fn receive(&mut self, _: &mut D, _: bool) -> Option<u64> {
        match *self {}
    }

    fn backed_up(&mut self, _: &mut D) -> bool {
        match *self {}
    }

    fn give_way(&mut self, _: &mut D) {
        match *self {}
    }
}

/// Runs `driver` until it is done (without flows) or for ever (a stage).
pub fn run<D: Driver, F: FlowSide<D>>(driver: &mut D, mut flows: Option<F>) {
    while turn(driver, &mut flows) {}
}

/// One turn of [`run`]; false once the driver is done.
fn turn<D: Driver, F: FlowSide<D>>(driver: &mut D, flows: &mut Option<F>) -> bool {
    let mut busy = driver.device();
    if let Some(f) = flows.as_mut() {
        busy |= f.work(driver);
    }
    busy |= driver.clients();
    if flows.is_none() && driver.finished() {
        return false;
    }
    let sleep = !busy && driver.ready_to_sleep();
    let bits = match flows.as_mut() {
        Some(f) => {
            let backed = f.backed_up(driver);
            let bits = f.receive(driver, sleep);
            if busy && backed {
                f.give_way(driver);
            }
            bits
        }
        None => driver.wait(sleep),
    };
    driver.notified(bits.unwrap_or(0));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// A driver that records what the loop asked of it.
    #[derive(Default)]
    struct Fake {
        log: Vec<&'static str>,
        /// Turns with client work left, then idle.
        busy_turns: u32,
        detached_after: Option<u32>,
        turns: u32,
        bits: Vec<u64>,
    }

    impl Driver for Fake {
        fn device(&mut self) -> bool {
            self.turns += 1;
            self.log.push("device");
            false
        }
        fn clients(&mut self) -> bool {
            self.log.push("clients");
            self.busy_turns
                .checked_sub(1)
                .map(|n| self.busy_turns = n)
                .is_some()
        }
        fn notified(&mut self, bits: u64) {
            self.bits.push(bits);
        }
        fn ready_to_sleep(&mut self) -> bool {
            self.log.push("ready");
            true
        }
        fn finished(&mut self) -> bool {
            self.detached_after.is_some_and(|n| self.turns > n)
        }
        fn wait(&mut self, block: bool) -> Option<u64> {
            self.log.push(if block { "wait" } else { "poll" });
            block.then_some(1)
        }
    }

    struct Flows {
        receives: Vec<bool>,
        /// What `backed_up` answers, turn by turn (then false).
        backed: Vec<bool>,
    }

    impl FlowSide<Fake> for Flows {
        fn work(&mut self, d: &mut Fake) -> bool {
            d.log.push("flows");
            false
        }
        fn receive(&mut self, d: &mut Fake, block: bool) -> Option<u64> {
            d.log.push("receive");
            self.receives.push(block);
            None
        }

        fn backed_up(&mut self, _: &mut Fake) -> bool {
            (!self.backed.is_empty()) && self.backed.remove(0)
        }

        fn give_way(&mut self, d: &mut Fake) {
            d.log.push("give way");
        }
    }

    #[test]
    fn without_flows_the_driver_stops_once_its_clients_are_gone() {
        let mut d = Fake {
            busy_turns: 1,
            detached_after: Some(2),
            ..Fake::default()
        };
        run(&mut d, None::<NoFlows>);
        assert_eq!(
            d.log,
            [
                "device", "clients", "poll", // busy: only a look
                "device", "clients", "ready", "wait", // idle: sleeps
                "device", "clients", // done
            ]
        );
        assert_eq!(d.bits, [0, 1]);
    }

    #[test]
    fn a_stage_runs_its_flows_between_device_and_clients_and_waits_on_flowmgr() {
        let mut d = Fake {
            busy_turns: 1,
            detached_after: Some(0),
            ..Fake::default()
        };
        let mut flows = Some(Flows {
            receives: Vec::new(),
            backed: Vec::new(),
        });
        // A stage never stops on its own: run three turns by hand.
        for _ in 0..2 {
            assert!(turn(&mut d, &mut flows));
        }
        assert_eq!(
            d.log,
            [
                "device", "flows", "clients", "receive", // busy: no block
                "device", "flows", "clients", "ready", "receive",
            ]
        );
        assert_eq!(flows.unwrap().receives, [false, true]);
        // flowmgr's message answered, no bits: notified with none.
        assert_eq!(d.bits, [0, 0]);
    }

    #[test]
    fn a_busy_stage_whose_output_is_full_gives_way_and_an_idle_one_sleeps() {
        let mut d = Fake {
            busy_turns: 2,
            ..Fake::default()
        };
        let mut flows = Some(Flows {
            receives: Vec::new(),
            // Backed up while busy, busy but not backed up, then backed
            // up with nothing to do.
            backed: vec![true, false, true],
        });
        for _ in 0..3 {
            assert!(turn(&mut d, &mut flows));
        }
        assert_eq!(
            d.log,
            [
                "device", "flows", "clients", "receive", "give way", // busy, full
                "device", "flows", "clients", "receive", // busy, room
                "device", "flows", "clients", "ready", "receive", // idle: sleeps, no yield
            ]
        );
        assert_eq!(flows.unwrap().receives, [false, false, true]);
    }
}
