//! Exits immediately: the endpoint it serves then has a dead server.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

conflux_userlib::entry!(main);

fn main() {
    conflux_userlib::println!("exiting at once");
}
