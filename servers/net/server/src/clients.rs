//! The server's clients, keyed by the badge on their endpoint capability:
//! each has the regions it shared (the control region 0, data regions
//! 1.., mapped by the shared Cosy region table) and the compounds it
//! prepared. Its sockets live in the network core, under the same badge.
//!
//! There is one session slot per client the manifest names
//! (`config::caps::NET_CLIENTS`, the badges of every capability to the
//! endpoint), found by badge: a client has at most one session (CONNECT
//! again ends the old one), and no number of other clients, hostile or
//! not, can take its slot. A badge the manifest does not name (one minted
//! from an unbadged capability, say) gets `UnknownClient`.

use alloc::boxed::Box;
use alloc::vec::Vec;

use conflux_cosy_ipc::regions::{Layout, Lent, RegionError, Regions, Slices};
use conflux_socket_protocol::NetError;
use cosy_abi::{Insn, Program};

/// Clients served at once: one per badge the manifest gives a capability
/// to the `net` endpoint.
pub const MAX_CLIENTS: usize = crate::config::caps::NET_CLIENTS.len();
/// Prepared compounds one client may keep.
pub const MAX_PREPARED: usize = conflux_cosy_ipc::MAX_PREPARED;

/// A compound verified once, run many times.
pub struct Prepared {
    pub program: Program<Vec<Insn>>,
    /// Where its bytes (and results area) are in the control region.
    pub offset: u64,
    pub len: u64,
}

/// One connected client.
pub struct Client {
    pub regions: Regions,
    pub prepared: [Option<Box<Prepared>>; MAX_PREPARED],
    /// Its quota was reported in the log this session (once: a client at
    /// its quota must not be able to flood the console).
    pub quota_reported: bool,
    /// Its rings, once it named them with RING (`rings`).
    pub rings: Option<crate::rings::Rings>,
}

impl Client {
    /// The mapped regions as the slices the executor takes.
    pub fn slices(&mut self) -> Slices<'_> {
        self.regions.slices()
    }
}

/// Every client slot, and where their regions go.
pub struct Clients {
    /// Slot `i` is the session of the client with badge `badges[i]`.
    slots: [Option<Client>; MAX_CLIENTS],
    badges: &'static [u64],
    layout: Layout,
}

fn region_error(e: RegionError) -> NetError {
    match e {
        RegionError::Full => NetError::SessionFull,
        RegionError::NotARegion => NetError::Invalid,
        RegionError::NotLent => NetError::NotLent,
    }
}

impl Clients {
    /// No clients yet; region capabilities go from `cap_base` on.
    pub fn new(cap_base: usize) -> Self {
        Clients {
            slots: [const { None }; MAX_CLIENTS],
            badges: crate::config::caps::NET_CLIENTS,
            layout: Layout { cap_base },
        }
    }

    /// The session slot of the client with `badge`.
    fn slot_of(&self, badge: u64) -> Result<usize, NetError> {
        self.badges
            .iter()
            .position(|b| *b == badge)
            .ok_or(NetError::UnknownClient)
    }

    fn index(&self, badge: u64) -> Result<usize, NetError> {
        let i = self.slot_of(badge)?;
        match self.slots[i] {
            Some(_) => Ok(i),
            None => Err(NetError::NoSession),
        }
    }

    /// Session slots, one per client the manifest names (0 in a system
    /// whose tasks do not use the server).
    pub fn count(&self) -> usize {
        self.slots.len()
    }

    /// Session slot `i`'s badge and client, if it has a session (the
    /// ring pass walks every slot).
    pub fn at(&mut self, i: usize) -> Option<(u64, &mut Client)> {
        let badge = *self.badges.get(i)?;
        Some((badge, self.slots.get_mut(i)?.as_mut()?))
    }

    /// The client with this badge.
    pub fn get(&mut self, badge: u64) -> Result<&mut Client, NetError> {
        let i = self.index(badge)?;
        self.slots[i].as_mut().ok_or(NetError::NoSession)
    }

    /// Starts a session for `badge` with the lent control region
    /// `received` (the caller ended any old one); returns the region's size.
    pub fn connect(&mut self, badge: u64, received: Lent) -> Result<usize, NetError> {
        let index = self.slot_of(badge)?;
        let mut client = Client {
            regions: Regions::default(),
            prepared: Default::default(),
            quota_reported: false,
            rings: None,
        };
        client
            .regions
            .attach(self.layout, index, Some(0), received)
            .map_err(region_error)?;
        let len = client.regions.get_mut(0).map_or(0, |w| w.len());
        self.slots[index] = Some(client);
        Ok(len)
    }

    /// Maps the lent region `received` as the client's next data region;
    /// returns its number.
    pub fn attach(&mut self, badge: u64, received: Lent) -> Result<usize, NetError> {
        let index = self.index(badge)?;
        let client = self.slots[index].as_mut().ok_or(NetError::NoSession)?;
        client
            .regions
            .attach(self.layout, index, None, received)
            .map_err(region_error)
    }

    /// Ends `badge`'s session if it has one: unmaps and deletes its
    /// regions, forgets its prepared compounds. True if it had one.
    pub fn disconnect(&mut self, badge: u64) -> bool {
        let Ok(index) = self.index(badge) else {
            return false;
        };
        if let Some(mut client) = self.slots[index].take() {
            client.regions.unmap_all();
        }
        true
    }
}
