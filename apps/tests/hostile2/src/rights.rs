//! Rights never grow: every capability the task holds has at most the
//! rights its kind had among the initial capabilities (reply capabilities:
//! WRITE, the only right they carry).

use conflux_abi::cap::{rights, ObjectKind, CAP_SLOTS};
use conflux_userlib::ipc::Slot;

/// Rights allowed per kind byte (index = kind).
pub struct Allowed([u8; 8]);

impl Allowed {
    /// The union of the initial capabilities' rights, per kind.
    pub fn from_initial() -> Self {
        let mut a = [0u8; 8];
        a[ObjectKind::Reply as usize] = rights::WRITE;
        for slot in 1..crate::FIRST_FREE {
            if let Ok((kind, r, _)) = Slot(slot).info() {
                a[kind as usize % 8] |= r;
            }
        }
        Self(a)
    }

    /// The first slot whose rights exceed its kind's: (slot, kind, rights).
    pub fn first_excess(&self) -> Option<(usize, u8, u8)> {
        (1..CAP_SLOTS).find_map(|slot| {
            let (kind, r, _) = Slot(slot).info().ok()?;
            (r & !self.0[kind as usize % 8] != 0).then_some((slot, kind, r))
        })
    }
}
