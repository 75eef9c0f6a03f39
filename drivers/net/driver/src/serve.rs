//! The driver's loop: take frames to send and empty buffers from every
//! client, keep the device's queues filled, hand back what the device
//! finished, sleep only when nothing is left to do. After a restart, each
//! client's first attach answers what the previous instance held. A
//! client that begins a new session (it was restarted) is served again
//! once the device has forgotten the old session's buffers.

use crate::config::device as dev;
use crate::device::{self, Dev, Net, QUEUE};
use crate::shared;
use alloc::vec::Vec;
use conflux_flow_stage::driver::{self, Driver};
use conflux_net_protocol::{Frame, Link, LinkError, Server, Status, HEADROOM};
use conflux_userlib::ipc::{Irq, Notification};
use conflux_userlib::println;
use conflux_userlib::region::Mapped;
use conflux_virtio_hal::Window;

/// A client's buffer the device holds.
#[derive(Clone, Copy)]
struct Flight {
    client: usize,
    frame: Frame,
}

struct Client {
    region: Mapped,
    server: Option<Server>,
    /// The client detached: never served again.
    detached: bool,
    /// The session whose rings were damaged or overfilled: never attached
    /// again (they would be just as damaged), but it does not count as
    /// detached, and a new session of the client (it was restarted) is
    /// served.
    broken: Option<u64>,
}

pub struct State {
    /// `None` only inside [`State::reset_device`].
    net: Option<Net>,
    /// The clients' regions for the HAL, when the device is brought up again.
    windows: Vec<Window>,
    mac: [u8; 6],
    link: Link,
    incarnation: u64,
    clients: Vec<Client>,
    /// By virtqueue token (the chain's first descriptor, < QUEUE).
    tx: [Option<Flight>; QUEUE],
    rx: [Option<Flight>; QUEUE],
    /// Frames sent since the driver started (for the test systems' fault).
    sent: u64,
    /// UDP source flows, which take the datagrams for their ports (when
    /// the task's configuration makes it a flow stage).
    pub(crate) flows: Option<alloc::boxed::Box<crate::flows::Stage>>,
    irq: Irq,
}

/// Serves until every client has detached (for ever when the driver is a
/// flow stage, which its configuration decides). The loop is
/// `conflux_flow_stage::driver`'s; [`State`] is this driver's side of it.
pub fn run(dev: Dev) -> ! {
    let irq = Irq(dev::IRQ);
    // The line may have fired during bring-up.
    let _ = irq.ack();
    let flows = match crate::flows::Stage::from_config() {
        Ok(s) => s,
        Err(e) => {
            println!(
                "cannot bind the device's notification to the FLOW endpoint: {e}; the driver stops"
            );
            conflux_userlib::sys::exit(1);
        }
    };
    // On the heap: the device, the flights and the clients are kept off
    // the 16 KiB stack, which a device reset (bringing the device up
    // again inside the loop) needs.
    let mut st = alloc::boxed::Box::new(State {
        net: Some(dev.net),
        windows: dev.windows,
        mac: dev.mac,
        link: if dev.link_up { Link::Up } else { Link::Down },
        incarnation: dev.incarnation,
        clients: dev
            .clients
            .into_iter()
            .map(|region| Client {
                region,
                server: None,
                detached: false,
                broken: None,
            })
            .collect(),
        tx: [None; QUEUE],
        rx: [None; QUEUE],
        sent: 0,
        flows,
        irq,
    });
    let side = st.flows.is_some().then_some(crate::flows::Flows);
    driver::run(&mut *st, side);
    println!("every client detached; the driver resets the device and stops");
    drop(st); // resets the device: no more DMA into the clients' regions
    conflux_userlib::sys::exit(0)
}

impl Driver for State {
    fn device(&mut self) -> bool {
        self.complete_tx() | self.complete_rx()
    }

    fn clients(&mut self) -> bool {
        let mut busy = false;
        for i in 0..self.clients.len() {
            busy |= self.leave_stale_session(i);
            self.attach(i);
            busy |= self.detach(i);
            busy |= self.take_tx(i) | self.take_rx(i);
        }
        busy
    }

    fn notified(&mut self, bits: u64) {
        if bits & 1 != 0 {
            self.dev().ack_interrupt();
            let _ = self.irq.ack();
        }
    }

    fn ready_to_sleep(&mut self) -> bool {
        State::ready_to_sleep(self)
    }

    fn finished(&mut self) -> bool {
        self.clients.iter().all(|c| c.detached)
    }

    fn wait(&mut self, block: bool) -> Option<u64> {
        block.then(|| Notification(dev::IRQ_NOTIFY).wait().unwrap_or(0))
    }
}

fn signal(i: usize) {
    let _ = Notification(dev::CLIENTS[i].3).signal();
}

impl State {
    /// The device (see [`State::reset_device`]).
    fn dev(&mut self) -> &mut Net {
        self.net
            .as_mut()
            .expect("the device is only missing inside reset_device")
    }

    /// Attaches to client `i` if it has formatted its region since (a new
    /// session), and answers what a previous instance of the driver held
    /// of the same session.
    fn attach(&mut self, i: usize) {
        let c = &mut self.clients[i];
        if c.server.is_some() || c.detached {
            return;
        }
        let Ok(mut s) = shared::attach(&c.region) else {
            return; // not formatted yet: its doorbell wakes us when it is
        };
        if c.broken == Some(s.session()) {
            return;
        }
        match s.start(self.mac, self.link) {
            Ok((lost, _)) if lost.tx + lost.rx > 0 => println!(
                "client {i}: answered {} tx frames and {} rx buffers lost in a restart with Restarted",
                lost.tx, lost.rx
            ),
            Ok(_) if c.broken.is_some() => {
                println!("client {i}: began a new session after its old one broke; serving it")
            }
            Ok(_) => {}
            Err(e) => {
                c.broken = Some(s.session());
                println!("client {i}: no longer served, other clients go on: {e}");
                return;
            }
        }
        c.broken = None;
        c.server = Some(s);
        signal(i);
    }

    /// Leaves client `i`'s session if the client began a new one (it was
    /// restarted and formatted its region again): nothing more of the old
    /// session is taken or answered, and the device must forget the old
    /// session's buffers before the new one is served, since a frame
    /// received into one would land in memory the new session has not
    /// offered. True if it left one.
    fn leave_stale_session(&mut self, i: usize) -> bool {
        let Some(s) = self.clients[i].server.as_ref() else {
            return false;
        };
        if s.current() {
            return false;
        }
        self.clients[i].server = None;
        let held = |q: &[Option<Flight>]| q.iter().flatten().filter(|f| f.client == i).count();
        let (tx, rx) = (held(&self.tx), held(&self.rx));
        if tx + rx == 0 {
            println!("client {i}: began a new session");
        } else {
            println!(
                "client {i}: began a new session; resetting the device, which held {tx} tx frames and {rx} rx buffers of the old one"
            );
            self.reset_device();
        }
        true
    }

    /// Resets the device and brings it up again, so it forgets every
    /// buffer it held: other clients' are answered `Restarted` (as after a
    /// driver restart), a stale session's are dropped. A device that does
    /// not come back up ends the driver; init's policy decides what next.
    fn reset_device(&mut self) {
        for token in 0..QUEUE {
            if let Some(f) = self.tx[token].take() {
                self.tx_answer(f.client, f.frame.descriptor, Status::Restarted);
            }
            if let Some(f) = self.rx[token].take() {
                self.rx_answer(f.client, f.frame.descriptor, Status::Restarted, 0);
            }
        }
        // Dropping the device resets it (the transport's drop), and its
        // queues go back to the old pool before `start` installs a new one.
        drop(self.net.take());
        match device::start(&self.windows) {
            Ok((net, up)) => {
                self.link = if up { Link::Up } else { Link::Down };
                self.net = Some(net);
            }
            Err(e) => {
                println!("the virtio-net device did not come back up after a reset: {e}; the driver stops");
                conflux_userlib::sys::exit(1);
            }
        }
    }

    /// Ends client `i`'s service if it asked to; true if it did just now.
    fn detach(&mut self, i: usize) -> bool {
        let c = &mut self.clients[i];
        let Some(s) = c.server.as_ref() else {
            return false;
        };
        if !s.detach_requested() {
            return false;
        }
        s.confirm_detach();
        c.server = None;
        c.detached = true;
        signal(i);
        true
    }

    /// Client `i`'s rings failed with `e`. If the client began a new
    /// session meanwhile, that (not damage) is why: the old one is left as
    /// any stale session. Otherwise this session is never served again.
    fn drop_client(&mut self, i: usize, e: LinkError) {
        let Some(s) = self.clients[i].server.as_ref() else {
            return;
        };
        if !s.current() {
            // The loop's next `leave_stale_session` leaves it (from the
            // top of the loop, where a device reset has the stack it
            // needs); a stale end takes nothing meanwhile.
            return;
        }
        println!("client {i}: no longer served, other clients go on: {e}");
        self.clients[i].broken = Some(s.session());
        self.clients[i].server = None;
    }

    fn buf(&self, f: &Flight) -> &'static mut [u8] {
        shared::data(&self.clients[f.client].region, f.frame.start, f.frame.len)
    }

    /// Hands client `i`'s frames to the transmit queue while it has room.
    fn take_tx(&mut self, i: usize) -> bool {
        let mut busy = false;
        while self.dev().can_send() && self.tx.iter().any(Option::is_none) {
            let Some(server) = self.clients[i].server.as_mut() else {
                break;
            };
            let frame = match server.next_tx() {
                Ok(None) => break,
                Ok(Some(Ok(frame))) => frame,
                Ok(Some(Err(refused))) => {
                    self.tx_answer(i, refused.descriptor, refused.status);
                    busy = true;
                    continue;
                }
                Err(e) => {
                    self.drop_client(i, e);
                    break;
                }
            };
            busy = true;
            let f = Flight { client: i, frame };
            let buf = self.buf(&f);
            // The header is the protocol's headroom, just before the frame.
            let _ = self.dev().fill_buffer_header(&mut buf[..HEADROOM as usize]);
            #[allow(unsafe_code)]
            // Safety: `buf` is the client's buffer, mapped for the task's
            // life; the driver does not touch it again until the device
            // hands it back (`complete_tx`).
            match unsafe { self.dev().transmit_begin(buf) } {
                Ok(token) if (token as usize) < QUEUE && self.tx[token as usize].is_none() => {
                    self.tx[token as usize] = Some(f);
                    self.maybe_fault();
                }
                Ok(token) => {
                    println!(
                        "the device gave transmit token {token}, already in use; the frame is lost"
                    );
                    self.tx_answer(i, frame.descriptor, Status::DeviceError);
                }
                Err(e) => {
                    println!("transmit: {e}");
                    self.tx_answer(i, frame.descriptor, Status::DeviceError);
                }
            }
        }
        busy
    }

    /// Test systems only (see `crate::fault_injection_due`).
    fn maybe_fault(&self) {
        let count = |q: &[Option<Flight>]| q.iter().filter(|f| f.is_some()).count();
        let (tx, rx) = (count(&self.tx), count(&self.rx));
        if crate::fault_injection_due(self.incarnation, tx, rx, self.sent) {
            println!(
                "test system '{}': faulting on purpose with {tx} tx frames and {rx} rx buffers on the device, after sending {}",
                crate::config::SYSTEM_NAME, self.sent
            );
            conflux_userlib::testing::fault_on_purpose();
        }
    }

    /// Hands client `i`'s empty buffers to the receive queue while it has room.
    fn take_rx(&mut self, i: usize) -> bool {
        let mut busy = false;
        while self.rx.iter().any(Option::is_none) {
            let Some(server) = self.clients[i].server.as_mut() else {
                break;
            };
            let frame = match server.next_rx_buffer() {
                Ok(None) => break,
                Ok(Some(Ok(frame))) => frame,
                Ok(Some(Err(refused))) => {
                    self.rx_answer(i, refused.descriptor, refused.status, 0);
                    busy = true;
                    continue;
                }
                Err(e) => {
                    self.drop_client(i, e);
                    break;
                }
            };
            busy = true;
            let f = Flight { client: i, frame };
            let buf = self.buf(&f);
            #[allow(unsafe_code)]
            // Safety: as in `take_tx`, until `complete_rx`.
            match unsafe { self.dev().receive_begin(buf) } {
                Ok(token) if (token as usize) < QUEUE && self.rx[token as usize].is_none() => {
                    self.rx[token as usize] = Some(f)
                }
                Ok(token) => {
                    println!("the device gave receive token {token}, already in use");
                    self.rx_answer(i, frame.descriptor, Status::DeviceError, 0);
                }
                Err(e) => {
                    println!("receive: {e}");
                    self.rx_answer(i, frame.descriptor, Status::DeviceError, 0);
                }
            }
        }
        busy
    }

    fn tx_answer(&mut self, i: usize, d: conflux_queue::Descriptor, status: Status) {
        let Some(server) = self.clients[i].server.as_mut() else {
            return; // detached meanwhile: nobody to answer
        };
        match server.tx_done(d, status) {
            Ok(true) => signal(i),
            Ok(false) => {}
            Err(e) => self.drop_client(i, e),
        }
    }

    fn rx_answer(&mut self, i: usize, d: conflux_queue::Descriptor, status: Status, len: u32) {
        let Some(server) = self.clients[i].server.as_mut() else {
            return;
        };
        match server.rx_done(d, status, len) {
            Ok(true) => signal(i),
            Ok(false) => {}
            Err(e) => self.drop_client(i, e),
        }
    }

    /// Answers every frame the device sent.
    fn complete_tx(&mut self) -> bool {
        let mut any = false;
        while let Some(token) = self.dev().poll_transmit() {
            any = true;
            let Some(f) = self.tx.get_mut(token as usize).and_then(Option::take) else {
                // Not ours: completing it needs its buffers, which we do not
                // know, so the queue cannot move past it. Report, stop here.
                println!("the device completed transmit token {token}, which is not in flight");
                return false;
            };
            let buf = self.buf(&f);
            #[allow(unsafe_code)]
            // Safety: the same buffer as at `transmit_begin`.
            let status = match unsafe { self.dev().transmit_complete(token, buf) } {
                Ok(_) => {
                    self.sent += 1;
                    Status::Ok
                }
                Err(e) => {
                    println!("transmit completion: {e}");
                    Status::DeviceError
                }
            };
            self.tx_answer(f.client, f.frame.descriptor, status);
        }
        any
    }

    /// Hands every received frame to the client whose buffer holds it.
    fn complete_rx(&mut self) -> bool {
        let mut any = false;
        while let Some(token) = self.dev().poll_receive() {
            any = true;
            let Some(f) = self.rx.get_mut(token as usize).and_then(Option::take) else {
                println!("the device completed receive token {token}, which is not in flight");
                return false;
            };
            let buf = self.buf(&f);
            #[allow(unsafe_code)]
            // Safety: the same buffer as at `receive_begin`.
            let (status, len) = match unsafe { self.dev().receive_complete(token, buf) } {
                Ok((hdr, len)) if hdr as u64 == HEADROOM => {
                    if self.steered(f, &buf[HEADROOM as usize..][..len]) {
                        continue;
                    }
                    (Status::Ok, len as u32)
                }
                Ok((hdr, _)) => {
                    println!("received a frame after a {hdr}-byte header");
                    (Status::DeviceError, 0)
                }
                Err(e) => {
                    println!("receive completion: {e}");
                    (Status::DeviceError, 0)
                }
            };
            self.rx_answer(f.client, f.frame.descriptor, status, len);
        }
        any
    }

    /// Gives `frame` to the flow listening on its UDP port, if one is, and
    /// posts the client's buffer `f` it arrived in to the device again,
    /// unanswered. Whether a flow took it.
    fn steered(&mut self, f: Flight, frame: &[u8]) -> bool {
        let Some(flows) = self.flows.as_mut() else {
            return false;
        };
        if !flows.steer(frame) {
            return false;
        }
        let buf = self.buf(&f);
        #[allow(unsafe_code)]
        // Safety: as in `take_rx`, until `complete_rx`.
        match unsafe { self.dev().receive_begin(buf) } {
            Ok(token) if (token as usize) < QUEUE && self.rx[token as usize].is_none() => {
                self.rx[token as usize] = Some(f)
            }
            _ => {
                // The device will not take it back: the client gets its
                // buffer back, empty.
                self.rx_answer(f.client, f.frame.descriptor, Status::DeviceError, 0);
            }
        }
        true
    }

    /// Asks every client to ring before sleeping; false if one already did.
    fn ready_to_sleep(&mut self) -> bool {
        let mut ok = true;
        for i in 0..self.clients.len() {
            if let Some(s) = self.clients[i].server.as_mut() {
                match s.prepare_to_wait() {
                    Ok(safe) => ok &= safe,
                    Err(e) => self.drop_client(i, e),
                }
            }
        }
        ok
    }
}
