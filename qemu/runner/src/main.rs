//! `conflux`: the host side of Conflux.
//!
//! Builds a system's boot image from its manifest (kernel + task ELFs),
//! boots it in QEMU `q35` with the right accelerator, and turns what the
//! guest prints and how QEMU exits into verdicts. `cargo make` tasks call
//! this tool; it can also be run directly with `cargo run -p conflux-runner`.

mod accel;
mod bench;
mod build_hints;
mod crash;
mod devices;
mod disks;
mod exchanges;
mod forwards;
mod guest_test;
mod host_cpu;
mod host_test;
mod host_wait;
mod http_peer;
mod image;
mod lint;
mod linux_peer;
mod loadable;
mod lower;
mod netback;
mod new_app;
mod oracle;
mod qemu;
mod report;
mod run_verdict;
mod soak;
mod symbolize;
mod task_config;
mod tcp_peer;
mod typist;
mod udp_peer;
mod workspace;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "conflux", about = "Build and run Conflux systems in QEMU")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a system and boot it with the serial console on this terminal.
    Run {
        /// A system name (qemu/systems/NAME.toml or qemu/tests/NAME.toml) or a manifest path.
        #[arg(default_value = "default")]
        system: String,
        /// Accelerator: tcg, icount or kvm (default: kvm only where hardware-backed, else tcg).
        #[arg(long)]
        accel: Option<accel::Accel>,
        /// Rebuild the disk made from a host folder (target/disks/SYSTEM.img), dropping what earlier runs wrote.
        #[arg(long)]
        fresh_disk: bool,
        /// The host port (on 127.0.0.1) forwarded to httpd's port 80 in the guest (default: the manifest's, 8080).
        #[arg(long)]
        http_port: Option<u16>,
        /// The user-mode network: slirp (QEMU's, the default) or passt (needs the passt package); default from CONFLUX_NET.
        #[arg(long, value_parser = parse_network)]
        net: Option<conflux_manifest::Network>,
    },
    /// Run every host test, then every in-guest test system.
    Test {
        /// Only guest tests whose name contains this text (host tests are skipped when given).
        filter: Option<String>,
    },
    /// Boot a system halted, waiting for gdb, and print the command to attach.
    Gdb {
        #[arg(default_value = "default")]
        system: String,
    },
    /// Build a system's boot image and print where it is.
    Build {
        #[arg(default_value = "default")]
        system: String,
    },
    /// Run benchmarks (all, or the one named) and append records to target/bench/results.jsonl.
    Bench { name: Option<String> },
    /// Write the benchmark report (report.md and SVG plots) from the records.
    Report {
        /// The records to read (default: target/bench/results.jsonl).
        #[arg(long)]
        results: Option<std::path::PathBuf>,
        /// The folder for report.md and plots/ (default: target/bench).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// The soak: the soak system under HTTP load, shell commands, flows,
    /// a file writer and random kills of drivers and servers, then every
    /// record checked (see qemu/runner/src/soak.rs).
    Soak {
        /// How long the load runs, in minutes.
        #[arg(default_value_t = 30.0)]
        minutes: f64,
        /// Repeat the random choices of an earlier run (its printed seed).
        #[arg(long)]
        seed: Option<u64>,
        /// The host port (on 127.0.0.1) forwarded to httpd.
        #[arg(long, default_value_t = soak::HTTP_PORT)]
        http_port: u16,
        /// The tasks to kill, comma-separated (default: blk,nic,net,fs,soft,flowmgr).
        #[arg(long, value_delimiter = ',')]
        victims: Vec<String>,
    },
    /// Check formatting and run clippy (warnings denied) on host and guest crates.
    Lint,
    /// Create an app from a template, and its system qemu/systems/NAME.toml:
    /// with --uses, one task crate apps/NAME that uses the file and/or
    /// network server; without, a new service (server, client and protocol
    /// crates under apps/NAME).
    NewApp {
        /// Lower-case letters, digits and `-`, starting with a letter (at most 24 bytes).
        name: String,
        /// The servers the app uses, comma-separated: fs, net.
        #[arg(long, value_delimiter = ',')]
        uses: Vec<String>,
    },
}

fn parse_network(text: &str) -> Result<conflux_manifest::Network, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a network backend: use `slirp` or `passt`"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = workspace::check_root().and_then(|()| match cli.command {
        Command::Run {
            system,
            accel,
            fresh_disk,
            http_port,
            net,
        } => qemu::run_interactive(&system, accel, fresh_disk, http_port, net),
        Command::Test { filter } => guest_test::run_all(filter.as_deref()),
        Command::Gdb { system } => qemu::run_gdb(&system),
        Command::Build { system } => image::build_named(&system).map(|b| {
            println!(
                "boot image: {}\nkernel:     {}",
                b.image.display(),
                b.kernel.display()
            );
        }),
        Command::Bench { name } => bench::run(name.as_deref()),
        Command::Report { results, out } => report::run(results.as_deref(), out.as_deref()),
        Command::Soak {
            minutes,
            seed,
            http_port,
            victims,
        } => soak::command(minutes, seed, http_port, &victims),
        Command::Lint => lint::run(),
        Command::NewApp { name, uses } => new_app::run(&name, &uses),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conflux: error: {e}");
            ExitCode::FAILURE
        }
    }
}
