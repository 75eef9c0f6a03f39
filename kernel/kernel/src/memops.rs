//! Regions, device memory and I/O ports through capabilities.
//!
//! A region capability can be mapped once, inside the region window of the
//! holder's address space, with at most the capability's rights. Deleting or
//! revoking the capability removes the mapping. A DMA right reveals the
//! physical address behind a region byte, which drivers hand to devices.

use crate::arch::port;
use crate::cap::{Cap, ObjRef};
use crate::object::Object;
use crate::sched::Kernel;
use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::layout::{PAGE_SIZE, REGION_BASE, REGION_END};
use conflux_abi::SysError;

impl Kernel {
    /// The physical range behind a region or MMIO capability.
    fn memory_of(&self, cap: &Cap) -> Result<(u64, u64, bool), SysError> {
        match cap.obj {
            ObjRef::Object(ObjectKind::Region | ObjectKind::Mmio, obj) => {
                match self.objects.table[obj as usize] {
                    Object::Memory { phys, size, device } => Ok((phys, size, device)),
                    _ => Err(SysError::WrongKind),
                }
            }
            _ => Err(SysError::WrongKind),
        }
    }

    /// Maps the memory behind `cap` into task `t` at `vaddr` with `want` rights.
    pub fn map_object(
        &mut self,
        t: usize,
        cap: &Cap,
        vaddr: u64,
        want: u8,
    ) -> Result<(), SysError> {
        let (phys, size, device) = self.memory_of(cap)?;
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
        let writable = want & rights::WRITE != 0;
        for off in (0..size).step_by(PAGE_SIZE as usize) {
            if let Err(e) = space.map_frame(vaddr + off, phys + off, writable, device) {
                space.unmap_range(vaddr, off);
                return Err(match e {
                    crate::arch::paging::MapError::OutOfMemory => SysError::OutOfMemory,
                    crate::arch::paging::MapError::AlreadyMapped => SysError::AlreadyMapped,
                });
            }
        }
        Ok(())
    }

    /// Removes the mapping `cap` made in task `t`, if any.
    pub fn unmap_cap(&mut self, t: usize, cap: &Cap) {
        if cap.mapped_at == 0 {
            return;
        }
        let Ok((_, size, _)) = self.memory_of(cap) else {
            return;
        };
        if let Some(space) = self.task(t).space.as_mut() {
            space.unmap_range(cap.mapped_at, size);
        }
    }

    /// `region_map(slot, vaddr, rights)`.
    pub fn sys_map(
        &mut self,
        me: usize,
        slot: u64,
        vaddr: u64,
        want: u64,
    ) -> Result<u64, SysError> {
        let cap = *self.task(me).caps.get(slot)?;
        self.memory_of(&cap)?;
        if cap.mapped_at != 0 {
            return Err(SysError::AlreadyMapped);
        }
        let want = u8::try_from(want).map_err(|_| SysError::InvalidArgument)?;
        self.map_object(me, &cap, vaddr, want)?;
        self.task(me).caps.get_mut(slot)?.mapped_at = vaddr;
        Ok(0)
    }

    /// `region_unmap(slot)`.
    pub fn sys_unmap(&mut self, me: usize, slot: u64) -> Result<u64, SysError> {
        let cap = *self.task(me).caps.get(slot)?;
        self.memory_of(&cap)?;
        if cap.mapped_at == 0 {
            return Err(SysError::NotMapped);
        }
        self.unmap_cap(me, &cap);
        self.task(me).caps.get_mut(slot)?.mapped_at = 0;
        Ok(0)
    }

    /// `region_phys(slot, offset)`: needs the DMA right.
    pub fn sys_phys(&mut self, me: usize, slot: u64, offset: u64) -> Result<u64, SysError> {
        let cap = *self.task(me).caps.get(slot)?;
        let (phys, size, _) = self.memory_of(&cap)?;
        if cap.rights & rights::DMA == 0 {
            return Err(SysError::MissingRight);
        }
        if offset >= size {
            return Err(SysError::InvalidArgument);
        }
        Ok(phys + offset)
    }

    /// Checks an I/O-port access against the capability in `slot`.
    fn port_access(
        &mut self,
        me: usize,
        slot: u64,
        port: u64,
        width: u64,
        right: u8,
    ) -> Result<u16, SysError> {
        let cap = self
            .task(me)
            .caps
            .lookup(slot, ObjectKind::IoPorts, right)?;
        let ObjRef::Object(_, obj) = cap.obj else {
            return Err(SysError::WrongKind);
        };
        let Object::IoPorts { base, count } = self.objects.table[obj as usize] else {
            return Err(SysError::WrongKind);
        };
        if !matches!(width, 1 | 2 | 4)
            || port < base as u64
            || port + width > base as u64 + count as u64
        {
            return Err(SysError::InvalidArgument);
        }
        Ok(port as u16)
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
        Ok(port::read(p, width as u8) as u64)
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
        port::write(p, width as u8, value as u32);
        Ok(0)
    }
}
