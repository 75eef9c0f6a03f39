//! Runaway client (test fs-fair): once told to start, runs compounds that
//! ask for every step the server allows and spend them in a tight loop,
//! one after another, until one is cancelled (the latency client detaches
//! this session through a capability with this client's badge). Each
//! compound that ends must have used exactly the server's step limit.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::FsError;
use conflux_userlib::ipc::Notification;
use conflux_userlib::println;
use conflux_userlib::testing::Checks;
use cosy_abi::{code, Builder, Outcome};

conflux_userlib::entry!(main);

/// More compounds than the test can take: it ends by cancelling one.
const MOST: u32 = 1000;

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let mut b = Builder::new();
    b.step_budget(u32::MAX);
    let spin = b.label();
    b.bind(spin);
    b.jump(spin);
    let spin = b.build().expect("a tight loop builds");
    let _ = Notification(config::caps::GO).wait();
    let mut full = 0;
    let mut last = Ok(());
    for _ in 0..MOST {
        match fs.run(&spin, &[]) {
            Ok(r)
                if (r.outcome, r.stop_code)
                    == (Outcome::Stopped as u16, code::BUDGET_EXHAUSTED)
                    && u64::from(r.steps) == fs.max_steps() =>
            {
                full += 1
            }
            Ok(r) => {
                last = Err(alloc::format!("{r:?}"));
                break;
            }
            Err(e) => {
                last = Err(alloc::format!("{e:?}"));
                if e == Error::Fs(FsError::Cancelled) {
                    last = Ok(());
                }
                break;
            }
        }
    }
    println!("{full} runaway compounds ran to the step limit before one was cancelled");
    c.that(
        "runaway compounds ran until one was cancelled",
        last.is_ok(),
        last,
    );
    let _ = Notification(config::caps::DONE).signal();
    c.finish()
}
