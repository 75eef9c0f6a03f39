//! The driver's loop: take requests from every client, keep the device
//! busy, answer completions, sleep only when nothing is left to do.

use crate::config::device as dev;
use crate::device::Blk;
use crate::shared;
use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::vec::Vec;
use conflux_blk_protocol::{LinkError, Op, Request, Server, Status, SECTOR};
use conflux_flow_stage::driver::{self, Driver};
use conflux_queue::Descriptor;
use conflux_userlib::ipc::{Irq, Notification};
use conflux_userlib::println;
use virtio_drivers::device::blk::{BlkReq, BlkResp, RespStatus};

/// Requests in flight at once. Each takes one indirect descriptor of the
/// device's 16-entry virtqueue.
const MAX_IN_FLIGHT: usize = 16;

/// One request the device is working on.
struct Flight {
    client: usize,
    /// The client's session that sent it: answered only if still current.
    session: u64,
    request: Request,
    req: Box<BlkReq>,
    resp: Box<BlkResp>,
}

struct Client {
    /// The session served (see `conflux_blk_protocol::session`).
    server: Option<Server>,
    /// The client detached: never served again.
    detached: bool,
    /// A session whose rings were found damaged: not attached again (a
    /// new session, from a restarted client, is).
    broken: Option<u64>,
    /// Its requests the device is working on (of any session).
    on_device: usize,
    /// A request taken but refused by the virtqueue (full): tried again first.
    waiting: VecDeque<Request>,
}

/// Serves until every client has detached (for ever when the driver is
/// a flow stage, which its configuration decides: flows come and go). The
/// loop is `conflux_flow_stage::driver`'s; [`Serving`] is this driver's
/// side of it.
pub fn run(dev: &mut Blk) {
    let irq = Irq(dev::IRQ);
    let _ = irq.ack(); // the line may have fired during bring-up
    let clients: Vec<Client> = (0..dev.clients.len())
        .map(|_| Client {
            server: None,
            detached: false,
            broken: None,
            on_device: 0,
            waiting: VecDeque::new(),
        })
        .collect();
    let capacity = dev.blk.capacity();
    let stage = match crate::flows::Stage::from_config(capacity) {
        Ok(s) => s,
        Err(e) => {
            println!(
                "cannot bind the device's notification to the FLOW endpoint: {e}; the driver stops"
            );
            return;
        }
    };
    let mut serving = Serving {
        dev,
        clients,
        flights: Box::new([const { None }; 64]),
        capacity,
        turns: 0,
        irq,
    };
    driver::run(&mut serving, stage);
}

/// The driver between two turns of its loop.
pub struct Serving<'d> {
    pub dev: &'d mut Blk,
    clients: Vec<Client>,
    flights: Box<[Option<Flight>; 64]>,
    capacity: u64,
    /// Turns of the loop (for the test systems' fault).
    turns: u32,
    irq: Irq,
}

impl Serving<'_> {
    /// Whether no client request is on the device: a flow's request runs
    /// to its end alone, so the used ring never holds one it does not
    /// expect.
    pub fn device_free(&self) -> bool {
        self.flights.iter().all(Option::is_none)
    }
}

impl Driver for Serving<'_> {
    fn device(&mut self) -> bool {
        self.turns = self.turns.saturating_add(1);
        complete(self.dev, &mut self.clients, &mut self.flights[..])
    }

    fn clients(&mut self) -> bool {
        let mut busy = false;
        for i in 0..self.clients.len() {
            busy |= take(
                self.dev,
                &mut self.clients,
                i,
                &mut self.flights[..],
                self.capacity,
            );
        }
        let in_flight = self.flights.iter().filter(|f| f.is_some()).count();
        if crate::fault_injection_due(self.dev.incarnation, self.turns, in_flight) {
            println!(
                "test system '{}': faulting on purpose with {in_flight} requests in flight",
                crate::config::SYSTEM_NAME
            );
            conflux_userlib::testing::fault_on_purpose();
        }
        busy
    }

    fn notified(&mut self, bits: u64) {
        if bits & 1 != 0 {
            self.dev.blk.ack_interrupt();
            let _ = self.irq.ack();
        }
    }

    fn ready_to_sleep(&mut self) -> bool {
        ready_to_sleep(&mut self.clients)
    }

    fn finished(&mut self) -> bool {
        self.dev.done
    }

    fn wait(&mut self, block: bool) -> Option<u64> {
        block.then(|| Notification(dev::IRQ_NOTIFY).wait().unwrap_or(0))
    }
}

/// Follows client `i`'s sessions: retires the one it left (a restarted
/// client formatted its region again) and, once the device holds none of
/// that session's requests, attaches to the new one.
fn attach(dev: &Blk, c: &mut Client, i: usize) {
    if c.detached {
        return;
    }
    if let Some(s) = &c.server {
        if s.current() {
            return;
        }
        retire(c, i);
    }
    if c.on_device > 0 {
        return; // the device is still working on the old session's requests
    }
    let Ok(mut s) = shared::attach(&dev.clients[i]) else {
        return; // no session yet (or one being set up): its doorbell wakes us
    };
    if c.broken == Some(s.session()) {
        return;
    }
    match s.start() {
        Ok(0) => {}
        Ok(n) => println!("client {i}: answered {n} requests lost in a restart"),
        Err(e) => return drop_client(c, i, e),
    }
    c.broken = None;
    c.server = Some(s);
    signal(i);
}

/// Stops serving client `i`'s session, which the client has left.
fn retire(c: &mut Client, i: usize) {
    println!(
        "client {i}: began a new session (restarted?); the old session's {} queued requests \
         are dropped, its {} on the device are finished unanswered before the new one is served",
        c.waiting.len(),
        c.on_device
    );
    c.server = None;
    c.waiting.clear();
}

/// A connection error on client `i`: if the client has started a new
/// session, the old one's rings were simply re-formatted; otherwise they
/// are damaged, and the session is dropped.
fn link_error(c: &mut Client, i: usize, e: LinkError) {
    match &c.server {
        Some(s) if !s.current() => retire(c, i),
        _ => drop_client(c, i, e),
    }
}

fn drop_client(c: &mut Client, i: usize, e: LinkError) {
    println!(
        "client {i}: session no longer served (a new session will be), other clients go on: {e}"
    );
    c.broken = c.server.take().map(|s| s.session());
    c.waiting.clear();
}

fn signal(i: usize) {
    let _ = Notification(dev::CLIENTS[i].3).signal();
}

/// Takes new requests from client `i` while the device has room.
fn take(
    dev: &mut Blk,
    clients: &mut [Client],
    i: usize,
    flights: &mut [Option<Flight>],
    capacity: u64,
) -> bool {
    attach(dev, &mut clients[i], i);
    let mut busy = false;
    while flights.iter().filter(|f| f.is_some()).count() < MAX_IN_FLIGHT {
        let c = &mut clients[i];
        let Some(server) = c.server.as_mut() else {
            break;
        };
        let request = match c.waiting.pop_front() {
            Some(r) => r,
            None => match server.next_request() {
                Ok(None) => break,
                Ok(Some(Ok(r))) => r,
                Ok(Some(Err(refused))) => {
                    answer(clients, i, refused.descriptor, refused.status);
                    busy = true;
                    continue;
                }
                Err(e) => {
                    link_error(c, i, e);
                    break;
                }
            },
        };
        busy = true;
        if request.op == Op::Detach {
            answer(clients, i, descriptor(&request), Status::Ok);
            clients[i].server = None;
            clients[i].detached = true;
            if clients.iter().all(|c| c.detached || c.broken.is_some()) {
                dev.done = true;
            }
            break;
        }
        let sectors = u64::from(request.len / SECTOR);
        if request.op != Op::Flush
            && request
                .block
                .checked_add(sectors)
                .is_none_or(|end| end > capacity)
        {
            answer(clients, i, descriptor(&request), Status::OutOfRange);
            continue;
        }
        let session = clients[i].server.as_ref().map_or(0, Server::session);
        match submit(dev, i, session, request) {
            Outcome::Queued(token, f) => {
                clients[i].on_device += 1;
                flights[token as usize % flights.len()] = Some(f);
            }
            Outcome::Done(status) => answer(clients, i, descriptor(&request), status),
            Outcome::Full => {
                clients[i].waiting.push_front(request);
                break;
            }
        }
    }
    busy
}

/// What became of a request handed to the device.
enum Outcome {
    /// In the virtqueue under this token.
    Queued(u16, Flight),
    /// Finished at once (a flush, or an error the device reported).
    Done(Status),
    /// The virtqueue is full: try again after a completion.
    Full,
}

fn submit(dev: &mut Blk, client: usize, session: u64, request: Request) -> Outcome {
    if request.op == Op::Flush {
        // virtio-drivers runs a flush to completion before returning.
        return Outcome::Done(dev.blk.flush().map_or(Status::DeviceError, |()| Status::Ok));
    }
    let mut req = Box::new(BlkReq::default());
    let mut resp = Box::new(BlkResp::default());
    let buf = shared::data(&dev.clients[client], request.offset, request.len);
    #[allow(unsafe_code)]
    // Safety: `req`, `buf` and `resp` stay untouched until the request
    // completes: the boxes move into the flight table (their heap memory
    // does not move), `buf` is the client's data area, mapped for the
    // task's life.
    let token = unsafe {
        match request.op {
            Op::Read => dev
                .blk
                .read_blocks_nb(request.block as usize, &mut req, buf, &mut resp),
            _ => dev
                .blk
                .write_blocks_nb(request.block as usize, &mut req, buf, &mut resp),
        }
    };
    match token {
        Ok(t) => Outcome::Queued(
            t,
            Flight {
                client,
                session,
                request,
                req,
                resp,
            },
        ),
        Err(virtio_drivers::Error::QueueFull) => Outcome::Full,
        Err(_) => Outcome::Done(Status::DeviceError),
    }
}

fn descriptor(r: &Request) -> Descriptor {
    Descriptor {
        offset: r.offset,
        len: r.len,
        id: r.id,
    }
}

fn answer(clients: &mut [Client], i: usize, d: Descriptor, status: Status) {
    let c = &mut clients[i];
    let Some(server) = c.server.as_mut() else {
        return;
    };
    match server.respond(d, status) {
        Ok(true) => signal(i),
        Ok(false) => {}
        Err(e) => link_error(c, i, e),
    }
}

/// Answers every request the device finished.
fn complete(dev: &mut Blk, clients: &mut [Client], flights: &mut [Option<Flight>]) -> bool {
    let mut any = false;
    while let Some(token) = dev.blk.peek_used() {
        any = true;
        let Some(f) = flights[token as usize % flights.len()].take() else {
            println!("the device completed token {token}, which is not in flight; ignored");
            continue;
        };
        let buf = shared::data(&dev.clients[f.client], f.request.offset, f.request.len);
        let mut resp = f.resp;
        #[allow(unsafe_code)]
        // Safety: the same `req`, `buf` and `resp` as at submission.
        let result = unsafe {
            match f.request.op {
                Op::Read => dev.blk.complete_read_blocks(token, &f.req, buf, &mut resp),
                _ => dev.blk.complete_write_blocks(token, &f.req, buf, &mut resp),
            }
        };
        let status = match (result, resp.status()) {
            (Ok(()), RespStatus::OK) => Status::Ok,
            _ => Status::DeviceError,
        };
        let c = &mut clients[f.client];
        c.on_device = c.on_device.saturating_sub(1);
        if c.server.as_ref().map(Server::session) == Some(f.session) {
            answer(clients, f.client, descriptor(&f.request), status);
        }
    }
    any
}

/// Asks every client to ring before sleeping; false if one already did.
fn ready_to_sleep(clients: &mut [Client]) -> bool {
    let mut ok = true;
    for (i, c) in clients.iter_mut().enumerate() {
        if let Some(s) = c.server.as_mut() {
            match s.prepare_to_wait() {
                Ok(safe) => ok &= safe,
                Err(e) => link_error(c, i, e),
            }
        } else {
            // Not attached yet: its first doorbell wakes us to attach.
        }
    }
    ok
}
