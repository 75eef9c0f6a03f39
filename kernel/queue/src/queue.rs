//! A connection: a free ring and an active ring over one data region.
//!
//! The [`Receiver`] (e.g. a client reading packets, or a driver taking
//! write requests) offers empty buffers on the free ring and takes filled
//! ones from the active ring; the [`Sender`] does the opposite. Each end
//! therefore produces on one ring and consumes the other, and checks every
//! descriptor it consumes against the data region.

use crate::descriptor::{DataRegion, Descriptor, ValidDescriptor};
use crate::ring::{Consumer, Corrupt, PopError, Producer, PushError, Ring};

/// The two rings and data region of one connection, before choosing ends.
pub struct Queue<'a> {
    /// Empty buffers, receiver → sender.
    pub free: Ring<'a>,
    /// Filled buffers, sender → receiver.
    pub active: Ring<'a>,
    /// Where the buffers are.
    pub data: DataRegion,
}

/// The end that fills buffers.
pub struct Sender<'a> {
    /// Empty buffers arrive here.
    pub free: Consumer<'a>,
    /// Filled buffers leave here.
    pub active: Producer<'a>,
}

/// The end that drains buffers.
pub struct Receiver<'a> {
    /// Filled buffers arrive here.
    pub active: Consumer<'a>,
    /// Empty buffers leave here.
    pub free: Producer<'a>,
}

impl<'a> Queue<'a> {
    /// This task is the sender.
    pub fn into_sender(self) -> Sender<'a> {
        Sender {
            free: self.free.into_consumer(self.data),
            active: self.active.into_producer(),
        }
    }

    /// This task is the receiver.
    pub fn into_receiver(self) -> Receiver<'a> {
        Receiver {
            active: self.active.into_consumer(self.data),
            free: self.free.into_producer(),
        }
    }

    /// Both ends, for a connection inside one process.
    pub fn split(self) -> (Sender<'a>, Receiver<'a>) {
        let (free_tx, free_rx) = self.free.split(self.data);
        let (active_tx, active_rx) = self.active.split(self.data);
        (
            Sender {
                free: free_rx,
                active: active_tx,
            },
            Receiver {
                active: active_rx,
                free: free_tx,
            },
        )
    }
}

impl Sender<'_> {
    /// An empty buffer to fill, if the receiver has offered one.
    pub fn take_buffer(&mut self) -> Result<Option<ValidDescriptor>, PopError> {
        self.free.pop()
    }

    /// Hands `buf`, cut to the `len` bytes it now holds, to the receiver.
    /// `len` longer than the buffer is refused as [`SendError::TooLong`].
    pub fn send(&mut self, buf: ValidDescriptor, len: u32) -> Result<(), SendError> {
        let filled = buf.truncate(len).ok_or(SendError::TooLong)?;
        self.active.push(filled).map_err(SendError::Push)
    }

    /// After sending: whether the receiver is waiting for a notification.
    pub fn needs_signal(&mut self) -> bool {
        self.active.needs_signal()
    }

    /// Before sleeping for lack of free buffers (see
    /// [`Consumer::prepare_to_wait`]).
    pub fn prepare_to_wait(&mut self) -> Result<bool, Corrupt> {
        self.free.prepare_to_wait()
    }
}

/// Why [`Sender::send`] did not send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendError {
    /// The length is longer than the buffer.
    TooLong,
    /// The active ring refused it.
    Push(PushError),
}

impl Receiver<'_> {
    /// Offers an empty buffer to the sender.
    pub fn offer(&mut self, buf: impl Into<Descriptor>) -> Result<(), PushError> {
        self.free.push(buf)
    }

    /// The next filled buffer, if any.
    pub fn recv(&mut self) -> Result<Option<ValidDescriptor>, PopError> {
        self.active.pop()
    }

    /// After offering buffers: whether the sender is waiting for them.
    pub fn needs_signal(&mut self) -> bool {
        self.free.needs_signal()
    }

    /// Before sleeping for lack of filled buffers (see
    /// [`Consumer::prepare_to_wait`]).
    pub fn prepare_to_wait(&mut self) -> Result<bool, Corrupt> {
        self.active.prepare_to_wait()
    }
}
