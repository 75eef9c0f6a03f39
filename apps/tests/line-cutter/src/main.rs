//! Line cutter: waits until the splicer has left its console line
//! unfinished, prints a line of its own, and tells the splicer it may go
//! on. It is more urgent than the splicer, so the splicer's signal hands
//! it the CPU at once; the hand-over through notifications, not yields,
//! keeps a timer tick from changing the order under TCG.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::Notification;
use conflux_userlib::println;

conflux_userlib::entry!(main);

fn main() {
    if Notification(config::caps::CUT).wait().is_err() {
        println!("could not wait for the splicer's signal (`cut` capability missing?)");
        return;
    }
    println!("cuts in");
    if Notification(config::caps::HEARD).signal().is_err() {
        println!("could not signal the splicer (`heard` capability missing?)");
    }
}
