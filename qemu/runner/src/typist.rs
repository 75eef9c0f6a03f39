//! Typing on the guest's serial console: a test's `input`, or what is
//! piped into `cargo make run`.
//!
//! The typist waits for the kernel's banner before the first byte, as a
//! person at the console would: the kernel has then programmed COM1 and
//! every task is loaded, so nothing typed can fall between the firmware
//! and the UART's reset. QEMU feeds the UART only as fast as its FIFO
//! drains, so the whole text can be written at once without losing bytes.
//! QEMU's end of the pipe stays open until QEMU exits: an early end of
//! input would look to some chardevs like a hang-up.

use std::io::{Read, Write};
use std::process::ChildStdin;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What to type.
pub enum Source {
    /// A fixed text (a test's `input`).
    Text(Vec<u8>),
    /// Everything this process reads on its own standard input.
    OurStdin,
}

/// Starts typing `source` into `qemu` once `banner_seen()` is true, giving
/// up if that has not happened by `deadline`. The thread returns QEMU's
/// stdin so the caller can keep it open until QEMU exits.
pub fn spawn(
    mut qemu: ChildStdin,
    source: Source,
    banner_seen: impl Fn() -> bool + Send + 'static,
    deadline: Instant,
) -> JoinHandle<ChildStdin> {
    std::thread::spawn(move || {
        while !banner_seen() {
            if Instant::now() > deadline {
                return qemu;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        match source {
            Source::Text(bytes) => {
                let _ = qemu.write_all(&bytes).and_then(|()| qemu.flush());
            }
            Source::OurStdin => copy_stdin(&mut qemu),
        }
        qemu
    })
}

/// Copies our standard input to QEMU until our input ends or QEMU's does.
fn copy_stdin(qemu: &mut ChildStdin) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = [0u8; 4096];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if qemu
                    .write_all(&buf[..n])
                    .and_then(|()| qemu.flush())
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}
