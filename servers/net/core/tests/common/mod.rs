//! Two netcore stacks joined by an in-memory Ethernet cable, and a way to
//! call socket operations the way the server's per-call path does (an
//! `Args` built by hand over one client region).
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use conflux_netcore::{Badge, Config, NetCore};
use conflux_socket_protocol::{NetError, SockAddr};
use cosy_abi::{Args, Service};
use smoltcp::phy::{Device, DeviceCapabilities, Medium, RxToken, TxToken};
use smoltcp::time::{Duration, Instant};

type Queue = Rc<RefCell<VecDeque<Vec<u8>>>>;

/// One end of the cable: frames sent here arrive at the other end.
pub struct Wire {
    rx: Queue,
    tx: Queue,
    cut: Rc<Cell<bool>>,
}

/// Both ends of a cable.
pub fn cable() -> (Wire, Wire) {
    let (ab, ba) = (Queue::default(), Queue::default());
    let cut = Rc::new(Cell::new(false));
    let a = Wire {
        rx: ba.clone(),
        tx: ab.clone(),
        cut: cut.clone(),
    };
    (
        a,
        Wire {
            rx: ab,
            tx: ba,
            cut,
        },
    )
}

pub struct Rx(Vec<u8>);
/// A frame to send, and where it goes (`None`: the cable is cut).
pub struct Tx(Option<Queue>);

impl RxToken for Rx {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

impl TxToken for Tx {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut frame = vec![0; len];
        let r = f(&mut frame);
        if let Some(q) = self.0 {
            q.borrow_mut().push_back(frame);
        }
        r
    }
}

impl Wire {
    fn tx_token(&self) -> Tx {
        Tx((!self.cut.get()).then(|| self.tx.clone()))
    }

    /// A copy of the last frame this end sent.
    pub fn last_sent(&self) -> Vec<u8> {
        self.tx.borrow().back().expect("a frame was sent").clone()
    }

    /// Frames this end sent that the other end has not taken yet.
    pub fn in_flight(&self) -> usize {
        self.tx.borrow().len()
    }

    /// `frame` arrives at this end (a retransmission, a duplicate).
    pub fn inject(&self, frame: Vec<u8>) {
        self.rx.borrow_mut().push_back(frame);
    }

    /// Cuts the cable (both ways) or mends it.
    pub fn set_cut(&self, cut: bool) {
        self.cut.set(cut);
    }
}

impl Device for Wire {
    type RxToken<'a> = Rx;
    type TxToken<'a> = Tx;

    fn receive(&mut self, _: Instant) -> Option<(Rx, Tx)> {
        let frame = self.rx.borrow_mut().pop_front()?;
        Some((Rx(frame), self.tx_token()))
    }

    fn transmit(&mut self, _: Instant) -> Option<Tx> {
        Some(self.tx_token())
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = 1514;
        caps
    }
}

pub const IP_A: [u8; 4] = [10, 0, 0, 1];
pub const IP_B: [u8; 4] = [10, 0, 0, 2];

/// Two stacks on one cable and the time they share.
pub struct Net {
    pub a: NetCore<Wire>,
    pub b: NetCore<Wire>,
    pub now: Instant,
}

impl Net {
    pub fn new() -> Net {
        Net::with(|_| {})
    }

    /// Stacks whose configurations `tweak` adjusts.
    pub fn with(tweak: impl Fn(&mut Config)) -> Net {
        let (wa, wb) = cable();
        let now = Instant::from_millis(0);
        let mut ca = Config::new([2, 0, 0, 0, 0, 1], IP_A, 24);
        let mut cb = Config::new([2, 0, 0, 0, 0, 2], IP_B, 24);
        cb.random_seed = 77;
        tweak(&mut ca);
        tweak(&mut cb);
        Net {
            a: NetCore::new(ca, wa, now),
            b: NetCore::new(cb, wb, now),
            now,
        }
    }

    /// Polls both stacks `rounds` times, a millisecond apart.
    pub fn pump(&mut self, rounds: usize) {
        self.pump_every(1, rounds);
    }

    /// Polls both stacks `rounds` times, `ms` milliseconds apart.
    pub fn pump_every(&mut self, ms: u64, rounds: usize) {
        for _ in 0..rounds {
            self.now += Duration::from_millis(ms);
            self.a.poll(self.now);
            self.b.poll(self.now);
        }
    }
}

/// An operand of a hand-built call.
#[derive(Clone, Copy)]
pub enum A {
    /// A value.
    V(u64),
    /// Bytes `offset..offset + len` of the region.
    B(usize, usize),
}

/// Calls `op` for client `badge` on `core` with `region` as its only region.
pub fn call_in(
    core: &mut NetCore<Wire>,
    badge: Badge,
    op: u16,
    operands: &[A],
    region: &mut [u8],
) -> Result<u64, NetError> {
    let mut regions = [region];
    let mut args = Args::new(&mut regions);
    for a in operands {
        args = match *a {
            A::V(v) => args.with_value(v),
            A::B(off, len) => args.with_buf(0, off, len).expect("test buffer fits"),
        };
    }
    let r = core.service(badge).call(op, &mut args);
    r.map_err(|e| NetError::from_call(e).unwrap_or_else(|| panic!("not a socket error: {e}")))
}

/// Calls `op` with value operands only.
pub fn call(
    core: &mut NetCore<Wire>,
    badge: Badge,
    op: u16,
    values: &[u64],
) -> Result<u64, NetError> {
    let operands: Vec<A> = values.iter().map(|v| A::V(*v)).collect();
    call_in(core, badge, op, &operands, &mut [])
}

pub fn addr(ip: [u8; 4], port: u16) -> u64 {
    SockAddr::new(ip, port).to_word()
}
