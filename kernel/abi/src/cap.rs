//! Capabilities as tasks see them: slots, rights, and the object kinds a
//! slot can name.
//!
//! Every task has a table of [`CAP_SLOTS`] slots. A slot holds at most one
//! capability: a reference to a kernel object with rights and a badge. A
//! task names objects only through its slots; slot numbers for the
//! capabilities the manifest grants reach the task as generated constants.

/// Slots in every task's capability table.
pub const CAP_SLOTS: usize = 64;

/// Rights a capability carries (a bit set).
pub mod rights {
    /// Receive on an endpoint, wait/poll a notification, map a region readable.
    pub const READ: u8 = 1;
    /// Send/call an endpoint, signal a notification, map a region writable.
    pub const WRITE: u8 = 2;
    /// Transfer a capability through an endpoint.
    pub const GRANT: u8 = 4;
    /// Learn a region's physical addresses (for device DMA).
    pub const DMA: u8 = 8;
    /// Every right.
    pub const ALL: u8 = READ | WRITE | GRANT | DMA;
}

/// Kinds of kernel object a capability can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ObjectKind {
    /// Synchronous IPC rendezvous point, served by one task.
    Endpoint = 1,
    /// A word of signal bits.
    Notification = 2,
    /// Zeroed RAM frames that can be mapped into tasks.
    Region = 3,
    /// A device's physical register range.
    Mmio = 4,
    /// An interrupt line, delivered as a notification bit.
    Irq = 5,
    /// A range of I/O ports.
    IoPorts = 6,
    /// The right to answer one call (made by `recv`).
    Reply = 7,
}

impl ObjectKind {
    /// Decodes a kind byte.
    pub fn from_raw(raw: u8) -> Option<Self> {
        Some(match raw {
            1 => Self::Endpoint,
            2 => Self::Notification,
            3 => Self::Region,
            4 => Self::Mmio,
            5 => Self::Irq,
            6 => Self::IoPorts,
            7 => Self::Reply,
            _ => return None,
        })
    }

    /// Rights that mean something for this kind; others are refused.
    pub fn meaningful_rights(self) -> u8 {
        use rights::*;
        match self {
            Self::Endpoint => READ | WRITE | GRANT,
            Self::Notification => READ | WRITE,
            Self::Region => READ | WRITE | DMA,
            Self::Mmio => READ | WRITE,
            Self::Irq | Self::IoPorts => READ | WRITE,
            Self::Reply => WRITE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip() {
        for k in 1..=7 {
            assert_eq!(ObjectKind::from_raw(k).map(|o| o as u8), Some(k));
        }
        assert_eq!(ObjectKind::from_raw(0), None);
        assert_eq!(ObjectKind::from_raw(8), None);
    }
}
