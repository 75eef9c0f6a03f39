//! COM1, the kernel console. QEMU connects it to the terminal or a log file.
//!
//! Output goes straight to the UART. Input is drained into [`TYPED`], a
//! ring the console's reader empties with `console_read`: at each receive
//! interrupt, and whenever the reader asks (so bytes that arrived while the
//! line was masked are not stranded in the UART's FIFO).

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

/// Typed bytes not yet taken by the console's reader.
static TYPED: Mutex<Ring> = Mutex::new(Ring::new());

/// Bytes typed ahead of the reader: a terminal's paste or a piped script.
/// Past this the UART's FIFO fills and QEMU stops reading its input, so a
/// full ring slows the typist down instead of losing bytes.
const TYPED_CAPACITY: usize = 4096;

/// A byte ring of [`TYPED_CAPACITY`].
struct Ring {
    bytes: [u8; TYPED_CAPACITY],
    head: usize,
    len: usize,
}

impl Ring {
    const fn new() -> Self {
        Self {
            bytes: [0; TYPED_CAPACITY],
            head: 0,
            len: 0,
        }
    }

    fn is_full(&self) -> bool {
        self.len == TYPED_CAPACITY
    }

    fn push(&mut self, b: u8) {
        self.bytes[(self.head + self.len) % TYPED_CAPACITY] = b;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let b = self.bytes[self.head];
        self.head = (self.head + 1) % TYPED_CAPACITY;
        self.len -= 1;
        Some(b)
    }
}

/// Moves what the UART holds into the ring, until the ring is full.
fn drain(port: &mut Port, ring: &mut Ring) {
    while !ring.is_full() {
        match port.try_receive_byte() {
            Ok(b) => ring.push(b),
            Err(_) => break,
        }
    }
}

/// Programs the UART: 8N1 with the FIFO on (QEMU ignores the speed), and
/// the receive interrupt on, so typing signals the console's reader.
/// Whatever was typed before this is kept: programming empties the FIFO.
pub fn init() {
    let mut ring = TYPED.lock();
    let mut port = PORT.lock();
    drain(&mut port, &mut ring);
    let config = Config {
        interrupts: uart_16550::spec::registers::IER::DATA_READY,
        ..Config::DEFAULT
    };
    if let Err(e) = port.init(config) {
        // Nothing can be printed without the console; stopping the machine
        // (kernel-fault verdict, empty log) says more than running mute.
        panic!("cannot program COM1 at {COM1:#x}: {e:?}");
    }
}

/// The receive interrupt: empty the UART so its line drops and the next
/// byte raises it again (the line is edge-triggered).
pub fn receive_interrupt() {
    let mut ring = TYPED.lock();
    drain(&mut PORT.lock(), &mut ring);
}

/// Takes up to `out.len()` typed bytes; returns how many.
pub fn read_typed(out: &mut [u8]) -> usize {
    let mut ring = TYPED.lock();
    drain(&mut PORT.lock(), &mut ring);
    let mut n = 0;
    while n < out.len() {
        let Some(b) = ring.pop() else { break };
        out[n] = b;
        n += 1;
    }
    n
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
