//! The few ACPI tables the kernel reads to find its processors: the RSDP,
//! the root table (XSDT or RSDT) and the MADT.
//!
//! Firmware tables are untrusted input like any other: each byte string
//! read from physical memory is checked here (signature, length, checksum)
//! before a field of it is used, so a broken table gives a message and a
//! one-CPU boot, never a wild read. The kernel glue only fetches bytes at
//! the addresses these functions return; everything that can be decided
//! from the bytes alone lives here and is tested on the host.
//!
//! Why not the `acpi` crate: its processor list (`PlatformInfo`) needs an
//! allocator and the kernel has no heap, and the two tables the kernel
//! needs are a hundred lines to check by hand.

/// Bytes of the ACPI 1.0 RSDP; revision 2 and later have [`RSDP_V2_LEN`].
pub const RSDP_V1_LEN: usize = 20;
pub const RSDP_V2_LEN: usize = 36;
/// Bytes of every system description table's header.
pub const SDT_HEADER_LEN: usize = 36;
/// Most processors the kernel collects from the MADT.
pub const MAX_LAPICS: usize = 16;

/// Why the firmware's tables could not be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcpiError {
    /// The bytes do not start with "RSD PTR ".
    NoRsdp,
    /// A table's bytes do not add up to zero.
    BadChecksum(&'static str),
    /// A table's length field is shorter than its header or longer than read.
    BadLength(&'static str),
    /// A table has the wrong signature where one was expected.
    WrongSignature(&'static str),
    /// An MADT entry's length is zero or runs past the table.
    BadEntry { offset: usize },
}

impl core::fmt::Display for AcpiError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoRsdp => write!(f, "no ACPI RSDP (\"RSD PTR \") found"),
            Self::BadChecksum(t) => write!(f, "the ACPI {t} has a bad checksum"),
            Self::BadLength(t) => write!(f, "the ACPI {t} has an impossible length"),
            Self::WrongSignature(t) => write!(f, "expected the ACPI {t}, found another table"),
            Self::BadEntry { offset } => {
                write!(f, "the ACPI MADT has a malformed entry at byte {offset}")
            }
        }
    }
}

fn sums_to_zero(bytes: &[u8]) -> bool {
    bytes.iter().fold(0u8, |a, &b| a.wrapping_add(b)) == 0
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | u64::from(u32_at(b, at + 4)) << 32
}

/// Where the root table lies, and whether it holds 64-bit pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Root {
    pub phys: u64,
    pub wide: bool,
}

/// Checks an RSDP (`bytes` holds at least [`RSDP_V2_LEN`] bytes, or
/// [`RSDP_V1_LEN`] for an ACPI 1.0 one) and says where the root table is:
/// the XSDT from revision 2 on, else the RSDT.
pub fn parse_rsdp(bytes: &[u8]) -> Result<Root, AcpiError> {
    if bytes.len() < RSDP_V1_LEN || &bytes[..8] != b"RSD PTR " {
        return Err(AcpiError::NoRsdp);
    }
    if !sums_to_zero(&bytes[..RSDP_V1_LEN]) {
        return Err(AcpiError::BadChecksum("RSDP"));
    }
    if bytes[15] >= 2 && bytes.len() >= RSDP_V2_LEN {
        if !sums_to_zero(&bytes[..RSDP_V2_LEN]) {
            return Err(AcpiError::BadChecksum("RSDP (extended part)"));
        }
        let xsdt = u64_at(bytes, 24);
        if xsdt != 0 {
            return Ok(Root {
                phys: xsdt,
                wide: true,
            });
        }
    }
    Ok(Root {
        phys: u64::from(u32_at(bytes, 16)),
        wide: false,
    })
}

/// The length a table's header claims, checked against the header size.
/// `header` is the first [`SDT_HEADER_LEN`] bytes of the table.
pub fn table_length(header: &[u8], name: &'static str) -> Result<usize, AcpiError> {
    if header.len() < SDT_HEADER_LEN {
        return Err(AcpiError::BadLength(name));
    }
    let len = u32_at(header, 4) as usize;
    if len < SDT_HEADER_LEN {
        return Err(AcpiError::BadLength(name));
    }
    Ok(len)
}

/// Checks a whole table: signature, length (all of it read) and checksum.
pub fn check_table(table: &[u8], signature: &[u8; 4], name: &'static str) -> Result<(), AcpiError> {
    if table.len() < SDT_HEADER_LEN || &table[..4] != signature {
        return Err(AcpiError::WrongSignature(name));
    }
    if table_length(table, name)? != table.len() {
        return Err(AcpiError::BadLength(name));
    }
    if !sums_to_zero(table) {
        return Err(AcpiError::BadChecksum(name));
    }
    Ok(())
}

/// The table pointers of a checked root table.
pub fn root_entries(root: &[u8], wide: bool) -> impl Iterator<Item = u64> + '_ {
    let step = if wide { 8 } else { 4 };
    root[SDT_HEADER_LEN..].chunks_exact(step).map(move |c| {
        if wide {
            u64_at(c, 0)
        } else {
            u64::from(u32_at(c, 0))
        }
    })
}

/// The processors a checked MADT lists as usable, by local APIC id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lapics {
    ids: [u32; MAX_LAPICS],
    len: usize,
    /// Usable processors listed past [`MAX_LAPICS`], not collected.
    pub dropped: usize,
}

impl Lapics {
    pub fn ids(&self) -> &[u32] {
        &self.ids[..self.len]
    }
}

/// MADT entry types: processor local APIC, and local x2APIC.
const LAPIC: u8 = 0;
const X2APIC: u8 = 9;
/// Flags bit 0: the processor is enabled and may be started. (Bit 1,
/// "online capable", marks one that could be hot-added later: not started.)
const ENABLED: u32 = 1;
/// The MADT's fixed part after the header: local APIC address and flags.
const MADT_FIXED: usize = SDT_HEADER_LEN + 8;

/// Collects the enabled processors of a checked MADT (`check_table` with
/// `APIC` first).
pub fn madt_lapics(madt: &[u8]) -> Result<Lapics, AcpiError> {
    let mut out = Lapics {
        ids: [0; MAX_LAPICS],
        len: 0,
        dropped: 0,
    };
    let mut at = MADT_FIXED;
    while at + 2 <= madt.len() {
        let (kind, len) = (madt[at], madt[at + 1] as usize);
        if len < 2 || at + len > madt.len() {
            return Err(AcpiError::BadEntry { offset: at });
        }
        let entry = &madt[at..at + len];
        let usable = match (kind, len) {
            (LAPIC, 8..) => Some((u32::from(entry[3]), u32_at(entry, 4))),
            (X2APIC, 16..) => Some((u32_at(entry, 4), u32_at(entry, 8))),
            (LAPIC | X2APIC, _) => return Err(AcpiError::BadEntry { offset: at }),
            _ => None,
        };
        if let Some((id, flags)) = usable {
            if flags & ENABLED != 0 {
                if out.len < MAX_LAPICS {
                    out.ids[out.len] = id;
                    out.len += 1;
                } else {
                    out.dropped += 1;
                }
            }
        }
        at += len;
    }
    Ok(out)
}
