use super::*;

const BASE: &str =
    "[system]\nname = \"s\"\n[tasks.a]\ncrate = \"a\"\npriority = 1\nstart_order = 1\n";
const NET: &str = "[devices.n]\nkind = \"virtio-net\"\ndriver = \"a\"\n";

fn manifest(extra: &str) -> Manifest {
    conflux_manifest::parse(&format!("{BASE}{extra}"), "s.toml").unwrap()
}

const INSTALLED: Host = Host {
    passt_installed: true,
};
const MISSING: Host = Host {
    passt_installed: false,
};

#[test]
fn slirp_is_the_default_and_a_request_or_the_environment_moves_it() {
    let m = manifest(NET);
    let slirp = Choice {
        network: Network::Slirp,
        fallback: None,
    };
    let passt = Choice {
        network: Network::Passt,
        fallback: None,
    };
    assert_eq!(choose(&m, None, None, &INSTALLED).unwrap(), slirp);
    assert_eq!(
        choose(&m, None, Some(Network::Passt), &INSTALLED).unwrap(),
        passt
    );
    assert_eq!(
        choose(&m, Some(Network::Slirp), Some(Network::Passt), &INSTALLED).unwrap(),
        slirp,
        "the caller's request beats the environment"
    );
}

#[test]
fn a_missing_passt_falls_back_to_slirp_with_a_line() {
    let c = choose(&manifest(NET), Some(Network::Passt), None, &MISSING).unwrap();
    assert_eq!(c.network, Network::Slirp);
    assert!(c.fallback.unwrap().contains("apt-get install passt"));
}

#[test]
fn guest_forwards_keep_a_system_on_slirp() {
    let net = format!("{NET}guest_forwards = [{{ guest_port = 5801, host = 5801 }}]\n");
    let c = choose(&manifest(&net), Some(Network::Passt), None, &INSTALLED).unwrap();
    assert_eq!(c.network, Network::Slirp);
    assert!(c.fallback.unwrap().contains("guest_forwards"), "names why");
}

#[test]
fn a_test_that_needs_passt_gets_it_or_a_clear_error() {
    let test = "[test]\nexpect = [\"x\"]\nnetwork = \"passt\"\n";
    let m = manifest(&format!("{NET}{test}"));
    let c = choose(&m, Some(Network::Slirp), Some(Network::Slirp), &INSTALLED).unwrap();
    assert_eq!(c.network, Network::Passt, "the test's need wins");
    let e = choose(&m, None, None, &MISSING).unwrap_err();
    assert!(
        e.contains("needs the passt network backend") && e.contains("qemu/setup.sh"),
        "{e}"
    );
}

#[test]
fn passt_args_bind_everything_to_loopback_and_turn_the_gateway_map_off() {
    use conflux_manifest::{Forward, Protocol};
    let forwards = [
        Forward {
            host: 5583,
            guest: 80,
            protocol: Protocol::Tcp,
        },
        Forward {
            host: 5584,
            guest: 81,
            protocol: Protocol::Tcp,
        },
        Forward {
            host: 5700,
            guest: 5700,
            protocol: Protocol::Udp,
        },
    ];
    let args = passt::args(std::path::Path::new("/t/sock"), &forwards).join(" ");
    for part in [
        "--ipv4-only",
        "--outbound 127.0.0.1",
        "--no-map-gw",
        "--one-off",
        "--socket /t/sock",
        "--tcp-ports 127.0.0.1/5583:80,5584:81",
        "--udp-ports 127.0.0.1/5700:5700",
    ] {
        assert!(args.contains(part), "{part} missing from {args}");
    }
    let none = passt::args(std::path::Path::new("/t/sock"), &[]).join(" ");
    assert!(none.contains("--tcp-ports none --udp-ports none"), "{none}");
}

#[test]
fn a_directory_closed_to_others_is_seen() {
    use std::os::unix::fs::PermissionsExt;
    let base = std::env::temp_dir().join(format!("conflux-open-{}", std::process::id()));
    let inner = base.join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(passt::open_to_others(&inner));
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert!(!passt::open_to_others(&inner));
    let _ = std::fs::remove_dir_all(&base);
}
