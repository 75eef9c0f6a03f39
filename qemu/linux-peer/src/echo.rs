//! The echo servers of the network workloads (`bench linux`, part
//! `net`): the Linux side of netbench's echo loops, one through plain
//! system calls (`std::net`: accept, read, write) on the guest port of
//! netbench's VAN echo, one through io_uring (each read and each write one
//! submission, `IORING_OP_RECV` then `IORING_OP_SEND`: the reply's length
//! is the read's result, so the two cannot be linked) on the port of its
//! COSY echo. Each serves one connection at a time (the runner's echo
//! client makes one at a time), writes back every byte it reads and
//! closes when the client shuts its side. They run until the runner
//! stops the machine.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;

use io_uring::{opcode, types};

use crate::report::say;
use crate::ring::Ring;

/// Serves plain echo on `port` (in a thread) and io_uring echo on
/// `uring_port` forever; returns only if one cannot listen.
pub fn serve_both(port: u16, uring_port: u16) -> String {
    let plain = std::thread::spawn(move || serve(port));
    let why = serve_uring(uring_port);
    match plain.join() {
        Ok(plain_why) => format!("{plain_why}; {why}"),
        Err(_) => why,
    }
}

/// Serves echo through io_uring on `port` forever; returns only if it
/// cannot listen or make a ring.
fn serve_uring(port: u16) -> String {
    let listener = match TcpListener::bind(("0.0.0.0", port)) {
        Ok(l) => l,
        Err(e) => return format!("echo (io_uring): cannot listen on TCP port {port}: {e}"),
    };
    let mut ring = match Ring::new(0) {
        Ok(r) => r,
        Err(e) => return format!("echo (io_uring): cannot make a ring: {e}"),
    };
    say(&format!("echo: io_uring listening on port {port}"));
    loop {
        match listener.accept() {
            Ok((stream, from)) => {
                if let Err(e) = echo_uring(&mut ring, &stream) {
                    say(&format!(
                        "echo (io_uring): connection from {from} ended: {e}"
                    ));
                }
            }
            Err(e) => say(&format!(
                "echo (io_uring): accept on port {port} failed: {e}"
            )),
        }
    }
}

/// Writes back what `stream` sends, each read and write one io_uring
/// submission, until it ends its side.
fn echo_uring(ring: &mut Ring, stream: &TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let fd = types::Fd(stream.as_raw_fd());
    let mut buf = [0u8; 4096];
    let mut result = [0i32; 1];
    loop {
        let recv = opcode::Recv::new(fd, buf.as_mut_ptr(), buf.len() as u32).build();
        // Safety: `buf` outlives the call, which waits for the completion.
        unsafe { ring.run(&[recv], &mut result) }?;
        let n = checked(result[0])?;
        if n == 0 {
            return Ok(());
        }
        let mut sent = 0;
        while sent < n {
            let send = opcode::Send::new(fd, buf[sent..].as_ptr(), (n - sent) as u32).build();
            // Safety: as above.
            unsafe { ring.run(&[send], &mut result) }?;
            sent += checked(result[0])?;
        }
    }
}

/// A completion's byte count, or its errno as an error.
fn checked(result: i32) -> std::io::Result<usize> {
    usize::try_from(result).map_err(|_| std::io::Error::from_raw_os_error(-result))
}

/// Serves echo on `port` forever; returns only if it cannot listen.
pub fn serve(port: u16) -> String {
    let listener = match TcpListener::bind(("0.0.0.0", port)) {
        Ok(l) => l,
        Err(e) => {
            return format!(
                "echo: cannot listen on TCP port {port}: {e} (is the interface up? see /init's lines above)"
            )
        }
    };
    say(&format!("echo: listening on port {port}"));
    loop {
        match listener.accept() {
            Ok((stream, from)) => {
                if let Err(e) = echo(stream) {
                    say(&format!("echo: connection from {from} ended: {e}"));
                }
            }
            Err(e) => say(&format!("echo: accept on port {port} failed: {e}")),
        }
    }
}

/// Writes back what `stream` sends until it ends its side.
fn echo(mut stream: TcpStream) -> std::io::Result<()> {
    // Each reply is one small segment, sent at once (the client times it).
    stream.set_nodelay(true)?;
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        stream.write_all(&buf[..n])?;
    }
}
