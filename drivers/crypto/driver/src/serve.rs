//! The driver's loop: take each client's requests, run them on the
//! device, answer them, sleep only when nothing is left to do.
//!
//! Requests run one at a time: QEMU's builtin backend does the work inside
//! the notify that submits it, so the request is done when the driver
//! looks for its answer, and keeping several on the virtqueue would only
//! move the same work around. Clients get turns of at most [`TURN`]
//! requests, so a busy one cannot starve the others.

use crate::config::device as dev;
use crate::device::Crypto;
use crate::shared;
use alloc::vec::Vec;
use conflux_crypto_protocol::{
    gone_ends_session, Algorithm, Direction, LinkError, Refused, Request, Server, Sessions, Status,
};
use conflux_flow_stage::driver::{self, Driver};
use conflux_userlib::ipc::{Irq, Notification};
use conflux_userlib::println;
use conflux_virtio_crypto as device;
use conflux_virtio_crypto::{Error, SessionId};

/// Requests one client may have served before the next client's turn.
const TURN: u32 = 8;

struct Client {
    server: Option<Server>,
    sessions: Sessions<SessionId>,
    /// The client session the driver ended (detached, damaged rings, or
    /// the client gone): never served again. 0 while none was ended.
    left: u64,
    /// The client asked to detach: its session ends once answered.
    detaching: bool,
    /// How many times the driver had collected its notification's bits
    /// when it attached to the current session (see [`gone`]).
    since: u64,
}

/// Bit of the driver's notification that says client `i` is gone: the
/// badge of init's `gone_DEVICE_clientI` capability (the manifest's
/// `device_gone`). A client's doorbell is bit `1 + i`, fixed in its
/// capability's badge, so no client can set it.
const fn gone_bit(i: usize) -> u64 {
    1 << (32 + i)
}

/// An answer: status, detail, and the new session's handle if any.
type Answer = (Status, u64, Option<u64>);

/// Serves until every client has detached (for ever when the driver is
/// a flow stage, which its configuration decides: flows come and go). The
/// loop is `conflux_flow_stage::driver`'s; [`Serving`] is this driver's
/// side of it.
pub fn run(c: &mut Crypto) {
    let irq = Irq(dev::IRQ);
    let _ = irq.ack(); // the line may have fired during bring-up
    let generation = c.generation();
    let clients: Vec<Client> = (0..c.clients.len())
        .map(|_| Client {
            server: None,
            sessions: Sessions::new(generation),
            left: 0,
            detaching: false,
            since: 0,
        })
        .collect();
    let stage = match crate::flows::Stage::from_config() {
        Ok(s) => s,
        Err(e) => {
            println!(
                "cannot bind the device's notification to the FLOW endpoint: {e}; the driver stops"
            );
            return;
        }
    };
    let mut serving = Serving {
        c,
        clients,
        collected: 0,
        served: 0,
        irq,
    };
    driver::run(&mut serving, stage);
}

/// The driver between two turns of its loop.
pub struct Serving<'c> {
    pub c: &'c mut Crypto,
    clients: Vec<Client>,
    /// Times the notification's bits were collected (`gone`).
    collected: u64,
    /// Requests served (for the test systems' fault).
    served: u64,
    irq: Irq,
}

impl Serving<'_> {
    /// Resets the device after a flow's request left it needing one.
    pub fn reset_for_flow(&mut self) {
        println!("a flow's request left the device needing a reset: resetting it; every client's sessions are lost and answer SessionLost, flows make theirs again");
        reset(self.c, &mut self.clients);
    }
}

impl Driver for Serving<'_> {
    /// Nothing to collect: a request runs to its end inside its client's
    /// turn (QEMU's builtin backend works inside the notify).
    fn device(&mut self) -> bool {
        false
    }

    fn clients(&mut self) -> bool {
        let mut busy = false;
        for i in 0..self.clients.len() {
            busy |= turn(
                self.c,
                &mut self.clients,
                i,
                &mut self.served,
                self.collected,
            );
        }
        busy
    }

    fn notified(&mut self, bits: u64) {
        interrupt(self.c, &self.irq, bits);
        self.collected += 1;
        gone(self.c, &mut self.clients, bits, self.collected);
    }

    fn ready_to_sleep(&mut self) -> bool {
        ready_to_sleep(&mut self.clients)
    }

    fn finished(&mut self) -> bool {
        self.clients
            .iter()
            .all(|cl| cl.server.is_none() && cl.left != 0)
    }

    /// Busy, it still looks at the bits each round, so a gone bit is seen
    /// before the client's next instance can attach.
    fn wait(&mut self, block: bool) -> Option<u64> {
        let bell = Notification(dev::IRQ_NOTIFY);
        if block { bell.wait() } else { bell.poll() }.ok()
    }
}

/// Ends the session of each client whose gone bit is in `bits` (the
/// `collected`th collection of the notification): its device sessions
/// destroyed, exactly as a detach or a restarted client's new session
/// does; its next instance's new session is attached as usual. A session
/// attached since the previous collection may be that next instance's
/// and is left alone (`conflux_crypto_protocol::gone_ends_session`).
/// Requests run one at a time and each to its end, so no answer of the
/// ended session is still to come.
fn gone(c: &mut Crypto, clients: &mut [Client], bits: u64, collected: u64) {
    for (i, cl) in clients.iter_mut().enumerate() {
        if bits & gone_bit(i) != 0 && cl.server.is_some() && gone_ends_session(cl.since, collected)
        {
            end_session(c, cl);
        }
    }
}

/// Ends client `cl`'s current session: its device sessions destroyed,
/// its rings no longer served, its number never attached again.
fn end_session(c: &mut Crypto, cl: &mut Client) {
    if let Some(dev) = c.device.as_mut() {
        for id in cl.sessions.take_all() {
            let _ = dev.destroy_session(id);
        }
    }
    // Without a device the sessions died with it (the next reset makes a
    // new generation); forget them either way.
    let _ = cl.sessions.take_all().count();
    if let Some(s) = cl.server.take() {
        cl.left = s.session();
    }
    cl.detaching = false;
}

/// Acknowledges the device's interrupt if bit 0 of the notification's
/// `bits` says it fired (the other bits are doorbells: they only wake).
fn interrupt(c: &mut Crypto, irq: &Irq, bits: u64) {
    if bits & 1 != 0 {
        if let Some(d) = c.device.as_mut() {
            d.ack_interrupt();
        }
        let _ = irq.ack();
    }
}

/// Client `i`'s turn: attach if it has formatted its region, then serve
/// up to [`TURN`] requests. Returns whether there was anything to do.
fn turn(
    c: &mut Crypto,
    clients: &mut [Client],
    i: usize,
    served: &mut u64,
    collected: u64,
) -> bool {
    // A new number: the client was restarted. Its old session ends as a
    // detach would, then the new one is attached.
    if clients[i].server.as_ref().is_some_and(|s| !s.is_current()) {
        end_session(c, &mut clients[i]);
    }
    attach(c, &mut clients[i], i, collected);
    for n in 0..TURN {
        let Some(server) = clients[i].server.as_mut() else {
            return n > 0;
        };
        let request = match server.next_request() {
            Ok(None) => return n > 0,
            Ok(Some(r)) => r,
            Err(e) => {
                drop_client(c, &mut clients[i], i, e);
                return true;
            }
        };
        let (descriptor, answer) = match request {
            Err(Refused {
                descriptor,
                status,
                detail,
            }) => (descriptor, (status, detail, None)),
            Ok(r) => {
                *served += 1;
                if crate::fault_injection_due(c.incarnation, *served) {
                    println!(
                        "test system '{}': faulting on purpose with request {} of client {i} in flight",
                        crate::config::SYSTEM_NAME,
                        r.descriptor().id
                    );
                    conflux_userlib::testing::fault_on_purpose();
                }
                (r.descriptor(), execute(c, clients, i, r))
            }
        };
        let (status, detail, session) = answer;
        if let Some(server) = clients[i].server.as_mut() {
            match server.respond(descriptor, status, detail, session) {
                Ok(true) => signal(i),
                Ok(false) => {}
                Err(e) => drop_client(c, &mut clients[i], i, e),
            }
        }
        if clients[i].detaching {
            end_session(c, &mut clients[i]);
        }
    }
    true
}

/// Runs one checked request of client `i`.
fn execute(c: &mut Crypto, clients: &mut [Client], i: usize, r: Request) -> Answer {
    let Some(dev) = c.device.as_mut() else {
        return (Status::DeviceError, 0, None);
    };
    if let Request::Count { .. } = r {
        let open: usize = clients.iter().map(|cl| cl.sessions.len()).sum();
        return (Status::Ok, open as u64, None);
    }
    let cl = &mut clients[i];
    let result = match r {
        Request::CreateSession { algo, dir, key, .. } => {
            if !cl.sessions.has_room() {
                return (Status::TooManySessions, 0, None);
            }
            let key = shared::data(&c.clients[i], key);
            dev.create_session(algorithm(algo), key, direction(dir))
                .map(|id| match cl.sessions.insert(id, dir) {
                    Ok(handle) => (Status::Ok, 0, Some(handle)),
                    Err(status) => (status, 0, None),
                })
        }
        Request::DestroySession { session, .. } => match cl.sessions.remove(session) {
            Ok(open) => dev
                .destroy_session(open.device)
                .map(|()| (Status::Ok, 0, None)),
            Err(status) => return (status, 0, None),
        },
        Request::Cipher {
            dir,
            session,
            iv,
            src,
            dst,
            ..
        } => match cl.sessions.get(session) {
            Ok(open) if open.dir != dir => return (Status::WrongDirection, 0, None),
            Ok(open) => {
                let (src, dst) = (
                    shared::data(&c.clients[i], src),
                    shared::data(&c.clients[i], dst),
                );
                match dir {
                    Direction::Encrypt => dev.encrypt(open.device, &iv, src, dst),
                    Direction::Decrypt => dev.decrypt(open.device, &iv, src, dst),
                }
                .map(|()| (Status::Ok, 0, None))
            }
            Err(status) => return (status, 0, None),
        },
        Request::Detach { .. } => {
            // Answered first; `turn` then ends the session.
            cl.detaching = true;
            return (Status::Ok, 0, None);
        }
        Request::Count { .. } => return (Status::Ok, 0, None), // answered above
    };
    result.unwrap_or_else(|e| failed(c, clients, i, e))
}

/// The answer for a request the device layer failed, resetting the device
/// if the failure left it unusable.
fn failed(c: &mut Crypto, clients: &mut [Client], i: usize, e: Error) -> Answer {
    let (status, detail) = match e {
        Error::BadKeyLength { len } | Error::KeyTooLong { len, .. } => (Status::BadKey, len as u64),
        Error::NotBlockMultiple { len } => (Status::BadLength, len as u64),
        Error::LengthMismatch { src, .. } => (Status::BadLength, src as u64),
        Error::EmptyData => (Status::BadLength, 0),
        Error::TooLarge { needed, .. } => (Status::BadLength, needed),
        Error::UnknownSession => (Status::UnknownSession, 0),
        Error::WrongDirection => (Status::WrongDirection, 0),
        Error::DeviceError => (Status::DeviceError, u64::from(device::wire::STATUS_ERR)),
        Error::BadMessage => (Status::DeviceError, u64::from(device::wire::STATUS_BADMSG)),
        Error::NotSupported => (Status::DeviceError, u64::from(device::wire::STATUS_NOTSUPP)),
        Error::InvalidSession => (Status::DeviceError, u64::from(device::wire::STATUS_INVSESS)),
        Error::NoSpace => (Status::DeviceError, u64::from(device::wire::STATUS_NOSPC)),
        Error::KeyRejected => (
            Status::DeviceError,
            u64::from(device::wire::STATUS_KEY_REJECTED),
        ),
        Error::UnknownStatus(code) => (Status::DeviceError, u64::from(code)),
        _ => (Status::DeviceError, 0),
    };
    if matches!(e, Error::DeviceNeedsReset | Error::Broken) {
        println!("client {i}'s request left the device needing a reset ({e:?}): resetting it; every client's sessions are lost and answer SessionLost");
        reset(c, clients);
    }
    (status, detail, None)
}

/// Resets the device; every client's sessions are lost.
fn reset(c: &mut Crypto, clients: &mut [Client]) {
    match c.reset() {
        Ok(()) => {
            let generation = c.generation();
            for cl in clients.iter_mut() {
                cl.sessions.lose_all(generation);
            }
        }
        Err(e) => println!("the device did not come back after the reset: {e}; every request gets DeviceError from now on"),
    }
}

fn algorithm(a: Algorithm) -> device::Algorithm {
    match a {
        Algorithm::Cbc => device::Algorithm::Cbc,
        Algorithm::Ctr => device::Algorithm::Ctr,
    }
}

fn direction(d: Direction) -> device::Direction {
    match d {
        Direction::Encrypt => device::Direction::Encrypt,
        Direction::Decrypt => device::Direction::Decrypt,
    }
}

/// Attaches to client `i` if it began a session the driver has not
/// ended.
fn attach(c: &mut Crypto, cl: &mut Client, i: usize, collected: u64) {
    if cl.server.is_some() {
        return;
    }
    let Ok(mut s) = shared::attach(&c.clients[i]) else {
        return;
    };
    if s.session() == cl.left {
        return;
    }
    let recovered = s.recover();
    cl.server = Some(s);
    cl.since = collected;
    match recovered {
        Ok(0) => {}
        Ok(n) => println!("client {i}: answered {n} requests lost in a restart (Restarted)"),
        Err(e) => return drop_client(c, cl, i, e),
    }
    if let Some(s) = cl.server.as_ref() {
        s.publish();
    }
    signal(i);
}

fn drop_client(c: &mut Crypto, cl: &mut Client, i: usize, e: LinkError) {
    println!("client {i}: this session is no longer served (a new session of the client would be), other clients go on: {e}");
    // Never attached again: its rings would be just as damaged.
    end_session(c, cl);
}

fn signal(i: usize) {
    let _ = Notification(dev::CLIENTS[i].3).signal();
}

/// Asks every client to ring before sleeping; false if one already did.
fn ready_to_sleep(clients: &mut [Client]) -> bool {
    let mut ok = true;
    for cl in clients.iter_mut() {
        if let Some(s) = cl.server.as_mut() {
            // A damaged ring shows up as an error on the next turn.
            ok &= s.prepare_to_wait().unwrap_or(false);
        }
    }
    ok
}
