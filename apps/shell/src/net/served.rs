//! The network commands over a session with the network server (built
//! when the manifest gives the shell a `net` capability).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use conflux_net_client::{Error, Net, NetError, NetInfo};
use conflux_socket_protocol::ops::PING_PAYLOAD;
use conflux_userlib::println;

use super::NetLink;
use crate::config;
use crate::Failed;

/// How long each echo request waits for its reply.
const TIMEOUT_MS: u64 = 1000;

impl NetLink {
    /// The session, opened now if it is not yet.
    fn session(&mut self, cmd: &str) -> Result<&mut Net, Failed> {
        if self.net.is_none() {
            match Net::connect(conflux_net_client::manifest_caps!()) {
                Ok(net) => self.net = Some(net),
                Err(e) => {
                    println!("{cmd}: cannot reach the network server: {e} (`ps` shows whether its task `net` runs)");
                    return Err(Failed::Reported);
                }
            }
        }
        self.net.as_mut().ok_or(Failed::Reported)
    }

    /// Reports a failed request; a restarted server's session is opened
    /// again for the next command.
    fn failed(&mut self, cmd: &str, what: &str, e: Error) -> Failed {
        println!("{cmd}: {what}: {e}");
        if e == Error::ServerRestarted {
            self.net = None;
            println!("{cmd}: the next network command connects to the new network server");
        }
        Failed::Reported
    }
}

/// `net`: fetches and shows the record.
pub(super) fn net(link: &mut NetLink) -> Result<(), Failed> {
    let info = match link.session("net")?.info() {
        Ok(info) => info,
        Err(e) => return Err(link.failed("net", "net_info", e)),
    };
    show(&info);
    Ok(())
}

fn dotted(ip: [u8; 4]) -> String {
    let [a, b, c, d] = ip;
    format!("{a}.{b}.{c}.{d}")
}

/// Microseconds as milliseconds: `10`, `0.043`.
fn ms(us: u64) -> String {
    match us % 1000 {
        0 => format!("{}", us / 1000),
        frac => format!("{}.{frac:03}", us / 1000),
    }
}

/// A round trip as `time=… ms`; one shorter than the server's clock
/// step reads `time<STEP ms`, since the clock saw no time pass.
fn time(us: u64, clock_us: u32) -> String {
    if us == 0 && clock_us > 1 {
        format!("time<{} ms", ms(u64::from(clock_us)))
    } else {
        format!("time={} ms", ms(us))
    }
}

pub(super) fn ping(link: &mut NetLink, count: u16, ip: [u8; 4]) -> Result<(), Failed> {
    let to = dotted(ip);
    let clock_us = match link.session("ping")?.info() {
        Ok(info) => info.clock_us,
        Err(e) => return Err(link.failed("ping", "net_info", e)),
    };
    println!(
        "PING {to} ({to}) {PING_PAYLOAD}({}) bytes of data.",
        PING_PAYLOAD + 28
    );
    let (mut sent, mut times) = (0u32, Vec::new());
    for seq in 1..=count {
        match link.session("ping")?.ping(ip, seq, TIMEOUT_MS) {
            Ok(us) => {
                println!(
                    "{} bytes from {to}: icmp_seq={seq} {}",
                    PING_PAYLOAD + 8,
                    time(us, clock_us)
                );
                times.push(us);
            }
            Err(Error::Net(NetError::TimedOut)) => {
                println!("no reply from {to}: icmp_seq={seq} timed out after {TIMEOUT_MS} ms");
            }
            // The server could not park the request (every slot for
            // waiting requests taken): the request is out, unanswered here.
            Err(Error::Net(NetError::InProgress | NetError::Already)) => {
                println!("no reply from {to}: icmp_seq={seq}: the network server could not wait for it (every slot for waiting requests is taken)");
            }
            // Nothing was sent (a bad target, no route, the server's
            // limits): the request is reported and the rest not tried.
            Err(e) => {
                if sent > 0 {
                    summary(&to, sent, &times, clock_us);
                }
                if e == Error::Net(NetError::Invalid) {
                    // The count and the timeout were checked here: the
                    // server refused the target.
                    println!("ping: {to}: the network server refused the target ({e}): it must name one host, not 0.0.0.0, a broadcast or a multicast address");
                    return Err(Failed::Reported);
                }
                return Err(link.failed("ping", &format!("{to}: icmp_seq={seq}"), e));
            }
        }
        sent += 1;
    }
    summary(&to, sent, &times, clock_us);
    Ok(())
}

fn summary(to: &str, sent: u32, times: &[u64], clock_us: u32) {
    let got = times.len() as u32;
    println!("--- {to} ping statistics ---");
    println!(
        "{sent} packets transmitted, {got} received, {}% packet loss",
        (sent - got.min(sent)) * 100 / sent.max(1)
    );
    let (Some(min), Some(max)) = (times.iter().min(), times.iter().max()) else {
        return;
    };
    let avg = times.iter().sum::<u64>() / u64::from(got);
    let step = if clock_us >= 1000 {
        format!(
            " (in steps of the network server's {} ms clock)",
            ms(u64::from(clock_us))
        )
    } else {
        String::new()
    };
    println!(
        "rtt min/avg/max = {}/{}/{} ms{step}",
        ms(*min),
        ms(avg),
        ms(*max)
    );
}

fn show(info: &NetInfo) {
    let [a, b, c, d, e, f] = info.mac;
    let via = info
        .gateway
        .map_or(String::from("no gateway"), |g| format!("via {}", dotted(g)));
    println!(
        "net0: {}/{} {via}, MAC {a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{f:02x}",
        dotted(info.ip),
        info.prefix
    );
    let k = &info.counts;
    println!(
        "sockets: {} clients with sockets; streams {} connected, {} connecting, {} idle; {} listeners; {} datagram; {} pings in flight",
        k.clients, k.connected, k.connecting, k.idle, k.listeners, k.datagrams, k.pings
    );
    println!(
        "stack: {} of {} smoltcp sockets in use, {} closing",
        k.stack_sockets, k.stack_limit, k.closing
    );
    let t = &info.traffic;
    println!(
        "traffic: received {} frames ({} bytes), sent {} frames ({} bytes)",
        t.rx_frames, t.rx_bytes, t.tx_frames, t.tx_bytes
    );
    println!("clock: {} ms steps", ms(u64::from(info.clock_us)));
}
