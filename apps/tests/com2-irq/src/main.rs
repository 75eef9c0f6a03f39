//! Enables COM2's transmit-empty interrupt through an I/O-port capability
//! and waits for it as a notification bit, then acknowledges the line.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{IoPorts, Irq, Notification};
use conflux_userlib::testing::Checks;
use conflux_userlib::SysError;

conflux_userlib::entry!(main);

use config::caps;

const COM2: u16 = 0x2f8;
const IER: u16 = COM2 + 1;
const MCR: u16 = COM2 + 4;
const THRE_INTERRUPT: u8 = 0x02;
const OUT2: u8 = 0x08;

fn main() {
    let mut c = Checks::new();
    let io = IoPorts(caps::IO);
    c.eq(
        "port outside the capability",
        io.read8(0x3f8),
        Err(SysError::InvalidArgument),
    );
    c.eq("raise OUT2", io.write8(MCR, OUT2), Ok(()));
    c.eq(
        "enable the transmit-empty interrupt",
        io.write8(IER, THRE_INTERRUPT),
        Ok(()),
    );
    let bits = Notification(caps::EV).wait();
    c.eq("interrupt arrived as notification bit 5", bits, Ok(1 << 5));
    c.eq("disable the interrupt", io.write8(IER, 0), Ok(()));
    c.eq("acknowledge the line", Irq(caps::IRQ).ack(), Ok(()));
    c.finish();
}
