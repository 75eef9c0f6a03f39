//! Port I/O on behalf of a task holding an I/O-port capability (the
//! capability's range is checked by the caller), and for the devices the
//! kernel keeps (the real-time clock, [`super::rtc`]).

use x86_64::instructions::port::Port;

/// Reads `width` (1, 2 or 4) bytes from `port`.
pub fn read(port: u16, width: u8) -> u32 {
    // Safety: the caller checked that the task's capability covers
    // `port..port + width`, or the port is one the kernel keeps; port reads
    // have no memory-safety effect on the kernel.
    unsafe {
        match width {
            1 => Port::<u8>::new(port).read() as u32,
            2 => Port::<u16>::new(port).read() as u32,
            _ => Port::<u32>::new(port).read(),
        }
    }
}

/// Writes `width` (1, 2 or 4) bytes of `value` to `port`.
pub fn write(port: u16, width: u8, value: u32) {
    // Safety: as for `read`; the range is the task's by capability or a
    // kernel device's, which no task is given.
    unsafe {
        match width {
            1 => Port::<u8>::new(port).write(value as u8),
            2 => Port::<u16>::new(port).write(value as u16),
            _ => Port::<u32>::new(port).write(value),
        }
    }
}
