//! What the random calls may not do, so that the run keeps going and its
//! bookkeeping stays true: never exit or panic, never block (a `wait` becomes a
//! `poll`; a receive on an endpoint capability becomes a `yield`, since
//! only the deliberate receive in `serve` knows a caller is pending), never
//! print our own memory, never delete or revoke an initial capability or
//! the reply slot, and never name the `life` region that counts
//! incarnations.

use crate::{REPLY_SLOT, SINK};
use conflux_abi::cap::ObjectKind;
use conflux_abi::syscall::unpack_slots;
use conflux_abi::Sysno;
use conflux_userlib::ipc::Slot;

/// Makes random call `num` with arguments `a` harmless to the run; returns
/// the number to use instead.
pub fn tame(num: u64, a: &mut [u64; 6], coin: bool) -> u64 {
    for arg in a.iter_mut() {
        if *arg == crate::LIFE as u64 {
            *arg = 0; // slot 0 is always empty
        }
    }
    match Sysno::from_raw(num) {
        Some(Sysno::Exit | Sysno::Panic) => Sysno::Yield as u64,
        Some(Sysno::Wait) => Sysno::Poll as u64,
        Some(Sysno::DebugWrite) => {
            a[0] |= 0xffff_0000_0000_0000; // never a pointer into our memory
            num
        }
        Some(Sysno::CapDelete | Sysno::CapRevoke) if protected(a[0]) => {
            a[0] = 0;
            num
        }
        Some(Sysno::Call | Sysno::Send) => {
            if coin {
                a[0] = SINK as u64; // reach the sink often, not just by chance
            }
            num
        }
        Some(Sysno::Recv | Sysno::ReplyRecv) if receives(a[0]) => Sysno::Yield as u64,
        _ => num,
    }
}

/// Initial capabilities and the slot where callers' reply capabilities land.
fn protected(slot: u64) -> bool {
    slot < crate::FIRST_FREE as u64 || slot == REPLY_SLOT as u64
}

/// Whether a receive with these packed slots could block: its endpoint
/// slot holds an endpoint capability.
fn receives(packed: u64) -> bool {
    let Ok((ep, _, _)) = unpack_slots(packed) else {
        return false; // the kernel refuses it before it could block
    };
    Slot(ep)
        .info()
        .is_ok_and(|(kind, _, _)| kind == ObjectKind::Endpoint as u8)
}
