//! Finding the processors through the firmware's ACPI tables.
//!
//! The RSDP comes from the PVH start info, or failing that from a scan of
//! the BIOS area (0xe0000..0x100000) where ACPI 1.0 says it may lie. Every
//! table is read through the direct map after its address and length are
//! checked against it, and checked by `conflux_kcore::acpi` before use.

use crate::arch::paging::{phys_to_virt, DIRECT_MAP_SIZE};
use conflux_kcore::acpi::{self, AcpiError, Lapics, RSDP_V2_LEN, SDT_HEADER_LEN};

/// Longest table the kernel reads; QEMU's MADT for 8 CPUs is under 200 bytes.
const MAX_TABLE: usize = 64 * 1024;
const BIOS_AREA: (u64, u64) = (0xe_0000, 0x10_0000);

/// `len` bytes of physical memory at `phys`, if they lie in the direct map.
fn phys_bytes(phys: u64, len: usize) -> Option<&'static [u8]> {
    let end = phys.checked_add(len as u64)?;
    if phys == 0 || end > DIRECT_MAP_SIZE {
        return None;
    }
    // Safety: the range lies inside the direct map (checked above), which
    // maps all of the first 4 GiB for the kernel's whole life; firmware
    // tables are only read.
    Some(unsafe { core::slice::from_raw_parts(phys_to_virt(phys), len) })
}

/// A whole table at `phys`: its header first, then the length it claims.
fn table(phys: u64, sig: &[u8; 4], name: &'static str) -> Result<&'static [u8], AcpiError> {
    let header = phys_bytes(phys, SDT_HEADER_LEN).ok_or(AcpiError::BadLength(name))?;
    if &header[..4] != sig {
        return Err(AcpiError::WrongSignature(name));
    }
    let len = acpi::table_length(header, name)?;
    if len > MAX_TABLE {
        return Err(AcpiError::BadLength(name));
    }
    let t = phys_bytes(phys, len).ok_or(AcpiError::BadLength(name))?;
    acpi::check_table(t, sig, name)?;
    Ok(t)
}

fn find_rsdp(hint: u64) -> Result<acpi::Root, AcpiError> {
    if let Some(b) = phys_bytes(hint, RSDP_V2_LEN) {
        return acpi::parse_rsdp(b);
    }
    (BIOS_AREA.0..BIOS_AREA.1)
        .step_by(16)
        .filter_map(|p| phys_bytes(p, RSDP_V2_LEN))
        .find(|b| &b[..8] == b"RSD PTR ")
        .map_or(Err(AcpiError::NoRsdp), acpi::parse_rsdp)
}

/// The enabled processors the MADT lists. `rsdp_hint` is the start info's
/// RSDP address (0 if the loader gave none).
pub fn processors(rsdp_hint: u64) -> Result<Lapics, AcpiError> {
    let root = find_rsdp(rsdp_hint)?;
    let (sig, name) = if root.wide {
        (b"XSDT", "XSDT")
    } else {
        (b"RSDT", "RSDT")
    };
    let root_table = table(root.phys, sig, name)?;
    let madt = acpi::root_entries(root_table, root.wide)
        .find(|&p| phys_bytes(p, 4).is_some_and(|s| s == b"APIC"))
        .ok_or(AcpiError::WrongSignature(
            "MADT (the root table lists none)",
        ))?;
    acpi::madt_lapics(table(madt, b"APIC", "MADT")?)
}
