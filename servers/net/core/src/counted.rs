//! A device that counts the frames and bytes crossing it, for `net_info`:
//! it wraps whatever device the server plugs in and counts in the tokens,
//! when smoltcp actually consumes a frame.

use core::cell::Cell;

use conflux_socket_protocol::Traffic;
use smoltcp::phy::{Device, DeviceCapabilities, RxToken, TxToken};
use smoltcp::time::Instant;

/// Frames and bytes each way.
#[derive(Debug, Default)]
struct Counters {
    rx_frames: Cell<u64>,
    rx_bytes: Cell<u64>,
    tx_frames: Cell<u64>,
    tx_bytes: Cell<u64>,
}

fn add(c: &Cell<u64>, n: usize) {
    c.set(c.get().wrapping_add(n as u64));
}

/// Device `D`, counted.
pub struct Counted<D> {
    pub inner: D,
    counters: Counters,
}

impl<D> Counted<D> {
    pub fn new(inner: D) -> Counted<D> {
        Counted {
            inner,
            counters: Counters::default(),
        }
    }

    /// What crossed so far.
    pub fn traffic(&self) -> Traffic {
        let c = &self.counters;
        Traffic {
            rx_frames: c.rx_frames.get(),
            rx_bytes: c.rx_bytes.get(),
            tx_frames: c.tx_frames.get(),
            tx_bytes: c.tx_bytes.get(),
        }
    }
}

/// A received frame, counted when smoltcp reads it.
pub struct Rx<'a, T> {
    inner: T,
    counters: &'a Counters,
}

/// Room for a frame to send, counted when smoltcp fills it.
pub struct Tx<'a, T> {
    inner: T,
    counters: &'a Counters,
}

impl<T: RxToken> RxToken for Rx<'_, T> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        let c = self.counters;
        self.inner.consume(|frame| {
            add(&c.rx_frames, 1);
            add(&c.rx_bytes, frame.len());
            f(frame)
        })
    }
}

impl<T: TxToken> TxToken for Tx<'_, T> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        add(&self.counters.tx_frames, 1);
        add(&self.counters.tx_bytes, len);
        self.inner.consume(len, f)
    }
}

impl<D: Device> Device for Counted<D> {
    type RxToken<'a>
        = Rx<'a, D::RxToken<'a>>
    where
        Self: 'a;
    type TxToken<'a>
        = Tx<'a, D::TxToken<'a>>
    where
        Self: 'a;

    fn receive(&mut self, now: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let counters = &self.counters;
        let (rx, tx) = self.inner.receive(now)?;
        Some((
            Rx {
                inner: rx,
                counters,
            },
            Tx {
                inner: tx,
                counters,
            },
        ))
    }

    fn transmit(&mut self, now: Instant) -> Option<Self::TxToken<'_>> {
        let counters = &self.counters;
        let inner = self.inner.transmit(now)?;
        Some(Tx { inner, counters })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        self.inner.capabilities()
    }
}
