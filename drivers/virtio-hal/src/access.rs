//! PCI configuration access to the driver's own function only.

use virtio_drivers::transport::pci::bus::{ConfigurationAccess, DeviceFunction};

/// `virtio-drivers`' name for PCI function `bdf`.
pub fn device_function(bdf: conflux_abi::pci::Bdf) -> DeviceFunction {
    DeviceFunction {
        bus: bdf.bus(),
        device: bdf.device(),
        function: bdf.function(),
    }
}

/// The driver's configuration page, mapped at `page` (4 KiB), answering
/// for function `own` and for nothing else.
#[derive(Debug)]
pub struct OwnFunction {
    page: *mut u32,
    own: DeviceFunction,
}

impl OwnFunction {
    /// # Safety
    /// `page` must be the mapping of `own`'s 4 KiB configuration page,
    /// valid for the rest of the task's life.
    pub unsafe fn new(page: *mut u32, own: DeviceFunction) -> Self {
        Self { page, own }
    }

    /// The function this access answers for.
    pub fn function(&self) -> DeviceFunction {
        self.own
    }

    fn word(&self, df: DeviceFunction, offset: u8) -> Option<*mut u32> {
        // Dword-aligned offsets inside the 256-byte legacy space; anything
        // else, or another function, is not ours.
        (df == self.own && offset.is_multiple_of(4))
            .then(|| self.page.wrapping_add(offset as usize / 4))
    }
}

impl ConfigurationAccess for OwnFunction {
    fn read_word(&self, df: DeviceFunction, offset: u8) -> u32 {
        match self.word(df, offset) {
            // Safety: inside the mapped page (offset < 256), aligned.
            Some(p) => unsafe { p.read_volatile() },
            None => u32::MAX, // what an absent function reads as
        }
    }

    fn write_word(&mut self, df: DeviceFunction, offset: u8, data: u32) {
        if let Some(p) = self.word(df, offset) {
            // Safety: as for `read_word`; the device is the driver's own.
            unsafe { p.write_volatile(data) }
        }
    }

    unsafe fn unsafe_clone(&self) -> Self {
        Self {
            page: self.page,
            own: self.own,
        }
    }
}
