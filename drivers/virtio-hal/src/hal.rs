//! `virtio_drivers::Hal` for a Conflux driver task.

use crate::pool::Pool;
use core::ptr::NonNull;
use spin::Mutex;
use virtio_drivers::{BufferDirection, Hal, PhysAddr};

/// A piece of memory the task has mapped: `len` bytes at virtual `virt`,
/// physical `phys` (physically contiguous).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub virt: u64,
    pub phys: u64,
    pub len: u64,
}

impl Window {
    fn phys_of(&self, virt: u64, len: u64) -> Option<u64> {
        let off = virt.checked_sub(self.virt)?;
        (off.checked_add(len)? <= self.len).then(|| self.phys + off)
    }

    fn virt_of(&self, phys: u64, len: u64) -> Option<u64> {
        let off = phys.checked_sub(self.phys)?;
        (off.checked_add(len)? <= self.len).then(|| self.virt + off)
    }
}

/// The device a driver task drives: where its BARs are mapped, and its pool.
#[derive(Debug)]
pub struct Device {
    /// Mapped BARs (physical address as the device sees it).
    pub bars: [Option<Window>; 6],
    pub pool: Pool,
}

/// Most DMA-capable shared regions one driver knows: clients' data
/// regions, and the pools of the flows it runs (at most 8).
const MAX_SHARED: usize = 16;

struct State {
    device: Device,
    shared: [Option<Window>; MAX_SHARED],
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Sets the task's device up for [`ConfluxHal`]; a second call replaces it.
pub fn install(device: Device) {
    *STATE.lock() = Some(State {
        device,
        shared: [None; MAX_SHARED],
    });
}

/// Declares `window` DMA-capable memory (a client's data region the task
/// mapped, with its physical address from `region_phys`): buffers inside
/// it are handed to the device without a copy. False when full.
pub fn register_shared(window: Window) -> bool {
    let mut st = STATE.lock();
    let Some(st) = st.as_mut() else { return false };
    match st.shared.iter_mut().find(|w| w.is_none()) {
        Some(slot) => {
            *slot = Some(window);
            true
        }
        None => false,
    }
}

/// Forgets `window` (a flow's pool the task is about to unmap): buffers
/// there are no longer handed to the device by physical address, so a
/// later mapping at the same address is never mistaken for it. False if
/// it was not registered.
pub fn unregister_shared(window: Window) -> bool {
    let mut st = STATE.lock();
    let Some(st) = st.as_mut() else { return false };
    match st.shared.iter_mut().find(|w| **w == Some(window)) {
        Some(slot) => {
            *slot = None;
            true
        }
        None => false,
    }
}

/// `pages` zeroed pages of the DMA pool for the task's own use (a block
/// driver's staging buffer): `(phys, virt)`, or `None` when the pool has
/// no room (unlike the HAL's own allocations, which cannot fail softly).
/// Give them back with [`free_pages`].
pub fn alloc_pages(pages: usize) -> Option<(u64, u64)> {
    let (phys, virt) = with(|st| st.device.pool.alloc(pages))?;
    // Safety: pool pages are mapped for the task's life and were handed
    // out just now, so nothing else uses them.
    unsafe { core::ptr::write_bytes(virt as *mut u8, 0, pages * 4096) };
    Some((phys, virt))
}

/// Gives back pages from [`alloc_pages`]; false if they were not out.
pub fn free_pages(phys: u64, pages: usize) -> bool {
    with(|st| st.device.pool.free(phys, pages))
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut st = STATE.lock();
    f(st.as_mut()
        .expect("conflux_virtio_hal::install runs before the device is used"))
}

/// Where a buffer's bytes are for the device without a copy, if anywhere.
fn direct(st: &State, virt: u64, len: u64) -> Option<u64> {
    st.device.pool.phys_of(virt, len).or_else(|| {
        st.shared
            .iter()
            .flatten()
            .find_map(|w| w.phys_of(virt, len))
    })
}

fn pages(len: usize) -> usize {
    len.div_ceil(4096).max(1)
}

/// The HAL type to name in `virtio_drivers` generics.
pub struct ConfluxHal;

// Safety: allocations come from the pool, which is physically contiguous,
// mapped for the task's whole life and handed out once (`Pool` never gives
// a page twice); `share` returns physical addresses of memory that stays
// valid and unaliased until `unshare`, as the trait requires.
unsafe impl Hal for ConfluxHal {
    fn dma_alloc(pages: usize, _direction: BufferDirection) -> (PhysAddr, NonNull<u8>) {
        let (phys, virt) = with(|st| st.device.pool.alloc(pages)).unwrap_or_else(|| {
            panic!("DMA pool exhausted ({pages} pages asked): give the device a larger `dma_pool` in the manifest")
        });
        // Safety: a pool page is mapped (the pool's mapping is never removed).
        unsafe { core::ptr::write_bytes(virt as *mut u8, 0, pages * 4096) };
        (
            phys,
            NonNull::new(virt as *mut u8).expect("pool pages are not at address 0"),
        )
    }

    unsafe fn dma_dealloc(paddr: PhysAddr, _vaddr: NonNull<u8>, pages: usize) -> i32 {
        if with(|st| st.device.pool.free(paddr, pages)) {
            0
        } else {
            -1
        }
    }

    unsafe fn mmio_phys_to_virt(paddr: PhysAddr, size: usize) -> NonNull<u8> {
        let virt = with(|st| {
            st.device
                .bars
                .iter()
                .flatten()
                .find_map(|w| w.virt_of(paddr, size as u64))
        });
        let virt = virt.unwrap_or_else(|| {
            panic!("device registers at {paddr:#x} (+{size:#x}) are not in a BAR this task mapped")
        });
        NonNull::new(virt as *mut u8).expect("BAR windows are not at address 0")
    }

    unsafe fn share(buffer: NonNull<[u8]>, direction: BufferDirection) -> PhysAddr {
        let (virt, len) = (buffer.as_ptr() as *mut u8 as u64, buffer.len());
        with(|st| {
            if let Some(phys) = direct(st, virt, len as u64) {
                return phys;
            }
            let (phys, bounce) = st.device.pool.alloc(pages(len)).unwrap_or_else(|| {
                panic!(
                    "DMA pool exhausted bouncing {len} bytes: give the device a larger `dma_pool`"
                )
            });
            if direction != BufferDirection::DeviceToDriver {
                // Safety: `buffer` is valid for reads for `len` bytes (the
                // trait's contract); the bounce pages are ours and mapped.
                unsafe {
                    core::ptr::copy_nonoverlapping(virt as *const u8, bounce as *mut u8, len)
                };
            }
            phys
        })
    }

    unsafe fn unshare(paddr: PhysAddr, buffer: NonNull<[u8]>, direction: BufferDirection) {
        let (virt, len) = (buffer.as_ptr() as *mut u8 as u64, buffer.len());
        with(|st| {
            if direct(st, virt, len as u64) == Some(paddr) {
                return; // shared in place: nothing was copied
            }
            let bounce = st
                .device
                .pool
                .virt_of(paddr, len as u64)
                .expect("unshare of an address `share` did not hand out");
            if direction != BufferDirection::DriverToDevice {
                // Safety: `buffer` is valid for writes for `len` bytes (the
                // trait's contract), the bounce pages hold the device's data.
                unsafe {
                    core::ptr::copy_nonoverlapping(bounce as *const u8, virt as *mut u8, len)
                };
            }
            st.device.pool.free(paddr, pages(len));
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_window_is_direct_until_unregistered() {
        install(Device {
            bars: [None; 6],
            pool: Pool::new(0x10_0000, 0x20_0000, 0x1000),
        });
        let w = Window {
            virt: 0x6000_0000,
            phys: 0x4000_0000,
            len: 0x2000,
        };
        assert!(register_shared(w));
        assert_eq!(with(|st| direct(st, 0x6000_1000, 0x800)), Some(0x4000_1000));
        assert_eq!(
            with(|st| direct(st, 0x6000_1800, 0x1000)),
            None,
            "past its end"
        );
        assert!(unregister_shared(w));
        assert!(!unregister_shared(w), "only once");
        assert_eq!(with(|st| direct(st, 0x6000_1000, 0x800)), None);
    }
}
