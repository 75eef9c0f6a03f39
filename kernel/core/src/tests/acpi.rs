//! The firmware-table checks: RSDP, root table and MADT, from literal bytes
//! (QEMU q35's layout) and from each kind of damage.

use crate::acpi::{
    check_table, madt_lapics, parse_rsdp, root_entries, table_length, AcpiError, Root, MAX_LAPICS,
};

/// Sets byte `at` so that the whole of `bytes` sums to zero.
fn fix_checksum(bytes: &mut [u8], at: usize) {
    bytes[at] = 0;
    let sum = bytes.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    bytes[at] = 0u8.wrapping_sub(sum);
}

/// An RSDP of `revision` pointing at RSDT 0x7fe2000 and XSDT 0x7fe3000.
fn rsdp(revision: u8) -> [u8; 36] {
    let mut b = [0u8; 36];
    b[..8].copy_from_slice(b"RSD PTR ");
    b[9..15].copy_from_slice(b"BOCHS ");
    b[15] = revision;
    b[16..20].copy_from_slice(&0x07fe_2000u32.to_le_bytes());
    b[20..24].copy_from_slice(&36u32.to_le_bytes());
    b[24..32].copy_from_slice(&0x07fe_3000u64.to_le_bytes());
    fix_checksum(&mut b[..20], 8);
    fix_checksum(&mut b, 32);
    b
}

/// A table with `signature` and `body` after the 36-byte header.
fn table(signature: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut t = vec![0u8; 36];
    t[..4].copy_from_slice(signature);
    t[4..8].copy_from_slice(&((36 + body.len()) as u32).to_le_bytes());
    t[8] = 1;
    t.extend_from_slice(body);
    fix_checksum(&mut t, 9);
    t
}

/// A MADT body: local APIC address and flags, then `entries`.
fn madt(entries: &[&[u8]]) -> Vec<u8> {
    let mut body = vec![0x00, 0x00, 0xe0, 0xfe, 1, 0, 0, 0];
    for e in entries {
        body.extend_from_slice(e);
    }
    table(b"APIC", &body)
}

/// A processor local APIC entry: ACPI id, APIC id, flags.
fn lapic(uid: u8, id: u8, flags: u32) -> [u8; 8] {
    let f = flags.to_le_bytes();
    [0, 8, uid, id, f[0], f[1], f[2], f[3]]
}

#[test]
fn rsdp_revision_2_names_the_xsdt() {
    let root = parse_rsdp(&rsdp(2)).unwrap();
    assert_eq!(
        root,
        Root {
            phys: 0x07fe_3000,
            wide: true
        }
    );
}

#[test]
fn rsdp_revision_0_names_the_rsdt() {
    let root = parse_rsdp(&rsdp(0)[..20]).unwrap();
    assert_eq!(
        root,
        Root {
            phys: 0x07fe_2000,
            wide: false
        }
    );
}

#[test]
fn rsdp_damage_is_refused() {
    let mut b = rsdp(2);
    b[0] = b'X';
    assert_eq!(parse_rsdp(&b), Err(AcpiError::NoRsdp));
    let mut b = rsdp(2);
    b[16] ^= 1;
    assert_eq!(parse_rsdp(&b), Err(AcpiError::BadChecksum("RSDP")));
    let mut b = rsdp(2);
    b[30] ^= 1;
    assert_eq!(
        parse_rsdp(&b),
        Err(AcpiError::BadChecksum("RSDP (extended part)"))
    );
    assert_eq!(parse_rsdp(&rsdp(2)[..10]), Err(AcpiError::NoRsdp));
}

#[test]
fn root_tables_list_their_pointers() {
    let mut body = Vec::new();
    body.extend_from_slice(&0x1000u64.to_le_bytes());
    body.extend_from_slice(&0x2000u64.to_le_bytes());
    let xsdt = table(b"XSDT", &body);
    check_table(&xsdt, b"XSDT", "XSDT").unwrap();
    assert_eq!(
        root_entries(&xsdt, true).collect::<Vec<_>>(),
        [0x1000, 0x2000]
    );
    let rsdt = table(b"RSDT", &[0x00, 0x30, 0, 0, 0x00, 0x40, 0, 0]);
    assert_eq!(
        root_entries(&rsdt, false).collect::<Vec<_>>(),
        [0x3000, 0x4000]
    );
}

#[test]
fn table_checks_name_the_damage() {
    let t = table(b"APIC", &[0; 8]);
    assert_eq!(
        check_table(&t, b"XSDT", "XSDT"),
        Err(AcpiError::WrongSignature("XSDT"))
    );
    assert_eq!(
        check_table(&t[..40], b"APIC", "MADT"),
        Err(AcpiError::BadLength("MADT"))
    );
    let mut bad = t.clone();
    bad[40] ^= 1;
    assert_eq!(
        check_table(&bad, b"APIC", "MADT"),
        Err(AcpiError::BadChecksum("MADT"))
    );
    let mut short = t.clone();
    short[4..8].copy_from_slice(&20u32.to_le_bytes());
    assert_eq!(
        table_length(&short, "MADT"),
        Err(AcpiError::BadLength("MADT"))
    );
    assert_eq!(table_length(&t, "MADT"), Ok(44));
}

#[test]
fn madt_of_a_two_cpu_q35_lists_both() {
    // Two processors, an I/O APIC (type 1) and an override (type 2) between.
    let ioapic = [1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0];
    let over = [2, 10, 0, 0, 2, 0, 0, 0, 0, 0];
    let t = madt(&[&lapic(0, 0, 1), &ioapic, &over, &lapic(1, 1, 1)]);
    check_table(&t, b"APIC", "MADT").unwrap();
    let l = madt_lapics(&t).unwrap();
    assert_eq!(l.ids(), [0, 1]);
    assert_eq!(l.dropped, 0);
}

#[test]
fn madt_skips_disabled_and_hot_plug_processors() {
    let t = madt(&[
        &lapic(0, 0, 1),
        &lapic(1, 1, 0),
        &lapic(2, 2, 2),
        &lapic(3, 5, 1),
    ]);
    assert_eq!(madt_lapics(&t).unwrap().ids(), [0, 5]);
}

#[test]
fn madt_reads_x2apic_entries() {
    let mut x2 = [0u8; 16];
    x2[0] = 9;
    x2[1] = 16;
    x2[4..8].copy_from_slice(&300u32.to_le_bytes());
    x2[8] = 1;
    let t = madt(&[&lapic(0, 0, 1), &x2]);
    assert_eq!(madt_lapics(&t).unwrap().ids(), [0, 300]);
}

#[test]
fn madt_counts_processors_past_the_limit() {
    let entries: Vec<[u8; 8]> = (0..MAX_LAPICS as u8 + 3).map(|i| lapic(i, i, 1)).collect();
    let refs: Vec<&[u8]> = entries.iter().map(|e| &e[..]).collect();
    let l = madt_lapics(&madt(&refs)).unwrap();
    assert_eq!(l.ids().len(), MAX_LAPICS);
    assert_eq!(l.dropped, 3);
}

#[test]
fn madt_malformed_entries_are_refused() {
    // An entry of length 0 would loop forever; one past the end reads past it.
    let zero = madt(&[&lapic(0, 0, 1), &[0x7f, 0]]);
    assert_eq!(madt_lapics(&zero), Err(AcpiError::BadEntry { offset: 52 }));
    let long = madt(&[&[0x7f, 40, 0, 0]]);
    assert_eq!(madt_lapics(&long), Err(AcpiError::BadEntry { offset: 44 }));
    // A processor entry too short for its fields.
    let short = madt(&[&[0, 4, 0, 0]]);
    assert_eq!(madt_lapics(&short), Err(AcpiError::BadEntry { offset: 44 }));
}
