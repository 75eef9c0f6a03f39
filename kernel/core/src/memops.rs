//! Regions, device memory and I/O ports through capabilities.
//!
//! A region capability can be mapped once, inside the region window of the
//! holder's address space, with at most the capability's rights. Deleting
//! or revoking the capability removes the mapping, and so does the
//! holder's death, before its address space is destroyed. A DMA right
//! reveals the physical address behind a region byte, for devices.
//! All arithmetic on task-supplied values is checked.

use crate::cap::{Cap, Slot};
use crate::capops::unmap_in;
use crate::cspace::NodeId;
use crate::kernel::Kernel;
use crate::machine::Machine;
use crate::object::{Object, Objects};
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::layout::{PAGE_SIZE, REGION_BASE, REGION_END};
use conflux_abi::SysError;

/// The physical range behind a region or MMIO capability: (phys, size, device).
pub fn memory_of(objects: &Objects, cap: &Cap) -> Option<(u64, u64, bool)> {
    match (cap.obj.kind(), objects.get(cap.obj.object()?)) {
        (ObjectKind::Region | ObjectKind::Mmio, Object::Memory { phys, size, device }) => {
            Some((phys, size, device))
        }
        _ => None,
    }
}

impl<M: Machine> Kernel<M> {
    /// Maps the memory behind `cap` into task `t` at `vaddr` with `want` rights.
    pub fn map_cap(&mut self, t: usize, cap: &Cap, vaddr: u64, want: u8) -> Result<(), SysError> {
        let (phys, size, device) = memory_of(&self.objects, cap).ok_or(SysError::WrongKind)?;
        if want & rights::READ == 0 || want & !(rights::READ | rights::WRITE | rights::DMA) != 0 {
            return Err(SysError::InvalidArgument);
        }
        if want & !cap.rights != 0 {
            return Err(SysError::MissingRight);
        }
        let end = vaddr.checked_add(size).ok_or(SysError::BadAddress)?;
        if !vaddr.is_multiple_of(PAGE_SIZE) || vaddr < REGION_BASE || end > REGION_END {
            return Err(SysError::BadAddress);
        }
        let space = self.task(t).space.as_mut().ok_or(SysError::DeadPeer)?;
        M::map_shared(space, vaddr, phys, size, want & rights::WRITE != 0, device)?;
        Ok(())
    }

    /// If `node` (of task `t`) holds a lapsed lease, undoes the mapping it
    /// kept and leaves `then` in the slot; true if it did.
    pub(crate) fn let_go_of_lapsed(&mut self, t: usize, node: NodeId, then: Slot) -> bool {
        match self.caps.take_lapsed(node, then) {
            Some(lapsed) => {
                self.unmap_cap(t, &lapsed);
                true
            }
            None => false,
        }
    }

    /// Removes the mapping `cap` made in task `t`, if any.
    pub fn unmap_cap(&mut self, t: usize, cap: &Cap) {
        let objects = &self.objects;
        if let Some(task) = self.tasks[t].as_mut() {
            unmap_in(task, objects, cap);
        }
    }

    /// `region_map(slot, vaddr, rights) -> bytes mapped`: the size comes
    /// back so a task that received the capability from another (a server
    /// given a client's region) learns it from the kernel, not the sender.
    pub fn sys_map(
        &mut self,
        me: usize,
        slot: u64,
        vaddr: u64,
        want: u64,
    ) -> Result<u64, SysError> {
        let node = NodeId::slot(me, slot)?;
        let cap = *self.caps.get(node)?;
        if cap.mapped_at != 0 {
            return Err(SysError::AlreadyMapped);
        }
        let (_, size, _) = memory_of(&self.objects, &cap).ok_or(SysError::WrongKind)?;
        let want = u8::try_from(want).map_err(|_| SysError::InvalidArgument)?;
        self.map_cap(me, &cap, vaddr, want)?;
        self.caps.get_mut(node)?.mapped_at = vaddr;
        Ok(size)
    }

    /// `region_unmap(slot)`. Also ends a lapsed lease's mapping, which is
    /// the one thing its holder can still do with it.
    pub fn sys_unmap(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let node = NodeId::slot(me, slot)?;
        if self.let_go_of_lapsed(me, node, Slot::Revoked) {
            return Ok(0);
        }
        let cap = *self.caps.get(node)?;
        memory_of(&self.objects, &cap).ok_or(SysError::WrongKind)?;
        if cap.mapped_at == 0 {
            return Err(SysError::NotMapped);
        }
        self.unmap_cap(me, &cap);
        self.caps.get_mut(node)?.mapped_at = 0;
        Ok(0)
    }

    /// `region_phys(slot, offset)`: needs the DMA right.
    pub fn sys_phys(&mut self, me: usize, slot: u64, offset: u64) -> Result<u64, SysError> {
        let cap = *self.caps.get(NodeId::slot(me, slot)?)?;
        let (phys, size, _) = memory_of(&self.objects, &cap).ok_or(SysError::WrongKind)?;
        if cap.rights & rights::DMA == 0 {
            return Err(SysError::MissingRight);
        }
        if offset >= size {
            return Err(SysError::InvalidArgument);
        }
        phys.checked_add(offset).ok_or(SysError::InvalidArgument)
    }

    /// Checks an I/O-port access against the capability in `slot`.
    fn port_access(
        &self,
        me: usize,
        slot: u64,
        port: u64,
        width: u64,
        need: u8,
    ) -> Result<u16, SysError> {
        let cap = self
            .caps
            .lookup(NodeId::slot(me, slot)?, ObjectKind::IoPorts, need)?;
        let Object::IoPorts { base, count } =
            self.objects.get(cap.obj.object().unwrap_or(u16::MAX))
        else {
            return Err(SysError::WrongKind);
        };
        let end = port.checked_add(width).ok_or(SysError::InvalidArgument)?;
        let limit = base as u64 + count as u64;
        if !matches!(width, 1 | 2 | 4) || port < base as u64 || end > limit {
            return Err(SysError::InvalidArgument);
        }
        u16::try_from(port).map_err(|_| SysError::InvalidArgument)
    }

    /// `io_in(slot, port, width)`.
    pub fn sys_io_in(
        &mut self,
        me: usize,
        slot: u64,
        port: u64,
        width: u64,
    ) -> Result<u64, SysError> {
        let p = self.port_access(me, slot, port, width, rights::READ)?;
        Ok(M::port_in(p, width as u8) as u64)
    }

    /// `io_out(slot, port, width, value)`.
    pub fn sys_io_out(
        &mut self,
        me: usize,
        slot: u64,
        port: u64,
        width: u64,
        value: u64,
    ) -> Result<u64, SysError> {
        let p = self.port_access(me, slot, port, width, rights::WRITE)?;
        M::port_out(p, width as u8, value as u32);
        Ok(0)
    }
}
