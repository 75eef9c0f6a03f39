//! Commands on the network: `ping` (ICMP echo requests from the network
//! server, Linux `ping`'s lines) and `net` (the interface's addresses, the
//! server's socket counts and traffic). The session with the network
//! server opens at the first such command, so the shell starts without
//! waiting for the network. A system whose manifest gives the shell no
//! `net` capability builds it without one (`shell_net` unset, see
//! build.rs); the commands then say so.

use alloc::format;
use alloc::string::String;

use crate::Failed;

#[cfg(shell_net)]
mod served;

/// The most requests one `ping` sends.
const MAX_COUNT: u16 = 100;
const PING_USAGE: &str = "ping [-c N] ADDR (ADDR as a.b.c.d, N from 1 to 100)";

/// The shell's session with the network server, once opened.
#[derive(Default)]
pub struct NetLink {
    #[cfg(shell_net)]
    net: Option<conflux_net_client::Net>,
}

/// `ping [-c N] ADDR`: N echo requests (4 by default) to ADDR, one after
/// another, each as soon as the one before it was answered or timed out.
pub fn ping(link: &mut NetLink, args: &[String]) -> Result<(), Failed> {
    let (count, ip) = ping_args(args)?;
    #[cfg(shell_net)]
    {
        served::ping(link, count, ip)
    }
    #[cfg(not(shell_net))]
    {
        let _ = (link, count, ip);
        no_network("ping")
    }
}

/// `net`: the interface and the server's counts.
pub fn net(link: &mut NetLink, args: &[String]) -> Result<(), Failed> {
    if !args.is_empty() {
        return Err(Failed::usage("net (no arguments)"));
    }
    #[cfg(shell_net)]
    {
        served::net(link)
    }
    #[cfg(not(shell_net))]
    {
        let _ = link;
        no_network("net")
    }
}

#[cfg(not(shell_net))]
fn no_network(cmd: &str) -> Result<(), Failed> {
    conflux_userlib::println!("{cmd}: this system gives the shell no network capability (`net` and `net_control` in [tasks.shell.caps] of its manifest)");
    Err(Failed::Reported)
}

/// The count and the address of `ping [-c N] ADDR`.
fn ping_args(args: &[String]) -> Result<(u16, [u8; 4]), Failed> {
    let (count, rest) = match args {
        [flag, n, rest @ ..] if flag == "-c" => match n.parse::<u16>() {
            Ok(n) if (1..=MAX_COUNT).contains(&n) => (n, rest),
            _ => {
                return Err(Failed::Usage(format!(
                    "-c takes a count from 1 to {MAX_COUNT}, not `{n}`"
                )))
            }
        },
        [flag, ..] if flag.starts_with('-') => {
            return Err(Failed::Usage(format!(
                "unknown option `{flag}`: ping knows only -c N"
            )))
        }
        _ => (4, args),
    };
    let [addr] = rest else {
        return Err(Failed::usage(PING_USAGE));
    };
    let ip = parse_ip(addr)
        .ok_or_else(|| Failed::Usage(format!("`{addr}` is not an IPv4 address (a.b.c.d)")))?;
    Ok((count, ip))
}

/// `a.b.c.d`, each part a decimal number up to 255.
fn parse_ip(text: &str) -> Option<[u8; 4]> {
    let mut ip = [0u8; 4];
    let mut parts = text.split('.');
    for byte in &mut ip {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *byte = part.parse().ok()?;
    }
    parts.next().is_none().then_some(ip)
}
