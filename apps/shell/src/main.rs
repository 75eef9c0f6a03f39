//! The operator's shell on the serial console, and what `cargo make run`
//! lands in.
//!
//! It holds the console's IRQ capability (so it alone reads what is typed
//! and may list the tasks), a session with the file server whose badge
//! carries the admin bit (for `poweroff`), the ACPI power-management
//! ports and, where the system has a network, a session with the network
//! server (`ping`, `net`) and, where the system has one, flowmgr
//! (`flow`). Every command reports a failure as `COMMAND: FILE: why`, and a
//! failed command never ends the shell.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod content;
mod files;
mod flow;
mod line;
mod net;
mod system;
mod words;

use alloc::string::String;
use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::console::Input;
use conflux_userlib::println;

conflux_userlib::entry!(main);

/// Why a command failed, for the shell to report.
pub enum Failed {
    /// Already printed.
    Reported,
    /// Nothing to print (grep found nothing).
    Quiet,
    /// The arguments do not fit the command: its usage.
    Usage(String),
    /// An operation on `what` (a file, or `FROM -> TO`) failed.
    On(String, Error),
}

impl Failed {
    pub fn usage(text: &str) -> Self {
        Self::Usage(String::from(text))
    }

    pub fn on(what: &str, e: Error) -> Self {
        Self::On(String::from(what), e)
    }
}

fn main() {
    let input = Input::new(config::caps::CONSOLE, config::caps::CONSOLE_NOTIFY);
    let mut lines = line::Lines::new(line::Console::new(input));
    let mut fs = match Fs::connect(conflux_fs_client::manifest_caps!()) {
        Ok(fs) => fs,
        Err(e) => {
            println!("cannot reach the file server: {e}; the shell stops (see the file server's lines above for why)");
            conflux_userlib::sys::exit(1);
        }
    };
    let mut link = net::NetLink::default();
    println!(
        "Conflux shell on system '{}': type `help` for the commands",
        config::SYSTEM_NAME
    );
    loop {
        let cwd = match fs.getcwd() {
            // The file server restarted since the last command (`kill fs`,
            // or a fault): the prompt's own call is the first to hear it.
            Err(e) if session_lost(&e) => {
                println!("the file server restarted ({e}); reconnecting");
                reconnect(&mut fs);
                fs.getcwd().unwrap_or_else(|_| String::from("?"))
            }
            cwd => cwd.unwrap_or_else(|_| String::from("?")),
        };
        let text = match lines.read(&alloc::format!("{cwd} $ ")) {
            Ok(text) => text,
            Err(_) => {
                println!("the kernel refused to read the console: this task must hold COM1's IRQ capability; the shell stops");
                conflux_userlib::sys::exit(1);
            }
        };
        let line = match words::split(&text) {
            Ok(line) => line,
            Err(why) => {
                println!("{why}");
                continue;
            }
        };
        let Some((cmd, args)) = line.words.split_first() else {
            continue;
        };
        if cmd != "echo" && line.redirect != words::Redirect::None {
            println!("{cmd}: only echo writes its output to a file (`>`, `>>`)");
            continue;
        }
        let input = lines.console().input();
        let result = run(&mut fs, &mut link, input, cmd, args, &line.redirect);
        match result {
            Ok(()) | Err(Failed::Reported) | Err(Failed::Quiet) => {}
            Err(Failed::Usage(usage)) => println!("{cmd}: usage: {usage}"),
            Err(Failed::On(what, e)) if session_lost(&e) => {
                println!("{cmd}: {what}: {e}");
                if reconnect(&mut fs) {
                    println!("run the command again");
                }
            }
            Err(Failed::On(what, e)) => println!("{cmd}: {what}: {e}"),
        }
    }
}

/// Whether `e` says the file server no longer knows this session: it
/// restarted (`ServerRestarted` comes once, to the first call after it;
/// calls after that get `NotConnected` from the new instance).
fn session_lost(e: &Error) -> bool {
    matches!(e, Error::ServerRestarted | Error::Fs(FsError::NotConnected))
}

/// Connects again to a restarted file server; says how it went.
fn reconnect(fs: &mut Fs) -> bool {
    match fs.reconnect() {
        Ok(()) => {
            println!("reconnected to the file server");
            true
        }
        Err(e) => {
            println!("cannot reconnect to the file server: {e}; the next command tries again");
            false
        }
    }
}

fn run(
    fs: &mut Fs,
    link: &mut net::NetLink,
    input: &Input,
    cmd: &str,
    args: &[String],
    redirect: &words::Redirect,
) -> Result<(), Failed> {
    match cmd {
        "help" => {
            system::help();
            Ok(())
        }
        "ls" => files::ls(fs, args),
        "stat" => files::stat(fs, args),
        "mkdir" => files::mkdir(fs, args),
        "rmdir" => files::rmdir(fs, args),
        "rm" => files::rm(fs, args),
        "mv" => files::mv(fs, args),
        "cd" => files::cd(fs, args),
        "pwd" => files::pwd(fs),
        "df" => files::df(fs),
        "sync" => files::sync(fs),
        "cat" => content::cat(fs, args),
        "cp" => content::cp(fs, args),
        "write" => content::write(fs, args),
        "echo" => content::echo(fs, args, redirect),
        "grep" => content::grep(fs, args),
        "hexdump" => content::hexdump(fs, args),
        "ps" => system::ps(input),
        "kill" => system::kill(input, args),
        "ping" => net::ping(link, args),
        "net" => net::net(link, args),
        "flow" => flow::flow(args),
        "poweroff" => system::poweroff(fs),
        _ => {
            println!("{cmd}: no such command; `help` lists them");
            Err(Failed::Reported)
        }
    }
}
