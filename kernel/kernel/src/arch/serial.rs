//! COM1, the kernel console. QEMU connects it to the terminal or a log file.

use spin::Mutex;
use uart_16550::SerialPort;

use conflux_abi::devices::COM1;

// Safety: 0x3F8 is COM1 on every PC-compatible machine QEMU emulates.
static PORT: Mutex<SerialPort> = Mutex::new(unsafe { SerialPort::new(COM1) });

/// Programs the UART (speed, 8N1, FIFO).
pub fn init() {
    PORT.lock().init();
}

/// Writes bytes, translating `\n` to `\r\n` for terminals.
pub fn write_bytes(bytes: &[u8]) {
    let mut port = PORT.lock();
    for &b in bytes {
        if b == b'\n' {
            port.send(b'\r');
        }
        port.send(b);
    }
}

/// Writes bytes even if another writer holds the port: used by the fault
/// and panic reports, which must get out even when the kernel broke while
/// printing.
pub fn write_bytes_forced(bytes: &[u8]) {
    // Safety: the port is programmed; interleaving with a half-written line
    // is acceptable on the path that stops the machine.
    let mut port = unsafe { SerialPort::new(COM1) };
    for &b in bytes {
        if b == b'\n' {
            port.send(b'\r');
        }
        port.send(b);
    }
}
