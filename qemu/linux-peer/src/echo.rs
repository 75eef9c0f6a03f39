//! The echo server of the network workloads (`bench linux`, part `net`):
//! the Linux side of netbench's echo loop, through plain system calls
//! (`std::net`: accept, read, write). It listens on the guest port
//! Conflux's netbench echo uses, serves one connection at a time (the
//! runner's echo client makes one at a time), writes back every byte it
//! reads and closes when the client shuts its side. It runs until the
//! runner stops the machine.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use crate::report::say;

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
