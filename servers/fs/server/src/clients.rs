//! The server's clients, keyed by the badge on their endpoint capability:
//! each has a file-system session (file rights, handles, current
//! directory), the regions it shared (the control region 0, data regions
//! 1..), and the compounds it prepared.
//!
//! Regions arrive by capability transfer and are mapped by the shared
//! Cosy region table (`conflux_cosy_ipc::regions`). Each client's control
//! region has a capability slot reserved for its badge, so every client
//! the manifest names can always connect; its data regions take slots
//! from one pool shared by all sessions (`SlotPool`), as they are
//! attached, and give them back when the session ends (DETACH, a
//! reconnect, CLIENT_GONE). When the pool is empty, ATTACH is refused
//! with `TableFull` and the session keeps what it has. A client names its
//! regions by number in its own table, never by slot, so it can never
//! reach another's.
//! Reconnecting (a restarted client) drops the old session first,
//! and with it any compound still running (the caller learns it was
//! cancelled from the server, which owns the reply).

use alloc::boxed::Box;
use alloc::vec::Vec;

use conflux_cosy_ipc::regions::{Lent, PooledError, RegionError, Regions, Slices};
use conflux_cosy_ipc::slots::SlotPool;
use conflux_fs_core::{Grant, Inodes, Session};
use conflux_fs_protocol::FsError;
use cosy_abi::{Insn, Program};

use crate::jobs::Job;

/// Clients served at once: one session slot for each badge the manifest
/// gives a capability to this server (`FS_CLIENTS`), reserved for it, so
/// no client can be locked out by others, however many they are or how
/// often they reconnect. A badge the manifest does not list (minted at
/// run time) is refused with `UnknownClient`. The capability table bounds
/// how many there can be (each takes a control-region slot and a reply
/// slot; see `main.rs`): a manifest with more fails to build with a
/// message saying so.
pub const MAX_CLIENTS: usize = crate::config::caps::FS_CLIENTS.len();
/// Prepared compounds one client may keep.
pub const MAX_PREPARED: usize = conflux_cosy_ipc::MAX_PREPARED;

/// A compound verified once, run many times.
pub struct Prepared {
    pub program: Program<Vec<Insn>>,
    /// Where its bytes (and results area) are in the control region.
    pub offset: usize,
    pub len: usize,
}

/// One connected client.
pub struct Client {
    pub badge: u64,
    pub session: Session,
    pub regions: Regions,
    pub prepared: [Option<Box<Prepared>>; MAX_PREPARED],
    /// The compound still running for this session, if one is.
    pub job: Option<Box<Job>>,
    /// The session's rings, once it named them with RING.
    pub rings: Option<crate::rings::Rings>,
}

impl Client {
    /// The mapped regions as the slices the executor takes, numbered as
    /// the client numbers them (a gap ends the list).
    pub fn slices(&mut self) -> Slices<'_> {
        self.parts().0
    }

    /// The region slices and the session, borrowed together (the file
    /// service needs both).
    pub fn parts(&mut self) -> (Slices<'_>, &mut Session) {
        (self.regions.slices(), &mut self.session)
    }
}

/// Every client slot, and the capability slots they use.
pub struct Clients {
    slots: [Option<Client>; MAX_CLIENTS],
    /// Client `i`'s control region lives in capability slot
    /// `control_base + i`.
    control_base: usize,
    /// The slots data regions take, shared by every session.
    pool: SlotPool,
}

impl Clients {
    /// No clients yet; control regions go from `control_base` on (one
    /// slot per client), data regions into slots taken from `pool`.
    pub fn new(control_base: usize, pool: SlotPool) -> Self {
        Clients {
            slots: core::array::from_fn(|_| None),
            control_base,
            pool,
        }
    }

    /// The client with this badge.
    pub fn get(&mut self, badge: u64) -> Result<&mut Client, FsError> {
        let index = self.index(badge)?;
        self.slots[index].as_mut().ok_or(FsError::NotConnected)
    }

    /// The client in slot `index`, if one is connected there.
    pub fn at(&mut self, index: usize) -> Option<&mut Client> {
        self.slots.get_mut(index)?.as_mut()
    }

    /// Client slots whose compound is still running, from slot `from` on,
    /// wrapping around (round robin between them).
    pub fn with_jobs(&self, from: usize) -> impl Iterator<Item = usize> + '_ {
        (0..MAX_CLIENTS)
            .map(move |i| wrap(from + i))
            .filter(|&i| matches!(&self.slots[i], Some(c) if c.job.is_some()))
    }

    /// Starts a session for `badge`, with the file rights `grant` and the
    /// lent control region `received`; drops any session it had.
    pub fn connect(
        &mut self,
        inodes: &mut Inodes,
        badge: u64,
        grant: Grant,
        received: Lent,
    ) -> Result<&mut Client, FsError> {
        self.disconnect(inodes, badge);
        let index = reserved(badge)?;
        self.slots[index] = Some(Client {
            badge,
            session: Session::new(grant).with_handle_quota(quota(index)),
            regions: Default::default(),
            prepared: Default::default(),
            job: None,
            rings: None,
        });
        let control = self.control_base + index;
        let client = self.slots[index].as_mut().ok_or(FsError::NotConnected)?;
        if let Err(e) = client.regions.attach_in(control, 0, received) {
            self.slots[index] = None;
            return Err(region_error(e));
        }
        self.slots[index].as_mut().ok_or(FsError::NotConnected)
    }

    /// Maps the lent region `received` as the client's next data region,
    /// in a slot from the shared pool; returns its number. `SessionFull`
    /// past `MAX_REGIONS`, `TableFull` when the pool is empty.
    pub fn attach(&mut self, badge: u64, received: Lent) -> Result<usize, FsError> {
        let index = self.index(badge)?;
        let client = self.slots[index].as_mut().ok_or(FsError::NotConnected)?;
        client
            .regions
            .attach_pooled(&mut self.pool, received)
            .map_err(|e| match e {
                PooledError::Region(e) => region_error(e),
                PooledError::PoolEmpty => FsError::TableFull,
            })
    }

    fn index(&self, badge: u64) -> Result<usize, FsError> {
        let index = reserved(badge)?;
        match &self.slots[index] {
            Some(_) => Ok(index),
            None => Err(FsError::NotConnected),
        }
    }

    /// Ends `badge`'s session if it has one: closes its handles, unmaps
    /// and deletes its regions. True if it had one.
    pub fn disconnect(&mut self, inodes: &mut Inodes, badge: u64) -> bool {
        let Ok(index) = self.index(badge) else {
            return false;
        };
        let Some(mut client) = self.slots[index].take() else {
            return false;
        };
        client.session.close_all(inodes);
        client.regions.unmap_all_into(&mut self.pool);
        true
    }
}

/// The file server's name for why a region was not mapped.
fn region_error(e: RegionError) -> FsError {
    match e {
        RegionError::Full => FsError::SessionFull,
        RegionError::NotARegion => FsError::Invalid,
        RegionError::NotLent => FsError::NotLent,
    }
}

/// The session slot reserved for `badge`: its place among the manifest's
/// clients of this server.
pub fn reserved(badge: u64) -> Result<usize, FsError> {
    crate::config::caps::FS_CLIENTS
        .iter()
        .position(|b| *b == badge)
        .ok_or(FsError::UnknownClient)
}

/// `i` as a client slot, counting round (a system may give the server a
/// single client, where this is always 0).
pub fn wrap(i: usize) -> usize {
    i.checked_rem(MAX_CLIENTS).unwrap_or(0)
}

/// The `quota` the manifest gives the client in session slot `index`: for
/// the file server, the most handles it may have open at once.
fn quota(index: usize) -> Option<u32> {
    crate::config::caps::FS_CLIENT_QUOTAS
        .get(index)
        .copied()
        .flatten()
}
