//! Reading the CMOS real-time clock's date registers (MC146818 and
//! compatibles, as QEMU emulates them), once, at boot.
//!
//! A register is selected by writing its index to port 0x70 and read at
//! port 0x71. Bit 7 of the index byte masks NMIs on PC chipsets, so every
//! index is written with it clear (NMIs stay enabled), and the index is
//! left at status register D afterwards, as firmware expects. The chip
//! updates its registers once a second; while status A's update-in-progress
//! flag is set they may be half written, so the reading waits for it to
//! clear and is taken twice, until two in a row agree (a second tick
//! between the wait and the reads shows as a mismatch). Both waits are
//! bounded: a chip that never settles gives no date rather than a hang.

use conflux_abi::devices::{RTC_DATA, RTC_INDEX};
use conflux_kcore::rtc::RtcRegisters;

use super::port;

const SECONDS: u8 = 0x00;
const MINUTES: u8 = 0x02;
const HOURS: u8 = 0x04;
const DAY: u8 = 0x07;
const MONTH: u8 = 0x08;
const YEAR: u8 = 0x09;
const STATUS_A: u8 = 0x0a;
const STATUS_B: u8 = 0x0b;
const STATUS_D: u8 = 0x0d;
/// The century register of QEMU's RTC and ACPI's FADT default.
const CENTURY: u8 = 0x32;
/// Status register A: an update is in progress.
const UPDATE_IN_PROGRESS: u8 = 1 << 7;

/// Polls of the update flag before giving up (an update takes under 2 ms;
/// each poll is a port access, about a microsecond or more).
const UIP_POLLS: u32 = 1_000_000;
/// Pairs of readings before giving up on two agreeing.
const ATTEMPTS: u32 = 5;

fn read(index: u8) -> u8 {
    // Bit 7 clear: the selection never masks NMIs.
    port::write(RTC_INDEX, 1, u32::from(index & 0x7f));
    port::read(RTC_DATA, 1) as u8
}

fn snapshot() -> RtcRegisters {
    RtcRegisters {
        second: read(SECONDS),
        minute: read(MINUTES),
        hour: read(HOURS),
        day: read(DAY),
        month: read(MONTH),
        year: read(YEAR),
        century: read(CENTURY),
        status_b: read(STATUS_B),
    }
}

/// Waits until no update is in progress; false if it never ends.
fn settled() -> bool {
    (0..UIP_POLLS).any(|_| read(STATUS_A) & UPDATE_IN_PROGRESS == 0)
}

/// The registers, read consistently; `None` when the chip never settled.
pub fn read_registers() -> Option<RtcRegisters> {
    let mut found = None;
    for _ in 0..ATTEMPTS {
        if !settled() {
            break;
        }
        let first = snapshot();
        if settled() && snapshot() == first {
            found = Some(first);
            break;
        }
    }
    read(STATUS_D);
    found
}
