//! The wall clock: the CMOS real-time clock's date, read once at boot,
//! plus the ticks since.
//!
//! The machine reads the clock's registers ([`RtcRegisters`], raw as the
//! chip holds them); [`decode`] turns them into a date, and
//! [`Kernel::sys_wall_clock`] answers `wall_clock` with that date plus
//! the ticks counted since. The registers' format is the chip's choice,
//! told by status register B: BCD or binary digits (bit 2 set: binary),
//! 24- or 12-hour (bit 1 set: 24-hour; in 12-hour mode bit 7 of the hour
//! is PM, and 12 is both midnight and noon). The century has a register
//! of its own on QEMU and ACPI machines (0x32), in the same format; one
//! that reads as no century (some chips lack it) leaves years 70–99 in
//! the 1900s and 00–69 in the 2000s. A reading that is not a date
//! (a BCD nibble above 9, a month 13, a 31st of April) is refused, so
//! the kernel never hands out a made-up time.
//!
//! The wall clock runs at the rate of the kernel's ticks: when ticks are
//! late or lost (a host that does not run QEMU for a while), it falls
//! behind; nothing corrects it until the next boot.

use crate::kernel::Kernel;
use crate::machine::Machine;
use conflux_abi::calendar::Civil;
use conflux_abi::time::TICK_NS;
use conflux_abi::SysError;

/// Status register B: the hour is in 24-hour form.
pub const STATUS_B_24H: u8 = 1 << 1;
/// Status register B: the digits are binary, not BCD.
pub const STATUS_B_BINARY: u8 = 1 << 2;
/// Bit 7 of the hour in 12-hour form: after noon.
const HOUR_PM: u8 = 1 << 7;

/// The clock's registers as read, undecoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtcRegisters {
    pub second: u8,
    pub minute: u8,
    pub hour: u8,
    pub day: u8,
    pub month: u8,
    /// Two digits.
    pub year: u8,
    pub century: u8,
    pub status_b: u8,
}

/// Why a reading is not a date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadRtc {
    /// A BCD register with a nibble above 9.
    NotBcd { field: &'static str, raw: u8 },
    /// A field out of range once decoded (the day for its month).
    OutOfRange { field: &'static str, value: u8 },
}

impl core::fmt::Display for BadRtc {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BadRtc::NotBcd { field, raw } => {
                write!(f, "its {field} register holds {raw:#04x}, which is not BCD")
            }
            BadRtc::OutOfRange { field, value } => {
                write!(f, "its {field} reads {value}, which no date has")
            }
        }
    }
}

/// One register's value in the clock's digit format.
fn digits(raw: u8, binary: bool, field: &'static str) -> Result<u8, BadRtc> {
    if binary {
        return Ok(raw);
    }
    let (hi, lo) = (raw >> 4, raw & 0xf);
    if hi > 9 || lo > 9 {
        return Err(BadRtc::NotBcd { field, raw });
    }
    Ok(hi * 10 + lo)
}

/// The hour 0..=23 from the hour register.
fn hour(raw: u8, status_b: u8) -> Result<u8, BadRtc> {
    let binary = status_b & STATUS_B_BINARY != 0;
    if status_b & STATUS_B_24H != 0 {
        return digits(raw, binary, "hour");
    }
    let pm = raw & HOUR_PM != 0;
    let h = digits(raw & !HOUR_PM, binary, "hour")?;
    if !(1..=12).contains(&h) {
        return Err(BadRtc::OutOfRange {
            field: "hour (12-hour form)",
            value: h,
        });
    }
    Ok(match (h, pm) {
        (12, false) => 0,
        (12, true) => 12,
        (h, false) => h,
        (h, true) => h + 12,
    })
}

/// The date and time the registers hold, UTC (QEMU's default, `-rtc
/// base=utc`).
pub fn decode(r: &RtcRegisters) -> Result<Civil, BadRtc> {
    let binary = r.status_b & STATUS_B_BINARY != 0;
    let year = i64::from(digits(r.year, binary, "year")?);
    if year > 99 {
        return Err(BadRtc::OutOfRange {
            field: "year",
            value: year as u8,
        });
    }
    let century = match digits(r.century, binary, "century") {
        Ok(c @ 19..=99) => i64::from(c),
        _ if year >= 70 => 19,
        _ => 20,
    };
    let civil = Civil {
        year: century * 100 + year,
        month: digits(r.month, binary, "month")?,
        day: digits(r.day, binary, "day")?,
        hour: hour(r.hour, r.status_b)?,
        minute: digits(r.minute, binary, "minute")?,
        second: digits(r.second, binary, "second")?,
    };
    let fields = [
        ("month", civil.month, (1..=12).contains(&civil.month)),
        (
            "day",
            civil.day,
            civil.day >= 1
                && civil.day <= conflux_abi::calendar::days_in_month(civil.year, civil.month),
        ),
        ("hour", civil.hour, civil.hour < 24),
        ("minute", civil.minute, civil.minute < 60),
        ("second", civil.second, civil.second < 60),
    ];
    match fields.iter().find(|(_, _, ok)| !ok) {
        Some((field, value, _)) => Err(BadRtc::OutOfRange {
            field,
            value: *value,
        }),
        None => Ok(civil),
    }
}

impl<M: Machine> Kernel<M> {
    /// Sets the wall clock from the date read at boot (tick 0): `None`
    /// when the clock gave none, and `wall_clock` then answers `NoClock`.
    pub fn set_wall_clock(&mut self, at_boot: Option<Civil>) {
        self.wall_at_boot_ms = at_boot
            .map(|c| c.to_unix())
            .filter(|s| *s >= 0)
            .map(|s| s as u64 * 1000);
    }

    /// `wall_clock() -> ms`: milliseconds since the Unix epoch.
    pub fn sys_wall_clock(&self) -> Result<u64, SysError> {
        let base = self.wall_at_boot_ms.ok_or(SysError::NoClock)?;
        Ok(base + self.ticks * (TICK_NS / 1_000_000))
    }
}
