//! Decoy: a server standing where a fault endpoint would be. For each
//! message it answers what it saw, `[from_kernel, label, word 0, badge]`,
//! and first tries to answer with the kernel-only bit set, which must be
//! refused. Label 9 stops it.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

use conflux_abi::ipc::Info;
use conflux_abi::{SysError, Sysno};
use conflux_userlib::ipc::{reply, Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::sys::syscall6;
use conflux_userlib::testing::Checks;

conflux_userlib::entry!(main);

const REPLY: usize = config::caps::FIRST_FREE;
const STOP: u32 = 9;

/// A reply through `REPLY` with a raw info word.
fn raw_reply(info: u64) -> Result<(), SysError> {
    let r = syscall6(Sysno::Reply as u64, REPLY as u64, info, 0, 0, 0, 0);
    match r.rax {
        0 => Ok(()),
        code => Err(SysError::from_code(code).unwrap_or(SysError::UnknownSyscall)),
    }
}

fn main() {
    let mut c = Checks::new();
    let ep = Endpoint(config::caps::DECOY);
    loop {
        let got = match ep.recv(REPLY, 0) {
            Ok(got) => got,
            Err(e) => {
                println!("recv failed: {e}");
                break;
            }
        };
        let m = got.msg;
        if m.label == STOP {
            let _ = reply(REPLY, &Message::new(STOP, &[]));
            break;
        }
        println!(
            "got label {:#x}, from_kernel {}, badge {}",
            m.label, m.from_kernel, got.badge
        );
        let forged = Info {
            from_kernel: true,
            ..Info::new(0, 0)
        }
        .encode()
        .expect("a valid info word");
        c.eq(
            "reply claiming to come from the kernel",
            raw_reply(forged),
            Err(SysError::InvalidArgument),
        );
        let seen = [
            u64::from(m.from_kernel),
            u64::from(m.label),
            m.words[0],
            got.badge,
        ];
        let _ = reply(REPLY, &Message::new(0, &seen));
    }
    c.finish();
}
