//! Client: once told (`now`), calls `ep`; the rightful server, not the
//! usurper whose borrowed receive capability was revoked, must answer.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

use config::caps;

fn main() {
    let mut c = Checks::new();
    c.that("told to call", Notification(caps::NOW).wait().is_ok(), ());
    let r = Endpoint(caps::EP).call(&Message::new(7, &[]));
    c.eq("the rightful server answers", r.map(|m| m.words[0]), Ok(42));
    c.finish();
}
