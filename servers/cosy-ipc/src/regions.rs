//! The regions a Cosy server's clients share with it (feature `server`).
//!
//! Regions arrive by capability transfer into the server's receive slot,
//! and only lent ones are taken ([`Lent`]): a lent region stays mapped in
//! the server until the server unmaps it, whatever the client revokes,
//! so no client can make the server fault by pulling memory from under
//! it. A region's capability slot comes either from a fixed place for
//! each client ([`Layout`]: the network server's regions, the file
//! server's control regions) or from a pool shared by every session
//! ([`SlotPool`]: the file server's data regions), taken when the region
//! is attached and given back when it is unmapped. Either way a slot has
//! one holder at a time, and its window in the address space is fixed by
//! the slot number, so one client's regions can never land on another's:
//! a client names its regions by number in its own table, never by slot.
//! The kernel reports each region's size when mapping it, so a client
//! cannot claim a larger one. The control region is number 0, data
//! regions 1.. ([`MAX_REGIONS`]).

use core::ops::{Deref, DerefMut};

use conflux_abi::layout::REGION_BASE;
use conflux_userlib::ipc::{Message, Slot};
use conflux_userlib::window::Window;

use crate::slots::SlotPool;
use crate::MAX_REGIONS;

/// Where client `i`'s region `j` lives: capability slot and address.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// First capability slot for client regions: client `i`'s region `j`
    /// lives in `cap_base + i * MAX_REGIONS + j`.
    pub cap_base: usize,
}

/// Client regions are mapped far above the manifest's own mappings, one
/// window for each capability slot, 128 MiB apart (the largest region is
/// 64 MiB): 8 GiB for the whole table.
const WINDOW_BASE: u64 = REGION_BASE + 0x100_0000_0000;
const WINDOW_STRIDE: u64 = 128 << 20;

/// Why a region was not mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionError {
    /// The session has every region it may have.
    Full,
    /// The capability is not a writable, mappable region.
    NotARegion,
    /// The region was shared, not lent: its holder could revoke it under
    /// the server.
    NotLent,
}

/// Why [`Regions::attach_pooled`] mapped no region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PooledError {
    /// As for a region in a fixed slot.
    Region(RegionError),
    /// Every slot of the shared pool holds some session's region: the
    /// server's capability table is full until a session ends.
    PoolEmpty,
}

/// A capability that arrived lent, in the server's receive slot: the only
/// form in which [`Regions::attach`] takes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lent(usize);

impl Lent {
    /// The capability a message carried, if the kernel says it was lent.
    /// A shared one is deleted here and refused (`NotLent`).
    pub fn from_message(msg: &Message) -> Option<Result<Lent, RegionError>> {
        let slot = msg.cap?;
        Some(if msg.lend {
            Ok(Lent(slot))
        } else {
            let _ = Slot(slot).delete();
            Err(RegionError::NotLent)
        })
    }
}

/// A client's mapped regions as slices, numbered as the client numbers
/// them: what `cosy_abi::Args` and the executor take, as a slice of
/// slices ([`Regions::slices`]).
pub struct Slices<'a> {
    slices: [&'a mut [u8]; MAX_REGIONS],
    len: usize,
}

impl<'a> Deref for Slices<'a> {
    type Target = [&'a mut [u8]];

    fn deref(&self) -> &Self::Target {
        &self.slices[..self.len]
    }
}

impl DerefMut for Slices<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.slices[..self.len]
    }
}

/// One client's mapped regions, numbered as the client numbers them.
#[derive(Debug, Default)]
pub struct Regions {
    windows: [Option<Window>; MAX_REGIONS],
}

impl Regions {
    /// Maps the lent region `received` as number `number` of client slot
    /// `index` (0 for CONNECT's control region, the next free one for
    /// ATTACH when `number` is `None`), in that client's fixed capability
    /// slot (`layout`); returns its number. The receive slot is emptied
    /// either way.
    pub fn attach(
        &mut self,
        layout: Layout,
        index: usize,
        number: Option<usize>,
        received: Lent,
    ) -> Result<usize, RegionError> {
        let number = self.number(number, received)?;
        let slot = layout.cap_base + index * MAX_REGIONS + number;
        self.attach_in(slot, number, received)
    }

    /// Maps the lent region `received` as the next free data region, in
    /// a capability slot taken from `pool` (given back by
    /// [`Regions::unmap_all_into`], or here if the mapping fails); returns
    /// its number. `Full` if the session has every region it may have,
    /// `PoolEmpty` if every pooled slot is held. The receive slot is
    /// emptied either way.
    pub fn attach_pooled(
        &mut self,
        pool: &mut SlotPool,
        received: Lent,
    ) -> Result<usize, PooledError> {
        let number = self.number(None, received).map_err(PooledError::Region)?;
        let Some(slot) = pool.take() else {
            let _ = Slot(received.0).delete();
            return Err(PooledError::PoolEmpty);
        };
        self.attach_in(slot, number, received).map_err(|e| {
            pool.give(slot);
            PooledError::Region(e)
        })
    }

    /// Maps the lent region `received` as number `number`, in capability
    /// slot `slot`, which the caller owns for this session (a fixed slot,
    /// or one taken from a pool); its window is the slot's. The receive
    /// slot is emptied either way.
    pub fn attach_in(
        &mut self,
        slot: usize,
        number: usize,
        received: Lent,
    ) -> Result<usize, RegionError> {
        let Lent(received) = received;
        if number >= MAX_REGIONS {
            let _ = Slot(received).delete();
            return Err(RegionError::Full);
        }
        let _ = Slot(slot).delete();
        let copied = Slot(received).copy(slot);
        let _ = Slot(received).delete();
        copied.map_err(|_| RegionError::NotARegion)?;
        let vaddr = WINDOW_BASE + slot as u64 * WINDOW_STRIDE;
        let window = Window::map(slot, vaddr, true).map_err(|_| {
            // Not a region, or not writable, or not mappable: refuse it.
            let _ = Slot(slot).delete();
            RegionError::NotARegion
        })?;
        self.windows[number] = Some(window);
        Ok(number)
    }

    /// `number`, or the lowest unused region number; `Full` (with the
    /// receive slot emptied) if there is none.
    fn number(&self, number: Option<usize>, received: Lent) -> Result<usize, RegionError> {
        let number = number
            .or_else(|| self.windows.iter().position(Option::is_none))
            .filter(|n| *n < MAX_REGIONS);
        number.ok_or_else(|| {
            let _ = Slot(received.0).delete();
            RegionError::Full
        })
    }

    /// Region `number`'s window, if mapped.
    pub fn get_mut(&mut self, number: usize) -> Option<&mut Window> {
        self.windows.get_mut(number)?.as_mut()
    }

    /// The mapped regions as the slices a compound executor takes (a gap
    /// ends the list), held in place: every request borrows them, so
    /// nothing is allocated for it.
    pub fn slices(&mut self) -> Slices<'_> {
        let mut slices = Slices {
            slices: Default::default(),
            len: 0,
        };
        for (to, window) in slices.slices.iter_mut().zip(self.windows.iter_mut()) {
            let Some(window) = window else { break };
            *to = window.bytes();
            slices.len += 1;
        }
        slices
    }

    /// Unmaps every region and deletes its capability.
    pub fn unmap_all(&mut self) {
        self.unmap_all_into(&mut SlotPool::new(0, 0));
    }

    /// Unmaps every region, deletes its capability, and gives each slot
    /// that came from `pool` back to it (a fixed slot is not the pool's,
    /// and stays out of it).
    pub fn unmap_all_into(&mut self, pool: &mut SlotPool) {
        for window in self.windows.iter_mut().filter_map(Option::take) {
            let slot = window.slot();
            let _ = window.unmap();
            let _ = Slot(slot).delete();
            pool.give(slot);
        }
    }
}
