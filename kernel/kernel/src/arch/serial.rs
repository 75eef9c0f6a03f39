//! COM1, the kernel console. QEMU connects it to the terminal or a log file.

use spin::Mutex;
use uart_16550::backend::PioBackend;
use uart_16550::{Config, Uart16550};

use conflux_abi::devices::COM1;

type Port = Uart16550<PioBackend>;

/// A handle on COM1's registers (programmed or not).
const fn com1() -> Port {
    // Safety: COM1's eight registers at 0x3F8 exist on every PC-compatible
    // machine QEMU emulates, and only this module drives them.
    match unsafe { Uart16550::new_port(COM1) } {
        Ok(port) => port,
        Err(_) => panic!("COM1's registers fit in the I/O port space"),
    }
}

static PORT: Mutex<Port> = Mutex::new(com1());

/// Programs the UART: 8N1 with the FIFO on, the crate's default (QEMU
/// ignores the speed).
pub fn init() {
    if let Err(e) = PORT.lock().init(Config::DEFAULT) {
        // Nothing can be printed without the console; stopping the machine
        // (kernel-fault verdict, empty log) says more than running mute.
        panic!("cannot program COM1 at {COM1:#x}: {e:?}");
    }
}

/// Sends `bytes`, translating `\n` to `\r\n` for terminals.
fn send(port: &mut Port, bytes: &[u8]) {
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            port.send_bytes_exact(b"\r\n");
        }
        port.send_bytes_exact(line);
    }
}

/// Writes bytes, translating `\n` to `\r\n` for terminals.
pub fn write_bytes(bytes: &[u8]) {
    send(&mut PORT.lock(), bytes);
}

/// Writes bytes even if another writer holds the port: used by the fault
/// and panic reports, which must get out even when the kernel broke while
/// printing. Interleaving with a half-written line is acceptable on the
/// path that stops the machine.
pub fn write_bytes_forced(bytes: &[u8]) {
    send(&mut com1(), bytes);
}
