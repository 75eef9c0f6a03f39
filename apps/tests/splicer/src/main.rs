//! Splicer: leaves its console line unfinished while another task (the
//! line cutter) prints, and ends with an unfinished line, so the kernel's
//! exit report follows it. The console must end the splicer's line before
//! another writer's, and start every line with its writer's prefix; the
//! test's expectations accept only lines that start so.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::Notification;
use conflux_userlib::{print, println};

conflux_userlib::entry!(main);

fn main() {
    print!("unfinished");
    // The cutter prints while this line is open, then answers.
    let handed = Notification(config::caps::CUT).signal().is_ok()
        && Notification(config::caps::HEARD).wait().is_ok();
    if !handed {
        println!("could not hand over to the line cutter (`cut`/`heard` capabilities missing?)");
    }
    println!("continued");
    println!("conflux: all tasks ended: 2 exited");
    print!("exiting mid-line");
}
