//! The regions a Cosy server's clients share with it (feature `server`).
//!
//! Regions arrive by capability transfer into the server's receive slot,
//! and only lent ones are taken ([`Lent`]): a lent region stays mapped in
//! the server until the server unmaps it, whatever the client revokes,
//! so no client can make the server fault by pulling memory from under
//! it. Each client slot of the server has fixed capability slots and a fixed
//! stretch of the region window for its regions ([`Layout`]), so one
//! client's regions can never land on another's; the kernel reports each
//! region's size when mapping it, so a client cannot claim a larger one.
//! The control region is number 0, data regions 1.. ([`MAX_REGIONS`]).

use core::ops::{Deref, DerefMut};

use conflux_abi::layout::REGION_BASE;
use conflux_userlib::ipc::{Message, Slot};
use conflux_userlib::window::Window;

use crate::MAX_REGIONS;

/// Where client `i`'s region `j` lives: capability slot and address.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// First capability slot for client regions: client `i`'s region `j`
    /// lives in `cap_base + i * MAX_REGIONS + j`.
    pub cap_base: usize,
}

/// Client regions are mapped far above the manifest's own mappings,
/// 128 MiB apart (the largest region is 64 MiB).
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
    /// ATTACH when `number` is `None`); returns its number. The receive
    /// slot is emptied either way.
    pub fn attach(
        &mut self,
        layout: Layout,
        index: usize,
        number: Option<usize>,
        received: Lent,
    ) -> Result<usize, RegionError> {
        let Lent(received) = received;
        let number = number
            .or_else(|| self.windows.iter().position(Option::is_none))
            .filter(|n| *n < MAX_REGIONS)
            .ok_or(RegionError::Full);
        let number = match number {
            Ok(n) => n,
            Err(e) => {
                let _ = Slot(received).delete();
                return Err(e);
            }
        };
        let at = index * MAX_REGIONS + number;
        let slot = layout.cap_base + at;
        let _ = Slot(slot).delete();
        let copied = Slot(received).copy(slot);
        let _ = Slot(received).delete();
        copied.map_err(|_| RegionError::NotARegion)?;
        let vaddr = WINDOW_BASE + at as u64 * WINDOW_STRIDE;
        let window = Window::map(slot, vaddr, true).map_err(|_| {
            // Not a region, or not writable, or not mappable: refuse it.
            let _ = Slot(slot).delete();
            RegionError::NotARegion
        })?;
        self.windows[number] = Some(window);
        Ok(number)
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
        for window in self.windows.iter_mut().filter_map(Option::take) {
            let slot = window.slot();
            let _ = window.unmap();
            let _ = Slot(slot).delete();
        }
    }
}
