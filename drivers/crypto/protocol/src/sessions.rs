//! The driver's table of one client's sessions: what a session value in a
//! request means, and the only way a client's request reaches a device
//! session.
//!
//! A client never sees the device's session ids (they are global to the
//! device, so one client could name another's). It gets a handle, valid
//! only in its own table:
//!
//! ```text
//! handle = generation << 32 | n      n = 1, 2, ... per client
//! ```
//!
//! The generation changes whenever the device loses its sessions (the
//! driver restarted, or reset the device after a failure), which is how a
//! handle from before is told apart from a made-up one: it gets
//! `SessionLost` rather than `UnknownSession`.

use crate::{Direction, Status, MAX_SESSIONS};
use alloc::collections::BTreeMap;

/// A session as the driver knows it: the device's id and its direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Open<T> {
    pub device: T,
    pub dir: Direction,
}

/// One client's sessions, for device session ids of type `T`.
#[derive(Debug)]
pub struct Sessions<T> {
    generation: u32,
    next: u32,
    open: BTreeMap<u64, Open<T>>,
}

impl<T: Copy> Sessions<T> {
    pub fn new(generation: u32) -> Self {
        Self {
            generation,
            next: 1,
            open: BTreeMap::new(),
        }
    }

    /// Sessions open.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Whether another session may be created.
    pub fn has_room(&self) -> bool {
        self.open.len() < MAX_SESSIONS
    }

    /// Records a session the device created; returns the client's handle,
    /// or `TooManySessions` (then the caller destroys the device's session).
    pub fn insert(&mut self, device: T, dir: Direction) -> Result<u64, Status> {
        if !self.has_room() {
            return Err(Status::TooManySessions);
        }
        // n never repeats within a generation: after 2^32 - 1 sessions the
        // counter would wrap, so it stops at u32::MAX (TooManySessions).
        let n = self.next;
        self.next = n.checked_add(1).ok_or(Status::TooManySessions)?;
        let handle = u64::from(self.generation) << 32 | u64::from(n);
        self.open.insert(handle, Open { device, dir });
        Ok(handle)
    }

    /// The session `handle` names.
    pub fn get(&self, handle: u64) -> Result<Open<T>, Status> {
        self.open
            .get(&handle)
            .copied()
            .ok_or_else(|| self.missing(handle))
    }

    /// Forgets `handle`, returning the device session to destroy.
    pub fn remove(&mut self, handle: u64) -> Result<Open<T>, Status> {
        self.open
            .remove(&handle)
            .ok_or_else(|| self.missing(handle))
    }

    /// Forgets every session, returning the device sessions to destroy.
    pub fn take_all(&mut self) -> impl Iterator<Item = T> {
        core::mem::take(&mut self.open)
            .into_values()
            .map(|o| o.device)
    }

    /// The device lost every session: forget them, and call handles made
    /// before `generation` lost.
    pub fn lose_all(&mut self, generation: u32) {
        self.open.clear();
        self.generation = generation;
        self.next = 1;
    }

    fn missing(&self, handle: u64) -> Status {
        let generation = (handle >> 32) as u32;
        let n = handle as u32;
        // A handle of an earlier generation, well formed, was real once.
        if generation < self.generation && n != 0 {
            Status::SessionLost
        } else {
            Status::UnknownSession
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_only_this_tables_sessions() {
        let mut a = Sessions::new(3);
        let mut b = Sessions::new(3);
        let ha = a.insert(100u64, Direction::Encrypt).unwrap();
        let hb = b.insert(200u64, Direction::Decrypt).unwrap();
        assert_eq!(ha >> 32, 3);
        assert_eq!(a.get(ha).map(|o| o.device), Ok(100));
        assert_eq!(b.get(hb).map(|o| o.dir), Ok(Direction::Decrypt));
        // Both are the first of their table: the same handle, but each
        // table maps it to its own client's session only.
        assert_eq!(ha, hb);
        assert_eq!(a.get(ha + 1), Err(Status::UnknownSession));
        assert_eq!(a.get(0), Err(Status::UnknownSession));
        assert_eq!(
            a.get(4 << 32 | 1),
            Err(Status::UnknownSession),
            "a future generation"
        );
        assert_eq!(a.remove(ha).map(|o| o.device), Ok(100));
        assert_eq!(a.get(ha), Err(Status::UnknownSession), "destroyed");
        assert_eq!(a.remove(ha), Err(Status::UnknownSession));
    }

    #[test]
    fn after_a_device_reset_old_handles_are_lost_and_new_ones_work() {
        let mut s = Sessions::new(0);
        let old = s.insert(1u64, Direction::Encrypt).unwrap();
        s.lose_all(1);
        assert_eq!(s.get(old), Err(Status::SessionLost));
        assert_eq!(s.get(0), Err(Status::UnknownSession), "never a handle");
        let new = s.insert(2u64, Direction::Encrypt).unwrap();
        assert_ne!(new, old);
        assert_eq!(s.get(new).map(|o| o.device), Ok(2));
    }

    #[test]
    fn a_client_cannot_open_more_than_its_share() {
        let mut s = Sessions::new(0);
        for i in 0..MAX_SESSIONS as u64 {
            s.insert(i, Direction::Encrypt).unwrap();
        }
        assert!(!s.has_room());
        assert_eq!(
            s.insert(99, Direction::Encrypt),
            Err(Status::TooManySessions)
        );
        let all: alloc::vec::Vec<u64> = s.take_all().collect();
        assert_eq!(all.len(), MAX_SESSIONS);
        assert!(s.has_room());
    }
}
