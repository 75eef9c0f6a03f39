//! Lent memory: a region capability sent with `Info::lend` is a lease.
//! Revoking it takes the borrower's authority at once, but its mapping
//! stays until the borrower unmaps or deletes it, or ends; a shared (not
//! lent) region still disappears under its holder on revocation.

use super::mock::LEAKED_MAPPINGS;
use super::sim::{slots, Obj, Sim, E};
use crate::kernel::Next;
use conflux_abi::ipc::Info;
use conflux_abi::layout::REGION_BASE;
use conflux_abi::Sysno::*;

const R: u8 = 1;
const W: u8 = 2;
const G: u8 = 4;
/// Where the server maps what it is given.
const AT: u64 = REGION_BASE + 0x10_0000;
const SIZE: u64 = 8192;

/// Task 0 (client) holds region 0 in slot 3 and endpoint 1 (served by
/// task 1) in slot 5; task 1 receives on slot 4. Task 2 is a bystander
/// served by task 1 too, through slot 6.
fn boot() -> Sim {
    let objects = [
        Obj::Region { size: SIZE },
        Obj::Endpoint { server: 1 },
        Obj::Endpoint { server: 2 },
    ];
    let grants = [
        (0, 3, 0, R | W, 0, 0),
        (0, 5, 1, W | G, 0, 0),
        (1, 4, 1, R, 0, 0),
        (1, 6, 2, W | G, 0, 0),
        (2, 7, 2, R, 0, 0),
    ];
    Sim::boot(&[1, 1, 1], &objects, &grants, false)
}

fn send_info(cap: usize, lend: bool) -> u64 {
    let i = Info::new(7, 0).with_cap(cap);
    if lend { i.lent() } else { i }.encode().unwrap()
}

/// The client sends its region (slot 3) to the server, which receives it
/// into slot 20, copies it into slot 30 as the servers do, and maps the copy.
fn hand_over(s: &mut Sim, lend: bool) -> Info {
    assert_eq!(
        s.sys(1, Recv, [slots(4, 8, 20), 0, 0, 0, 0, 0]),
        Next::Block
    );
    s.sys(0, Send, [5, send_info(3, lend), 0, 0, 0, 0]);
    let got = Info::decode(s.incoming(1).unwrap().info);
    assert_eq!(got.cap, Some(0));
    s.call_ok(1, CapCopy, [20, 30, 0, 0, 0, 0]).unwrap();
    s.call_ok(1, CapDelete, [20, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(
        s.call_ok(1, RegionMap, [30, AT, (R | W) as u64, 0, 0, 0]),
        Ok(SIZE)
    );
    got
}

fn server_maps(s: &mut Sim) -> Vec<(u64, u64)> {
    s.k.task(1).space.as_ref().unwrap().shared.clone()
}

#[test]
fn the_receiver_is_told_the_capability_was_lent_or_shared() {
    let mut s = boot();
    assert!(hand_over(&mut s, true).lend);
    let mut s = boot();
    assert!(!hand_over(&mut s, false).lend);
}

#[test]
fn revoking_a_lent_region_leaves_the_borrowers_mapping_until_it_unmaps() {
    let mut s = boot();
    hand_over(&mut s, true);
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert_eq!(server_maps(&mut s), vec![(AT, SIZE)], "still mapped");
    // The authority is gone: no use, no copy, no second mapping.
    assert_eq!(s.info(1, 30), Err(E::Revoked));
    assert_eq!(s.call_ok(1, CapCopy, [30, 31, 0, 0, 0, 0]), Err(E::Revoked));
    assert_eq!(
        s.call_ok(1, RegionMap, [30, AT + 0x10_0000, R as u64, 0, 0, 0]),
        Err(E::Revoked)
    );
    // Unmapping is the one thing left, and ends the mapping.
    assert_eq!(s.call_ok(1, RegionUnmap, [30, 0, 0, 0, 0, 0]), Ok(0));
    assert!(server_maps(&mut s).is_empty());
    assert_eq!(s.info(1, 30), Err(E::Revoked));
    assert_eq!(
        s.call_ok(1, RegionUnmap, [30, 0, 0, 0, 0, 0]),
        Err(E::Revoked)
    );
}

#[test]
fn revoking_a_shared_region_still_unmaps_it_under_its_holder() {
    let mut s = boot();
    hand_over(&mut s, false);
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert!(server_maps(&mut s).is_empty());
    assert_eq!(s.info(1, 30), Err(E::Revoked));
}

#[test]
fn a_lapsed_lease_occupies_its_slot_until_deleted_and_delete_unmaps() {
    let mut s = boot();
    hand_over(&mut s, true);
    s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]).unwrap();
    // Nothing may land on top of the mapping's only record.
    assert_eq!(
        s.call_ok(1, CapCopy, [6, 30, 0, 0, 0, 0]),
        Err(E::SlotOccupied)
    );
    assert_eq!(s.call_ok(1, CapDelete, [30, 0, 0, 0, 0, 0]), Ok(0));
    assert!(server_maps(&mut s).is_empty());
    assert_eq!(s.info(1, 30), Err(E::EmptySlot));
    assert_eq!(s.call_ok(1, CapCopy, [6, 30, 0, 0, 0, 0]), Ok(0));
}

#[test]
fn a_message_cannot_land_on_a_lapsed_lease() {
    let mut s = boot();
    hand_over(&mut s, true);
    s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]).unwrap();
    // The server now receives with slot 30 as its capability slot.
    s.sys(1, Recv, [slots(4, 8, 30), 0, 0, 0, 0, 0]);
    s.sys(0, Send, [5, send_info(3, true), 0, 0, 0, 0]);
    let got = Info::decode(s.incoming(1).unwrap().info);
    assert_eq!((got.cap, got.cap_dropped), (None, true));
    assert_eq!(server_maps(&mut s), vec![(AT, SIZE)]);
}

#[test]
fn a_lapsed_lease_as_reply_slot_is_not_overwritten_by_a_call() {
    let mut s = boot();
    hand_over(&mut s, true);
    s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]).unwrap();
    // The server names slot 30 as its reply slot; the client calls.
    s.sys(1, Recv, [slots(4, 30, 21), 0, 0, 0, 0, 0]);
    s.sys(0, Call, [5, Info::new(1, 0).encode().unwrap(), 0, 0, 0, 0]);
    assert_eq!(server_maps(&mut s), vec![(AT, SIZE)]);
    assert_eq!(s.call_ok(1, CapDelete, [30, 0, 0, 0, 0, 0]), Ok(0));
    assert!(server_maps(&mut s).is_empty(), "the record was kept");
}

#[test]
fn a_borrower_that_ends_with_a_lapsed_lease_leaves_no_mapping_behind() {
    let mut s = boot();
    hand_over(&mut s, true);
    s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]).unwrap();
    let before = LEAKED_MAPPINGS.with(|l| *l.borrow());
    s.sys(1, Exit, [0; 6]);
    assert_eq!(LEAKED_MAPPINGS.with(|l| *l.borrow()), before);
}

#[test]
fn the_lender_exiting_leaves_the_lease_mapped() {
    let mut s = boot();
    hand_over(&mut s, true);
    s.sys(0, Exit, [0; 6]);
    assert_eq!(server_maps(&mut s), vec![(AT, SIZE)]);
    assert!(s.info(1, 30).is_ok());
}

#[test]
fn a_lease_passed_on_without_lending_is_revoked_in_full() {
    let mut s = boot();
    hand_over(&mut s, true);
    // The server shares its lease with task 2, which maps it.
    s.sys(2, Recv, [slots(7, 8, 20), 0, 0, 0, 0, 0]);
    s.sys(1, Send, [6, send_info(30, false), 0, 0, 0, 0]);
    assert_eq!(
        s.call_ok(2, RegionMap, [20, AT, R as u64, 0, 0, 0]),
        Ok(SIZE)
    );
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(2));
    assert!(s.k.task(2).space.as_ref().unwrap().shared.is_empty());
    assert_eq!(server_maps(&mut s), vec![(AT, SIZE)], "the lease stays");
}

#[test]
fn only_regions_can_be_lent() {
    let mut s = boot();
    s.sys(1, Recv, [slots(4, 8, 20), 0, 0, 0, 0, 0]);
    assert_eq!(
        s.call_ok(0, Send, [5, send_info(5, true), 0, 0, 0, 0]),
        Err(E::WrongKind)
    );
}

#[test]
fn an_unmapped_lease_is_revoked_like_any_capability() {
    let mut s = boot();
    hand_over(&mut s, true);
    s.call_ok(1, RegionUnmap, [30, 0, 0, 0, 0, 0]).unwrap();
    s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(s.info(1, 30), Err(E::Revoked));
    assert_eq!(
        s.call_ok(1, CapCopy, [6, 30, 0, 0, 0, 0]),
        Ok(0),
        "a plain revoked slot is free"
    );
}

#[test]
fn revoking_a_shared_region_unmaps_it_under_a_holder_running_on_another_cpu() {
    let mut s = boot();
    s.k.placement.place(1, 1);
    hand_over(&mut s, false);
    s.cpu.index = 1;
    assert_eq!(
        s.k.schedule(&mut s.cpu, Next::Block),
        crate::kernel::Decision::Run(1),
        "the holder runs on CPU 1"
    );
    s.cpu.index = 0;
    assert_eq!(s.call_ok(0, CapRevoke, [3, 0, 0, 0, 0, 0]), Ok(1));
    assert!(
        server_maps(&mut s).is_empty(),
        "unmapped under the running holder (the machine shoots its TLB down)"
    );
    assert_eq!(s.info(1, 30), Err(E::Revoked));
}
