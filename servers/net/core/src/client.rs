//! One client's sockets: a table indexed by handle, reached only through
//! the client's own badge, so a handle means something only to the client
//! that got it.

use alloc::vec::Vec;

use conflux_socket_protocol::NetError;

use crate::datagram::Datagram;
use crate::listener::Listener;
use crate::stream::Stream;

/// The IPC badge that identifies a client (given by the manifest,
/// unforgeable: the kernel stamps it on every message).
pub type Badge = u64;

/// A socket handle as a client names it: an index into its own table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Handle(pub u32);

impl Handle {
    /// The handle in an operand word; `BadSocket` if it cannot be one.
    pub fn from_word(word: u64) -> Result<Handle, NetError> {
        u32::try_from(word)
            .map(Handle)
            .map_err(|_| NetError::BadSocket)
    }

    /// The operand word.
    pub fn to_word(self) -> u64 {
        u64::from(self.0)
    }
}

/// What a socket is; fixed for a handle's life except that a stream
/// becomes a listener on `listen`.
#[derive(Debug)]
pub enum Sock {
    /// A TCP byte stream (connecting, connected, or neither yet).
    Stream(Stream),
    /// A TCP listener with its pool of listening sockets.
    Listener(Listener),
    /// A UDP socket.
    Datagram(Datagram),
}

/// One open socket of a client.
#[derive(Debug)]
pub struct Entry {
    /// The socket.
    pub sock: Sock,
    /// Whether the server should answer `WouldBlock` instead of parking.
    pub nonblocking: bool,
}

/// A client's open sockets.
#[derive(Debug, Default)]
pub struct ClientTable {
    slots: Vec<Option<Entry>>,
}

impl ClientTable {
    /// The socket `h`.
    pub fn get_mut(&mut self, h: Handle) -> Result<&mut Entry, NetError> {
        self.slots
            .get_mut(h.0 as usize)
            .and_then(Option::as_mut)
            .ok_or(NetError::BadSocket)
    }

    /// Adds `entry` at the lowest free handle (as Unix numbers files).
    /// How many a client may have is the socket ledger's business (its
    /// quota); this only fails, giving `entry` back, when the heap has no
    /// room for a longer table.
    pub fn insert(&mut self, entry: Entry) -> Result<Handle, (Entry, NetError)> {
        let i = match self.slots.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                if self.slots.try_reserve(1).is_err() {
                    return Err((entry, NetError::NoMemory));
                }
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        self.slots[i] = Some(entry);
        Ok(Handle(i as u32))
    }

    /// Takes socket `h` out of the table.
    pub fn remove(&mut self, h: Handle) -> Result<Entry, NetError> {
        let entry = self
            .slots
            .get_mut(h.0 as usize)
            .and_then(Option::take)
            .ok_or(NetError::BadSocket)?;
        while matches!(self.slots.last(), Some(None)) {
            self.slots.pop();
        }
        Ok(entry)
    }

    /// Takes every socket out.
    pub fn drain(&mut self) -> impl Iterator<Item = Entry> + '_ {
        self.slots.drain(..).flatten()
    }

    /// Every open socket, to read.
    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.slots.iter().flatten()
    }

    /// Every open socket.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.slots.iter_mut().flatten()
    }

    /// Open sockets.
    pub(crate) fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }
}
