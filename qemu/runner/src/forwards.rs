//! The host ports of a system's forwards, as `cargo make run` shows and
//! moves them: `--http-port N` moves the forward to the guest's port 80
//! (httpd) to host port N, and every forward is printed as the address to
//! open on the host. Forwards are bound to 127.0.0.1 only (see `devices`).

use conflux_manifest::{Manifest, Protocol};

/// The guest port httpd listens on.
pub const HTTP_GUEST_PORT: u16 = 80;

/// Moves the forward to the guest's port 80 to host port `port`.
pub fn set_http_port(manifest: &mut Manifest, port: u16) -> Result<(), String> {
    if port == 0 {
        return Err("--http-port 0: pick a host port from 1 to 65535".into());
    }
    let system = manifest.system.name.clone();
    let mut found = false;
    for device in &mut manifest.devices {
        for f in device
            .forwards
            .iter_mut()
            .filter(|f| f.guest == HTTP_GUEST_PORT && f.protocol == Protocol::Tcp)
        {
            f.host = port;
            found = true;
        }
    }
    if found {
        Ok(())
    } else {
        Err(format!(
            "system '{system}' forwards no host port to the guest's port {HTTP_GUEST_PORT} (httpd), so --http-port has nothing to move; boot the default system, or add `forwards = [{{ host = {port}, guest = {HTTP_GUEST_PORT} }}]` to its virtio-net device"
        ))
    }
}

/// Fails if a forward's host port is already taken on 127.0.0.1, which
/// QEMU would report only as "could not set up host forwarding rule".
pub fn check_free(manifest: &Manifest) -> Result<(), String> {
    for f in manifest.devices.iter().flat_map(|d| &d.forwards) {
        let taken = match f.protocol {
            Protocol::Tcp => std::net::TcpListener::bind(("127.0.0.1", f.host)).is_err(),
            Protocol::Udp => std::net::UdpSocket::bind(("127.0.0.1", f.host)).is_err(),
        };
        if taken {
            return Err(format!(
                "host {} port {} (forwarded to the guest's port {}) is already in use on 127.0.0.1 — another `cargo make run`? Stop it, or pick another port with --http-port",
                f.protocol.name(),
                f.host,
                f.guest
            ));
        }
    }
    Ok(())
}

/// One line per forward: the address to open on the host.
pub fn describe(manifest: &Manifest) -> Vec<String> {
    manifest
        .devices
        .iter()
        .flat_map(|d| &d.forwards)
        .map(|f| {
            if f.guest == HTTP_GUEST_PORT && f.protocol == Protocol::Tcp {
                format!(
                    "http://localhost:{}/ reaches httpd (the guest's port {})",
                    f.host, f.guest
                )
            } else {
                format!(
                    "localhost:{} reaches the guest's {} port {}",
                    f.host,
                    f.protocol.name().to_uppercase(),
                    f.guest
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYSTEM: &str = r#"
[system]
name = "web"

[devices.net0]
kind = "virtio-net"
driver = "nic"
clients = ["net"]
forwards = [{ host = 8080, guest = 80 }, { host = 8022, guest = 22 }]

[tasks.nic]
crate = "virtio-net"
priority = 1
start_order = 1

[tasks.net]
crate = "net"
priority = 2
start_order = 2
"#;

    #[test]
    fn moves_only_the_forward_to_port_80_and_names_the_url() {
        let mut m = conflux_manifest::parse(SYSTEM, "web.toml").unwrap();
        set_http_port(&mut m, 9090).unwrap();
        assert_eq!(
            describe(&m),
            [
                "http://localhost:9090/ reaches httpd (the guest's port 80)",
                "localhost:8022 reaches the guest's TCP port 22"
            ]
        );
        assert!(set_http_port(&mut m, 0)
            .unwrap_err()
            .contains("from 1 to 65535"));
    }

    #[test]
    fn a_system_without_httpd_says_so() {
        let text = SYSTEM.replace("{ host = 8080, guest = 80 }, ", "");
        let mut m = conflux_manifest::parse(&text, "web.toml").unwrap();
        let e = set_http_port(&mut m, 9090).unwrap_err();
        assert!(
            e.contains("forwards no host port to the guest's port 80"),
            "{e}"
        );
    }

    #[test]
    fn a_taken_port_is_refused_before_qemu_starts() {
        let held = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = held.local_addr().unwrap().port();
        let mut m = conflux_manifest::parse(SYSTEM, "web.toml").unwrap();
        set_http_port(&mut m, port).unwrap();
        let e = check_free(&m).unwrap_err();
        assert!(e.contains(&format!("host tcp port {port}")), "{e}");
        drop(held);
        if let Err(e) = check_free(&m) {
            assert!(!e.contains(&format!("host tcp port {port} ")), "{e}");
        }
        // A UDP forward is checked with a UDP socket.
        let held = std::net::UdpSocket::bind(("127.0.0.1", 0)).unwrap();
        let udp = held.local_addr().unwrap().port();
        let text = SYSTEM.replace(
            "forwards = [",
            &format!("forwards = [{{ host = {udp}, guest = 5700, protocol = \"udp\" }}, "),
        );
        let m = conflux_manifest::parse(&text, "web.toml").unwrap();
        let e = check_free(&m).unwrap_err();
        assert!(e.contains(&format!("host udp port {udp}")), "{e}");
    }
}
