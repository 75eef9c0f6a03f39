//! Capability misuse: each case must get its own specific error, and the
//! task (and kernel) must carry on.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::cap::{rights, ObjectKind};
use conflux_abi::layout::{REGION_BASE, REGION_END};
use conflux_abi::{SysError, Sysno};
use conflux_userlib::ipc::{Endpoint, Message, Notification, Region, Slot};
use conflux_userlib::sys::{raw_syscall, yield_now};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

const A: usize = caps::FIRST_FREE;
const B: usize = caps::FIRST_FREE + 1;
const C: usize = caps::FIRST_FREE + 2;
const EMPTY: usize = caps::FIRST_FREE + 10;

fn main() {
    let mut c = Checks::new();
    let signal = |slot: u64| raw_syscall(Sysno::Signal as u64, slot, 0, 0).0;
    let code = |e: SysError| e.code();

    c.eq(
        "slot 64 is out of range",
        signal(64),
        code(SysError::InvalidSlot),
    );
    c.eq(
        "slot u64::MAX is out of range",
        signal(u64::MAX),
        code(SysError::InvalidSlot),
    );
    c.eq(
        "empty slot",
        signal(EMPTY as u64),
        code(SysError::EmptySlot),
    );
    c.eq(
        "call on a notification: wrong kind",
        Endpoint(caps::NTFN_RW).call(&Message::new(1, &[])),
        Err(SysError::WrongKind),
    );
    c.eq(
        "signal without the write right",
        Notification(caps::NTFN_R).signal(),
        Err(SysError::MissingRight),
    );
    c.eq(
        "65-word message",
        Endpoint(caps::GONE).call(&Message::new(1, &[]).with_len(65)),
        Err(SysError::TooLong),
    );
    c.eq(
        "transfer without the grant right",
        Endpoint(caps::GONE).call(&Message::new(1, &[]).with_cap(caps::NTFN_RW)),
        Err(SysError::MissingRight),
    );
    for _ in 0..3 {
        yield_now(); // let the quitter run and exit
    }
    c.eq(
        "call to a task that exited",
        Endpoint(caps::GONE).call(&Message::new(1, &[])),
        Err(SysError::DeadPeer),
    );

    // Minting reduces rights and sets badges only where they mean something.
    c.eq(
        "mint read-only copy",
        Slot(caps::NTFN_RW).mint(A, rights::READ, 0),
        Ok(()),
    );
    c.eq(
        "minted copy has only READ",
        Slot(A).info(),
        Ok((ObjectKind::Notification as u8, rights::READ, 0)),
    );
    c.eq(
        "mint into an occupied slot",
        Slot(caps::NTFN_RW).mint(A, rights::ALL, 0),
        Err(SysError::SlotOccupied),
    );
    c.eq(
        "badge on a region",
        Slot(caps::SHARED).mint(B, rights::READ, 5),
        Err(SysError::InvalidArgument),
    );
    c.eq(
        "unknown rights bits",
        Slot(caps::NTFN_RW).mint(B, 0x80, 0),
        Err(SysError::InvalidArgument),
    );

    // Revocation reaches grandchildren and leaves their slots marked.
    c.eq("copy A -> B", Slot(A).copy(B), Ok(()));
    c.eq(
        "revoke removes child and grandchild",
        Slot(caps::NTFN_RW).revoke(),
        Ok(2),
    );
    c.eq(
        "use of a revoked capability",
        Notification(A).poll(),
        Err(SysError::Revoked),
    );
    c.eq(
        "use of a revoked grandchild",
        Notification(B).poll(),
        Err(SysError::Revoked),
    );
    c.eq(
        "revoked slot can be refilled",
        Slot(caps::NTFN_RW).copy(A),
        Ok(()),
    );
    c.eq("delete", Slot(A).delete(), Ok(()));
    c.eq(
        "use after delete",
        Notification(A).poll(),
        Err(SysError::EmptySlot),
    );

    // Regions: mapping is checked against the window, alignment and rights.
    let shared = Region(caps::SHARED);
    const SIZE: usize = caps::SHARED_SIZE;
    c.eq(
        "map twice through one capability",
        shared.map(REGION_BASE + (1 << 30), SIZE, true).map(|_| ()),
        Err(SysError::AlreadyMapped),
    );
    c.eq("unmap", shared.unmap(), Ok(()));
    c.eq("unmap twice", shared.unmap(), Err(SysError::NotMapped));
    let map = |v: u64| shared.map(v, SIZE, true).map(|_| ());
    c.eq(
        "map over the kernel",
        map(0xffff_8000_0000_0000),
        Err(SysError::BadAddress),
    );
    c.eq(
        "map below the region window",
        map(0x40_0000),
        Err(SysError::BadAddress),
    );
    c.eq(
        "map past the region window",
        map(REGION_END - 4096),
        Err(SysError::BadAddress),
    );
    c.eq(
        "map misaligned",
        map(REGION_BASE + 8),
        Err(SysError::BadAddress),
    );
    c.eq(
        "mint read-only region",
        Slot(caps::SHARED).mint(C, rights::READ, 0),
        Ok(()),
    );
    c.eq(
        "map read-only capability writable",
        Region(C)
            .map(REGION_BASE + (2 << 30), SIZE, true)
            .map(|_| ()),
        Err(SysError::MissingRight),
    );
    let m = shared.map(REGION_BASE + (3 << 30), SIZE, true);
    c.that("map at a fresh address", m.is_ok(), m.map(|_| ()));
    if let Ok(m) = m {
        c.eq(
            "write and read back through the mapping",
            m.write_u64(8, 0x1234).and_then(|()| m.read_u64(8)),
            Ok(0x1234),
        );
    }
    c.eq("unmap before the churn", shared.unmap(), Ok(()));
    // Each fresh gigabyte needs new page tables; unless unmapping frees them,
    // 20,000 rounds take ~160 MiB of tables, more than the system has.
    let mut churn_failures = 0;
    for i in 0..20_000u64 {
        let at = REGION_BASE + (4 << 30) + i * (1 << 30);
        if shared.map(at, SIZE, true).is_err() || shared.unmap().is_err() {
            churn_failures += 1;
        }
    }
    c.eq(
        "20000 map/unmap rounds at fresh addresses",
        churn_failures,
        0,
    );
    c.eq(
        "physical address without the DMA right",
        shared.phys(0),
        Err(SysError::MissingRight),
    );
    let p = Region(caps::DMA).phys(4096);
    c.that(
        "physical address with the DMA right",
        p.is_ok_and(|a| a % 4096 == 0 && a != 0),
        p,
    );
    c.eq(
        "offset past the region",
        Region(caps::DMA).phys(1 << 20),
        Err(SysError::InvalidArgument),
    );
    c.finish();
}
