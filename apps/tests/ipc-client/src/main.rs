//! IPC client: checks every IPC path against the echo server.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::MAX_WORDS;
use conflux_userlib::ipc::{set_long_word, Endpoint, Message, Notification};
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

fn main() {
    let ep = Endpoint(config::caps::ECHO);
    let mut c = Checks::new();
    let r = ep.call(&Message::new(1, &[10, 20, 30, 40]));
    c.eq(
        "register call/reply with badge 7",
        r.map(|m| m.words),
        Ok([40, 30, 20, 7]),
    );

    for i in 4..MAX_WORDS {
        set_long_word(i, i as u64);
    }
    let want: u64 = (1..=4).sum::<u64>() + (4..MAX_WORDS as u64).sum::<u64>();
    let r = ep.call(&Message::new(2, &[1, 2, 3, 4]).with_len(MAX_WORDS));
    c.eq(
        "64-word message through the IPC buffer",
        r.map(|m| m.words[0]),
        Ok(want),
    );

    let r = ep.send(&Message::new(4, &[1000]));
    c.eq("one-way send", r, Ok(()));
    let r = ep.call(&Message::new(1, &[0, 5, 0, 0]));
    c.eq(
        "server saw the send before the next call",
        r.map(|m| m.words[2]),
        Ok(1005),
    );

    let token = Notification(config::caps::TOKEN);
    let r = ep.call(&Message::new(3, &[]).with_cap(config::caps::TOKEN));
    c.eq(
        "capability transfer: server signalled the token",
        r.map(|m| m.words[0]),
        Ok(1),
    );
    c.eq("token notification was signalled", token.poll(), Ok(1));

    let r = ep.call_within(&Message::new(1, &[1, 2, 3, 4]), 100);
    c.eq(
        "timed call answered in time",
        r.map(|m| m.words),
        Ok([4, 3, 1002, 7]), // word 1 plus the note sent above
    );
    // The server holds this one for 10 ticks.
    let r = ep.call_within(&Message::new(6, &[]), 3);
    c.eq(
        "timed call to a stalling server",
        r.map(|m| m.label),
        Err(conflux_userlib::SysError::TimedOut),
    );
    // Waits while the server stalls, then must get its own answer, not
    // the late one (label 6, word 666) the server sends the first call.
    let r = ep.call(&Message::new(1, &[5, 6, 7, 8]));
    c.eq(
        "the next call gets its own answer, not the late one",
        r.map(|m| (m.label, m.words)),
        Ok((1, [8, 7, 1006, 7])),
    );

    let r = ep.call(&Message::new(5, &[]));
    c.eq("server quits after replying", r.map(|m| m.label), Ok(5));
    let r = ep.call(&Message::new(1, &[]));
    c.eq(
        "call to the exited server",
        r.map(|m| m.label),
        Err(conflux_userlib::SysError::DeadPeer),
    );
    c.finish();
}
