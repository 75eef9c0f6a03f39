//! Commands about the machine: help, ps, kill and poweroff.

use conflux_abi::devices::ACPI_PM_BASE;
use conflux_fs_client::Fs;
use conflux_userlib::console::Input;
use conflux_userlib::ipc::IoPorts;
use conflux_userlib::println;

use crate::config;
use crate::Failed;
use alloc::string::String;

/// Every command with its arguments and what it does, for `help`.
pub const HELP: &[(&str, &str)] = &[
    ("help", "this list"),
    (
        "ls [-l] [PATH…]",
        "list a directory (-l: with each entry's status, by readdirplus)",
    ),
    ("cat FILE…", "print files"),
    ("stat PATH…", "show a file's status"),
    ("cp FROM TO", "copy a file (into TO if it is a directory)"),
    ("mv FROM TO", "rename (into TO if it is a directory)"),
    ("rm FILE…", "remove files"),
    ("mkdir DIR…", "make directories"),
    ("rmdir DIR…", "remove empty directories"),
    ("write FILE TEXT…", "make FILE hold TEXT and a newline"),
    (
        "echo TEXT… [> FILE | >> FILE]",
        "print TEXT, or write or append it to FILE",
    ),
    (
        "grep PATTERN FILE…",
        "print the lines holding PATTERN (a fixed string)",
    ),
    ("hexdump FILE", "show a file's bytes in hex"),
    ("df", "file system size and free space"),
    ("ps", "the tasks, their state, priority and restarts"),
    (
        "kill TASK",
        "stop a task (by name or `ps` number); init restarts it if its manifest says so",
    ),
    (
        "ping [-c N] ADDR",
        "N ICMP echo requests (4) to ADDR, e.g. 10.0.2.2",
    ),
    ("net", "the network address, socket counts and traffic"),
    (
        "flow create STAGE… [buffer=N]",
        "a flow through flowmgr, e.g. `flow create pattern:1000:7 crc32c null`",
    ),
    (
        "flow list|stats|pause|resume|destroy [ID]",
        "this shell's flows, a flow's figures, pause/resume/end it",
    ),
    ("cd [DIR] / pwd", "change or show the current directory"),
    ("sync", "write every cached block to the disk"),
    (
        "poweroff",
        "unmount the file system and power the machine off",
    ),
];

pub fn help() {
    for (usage, what) in HELP {
        println!("  {usage:<32} {what}");
    }
}

/// `ps`: one line per task of the system.
pub fn ps(input: &Input) -> Result<(), Failed> {
    println!(
        "  #  {:<16} {:<8} {:>4} {:>8}",
        "task", "state", "prio", "restarts"
    );
    for (i, name) in config::TASK_NAMES.iter().enumerate() {
        match input.task_info(i) {
            Ok(Some(info)) => println!(
                "{i:>3}  {name:<16} {:<8} {:>4} {:>8}",
                info.state.name(),
                info.priority,
                info.restarts
            ),
            Ok(None) => println!("{i:>3}  {name:<16} (the kernel has no such task)"),
            Err(e) => {
                println!("ps: the kernel refused task_info for task {i}: {e:?}");
                return Err(Failed::Reported);
            }
        }
    }
    Ok(())
}

/// `kill TASK`: ends a task as if it had faulted, so its supervisor's
/// restart policy applies (a way to see a driver or server recover, or to
/// end one that is stuck).
pub fn kill(input: &Input, args: &[String]) -> Result<(), Failed> {
    let [task] = args else {
        return Err(Failed::usage("kill TASK (a name or a number `ps` shows)"));
    };
    let index = config::TASK_NAMES
        .iter()
        .position(|n| n == task)
        .or_else(|| {
            task.parse()
                .ok()
                .filter(|&i: &usize| i < config::TASK_NAMES.len())
        });
    let Some(index) = index else {
        println!("kill: no task named `{task}`; `ps` lists them");
        return Err(Failed::Reported);
    };
    let name = config::TASK_NAMES[index];
    match input.stop_task(index) {
        Ok(()) => {
            println!("kill: stopped task {index} ({name})");
            Ok(())
        }
        Err(e) => {
            println!("kill: task {index} ({name}) not stopped: {e}");
            Err(Failed::Reported)
        }
    }
}

/// PM1a control register of QEMU's q35 (ICH9) power-management block.
const PM1A_CNT: u16 = ACPI_PM_BASE + 4;
/// SLP_EN with SLP_TYP 0, which is S5 (soft off) in QEMU's ACPI tables.
const SLEEP_S5: u16 = 1 << 13;

/// `poweroff`: the file server writes everything back and unmounts, then
/// the machine is switched off through ACPI.
pub fn poweroff(fs: &mut Fs) -> Result<(), Failed> {
    match fs.shutdown() {
        Ok(()) => println!("poweroff: file system unmounted cleanly"),
        Err(e) => {
            println!("poweroff: the file server could not unmount ({e}); not powering off, so no cached data is lost: try `sync`, then poweroff again");
            return Err(Failed::Reported);
        }
    }
    println!("poweroff: powering off");
    let pm = IoPorts(config::caps::ACPI);
    if let Err(e) = pm.write16(PM1A_CNT, SLEEP_S5) {
        println!("poweroff: the kernel refused the ACPI power-off port ({e:?}): the manifest must give this task `acpi-pm`");
        return Err(Failed::Reported);
    }
    // The machine stops within a few instructions; nothing follows.
    loop {
        conflux_userlib::sys::yield_now();
    }
}
