//! After both confined clients: as an administrator with the whole tree,
//! everything outside the roots is as the host folder made it (bytes,
//! names, link counts), every change the writer made is inside `/box`,
//! and the server is shut down so the disk is clean for e2fsck.

use conflux_fs_client::{Caps, Fs};
use conflux_userlib::testing::Checks;

use crate::config::caps::{JUDGE, JUDGE_CONTROL, JUDGE_CONTROL_ADDR};
use crate::{contents, listing, names, text};

const SECRET: &[u8] = include_bytes!("../../../../qemu/fs-rights/secret.txt");
const INDEX: &[u8] = include_bytes!("../../../../qemu/fs-rights/www/index.html");
const SEED: &[u8] = include_bytes!("../../../../qemu/fs-rights/box/seed.txt");

pub fn run(c: &mut Checks) {
    let caps = Caps {
        endpoint: JUDGE,
        control: JUDGE_CONTROL,
        control_addr: JUDGE_CONTROL_ADDR,
    };
    let mut fs = match Fs::connect(caps) {
        Ok(fs) => fs,
        Err(e) => return c.that("connect as the administrator", false, e),
    };
    c.eq(
        "judge: /secret.txt unchanged",
        contents(&mut fs, "/secret.txt"),
        text(SECRET),
    );
    c.eq(
        "judge: /secret.txt has one name",
        fs.stat("/secret.txt").map(|s| s.links),
        Ok(1),
    );
    c.eq(
        "judge: /www/index.html unchanged",
        contents(&mut fs, "/www/index.html"),
        text(INDEX),
    );
    c.eq(
        "judge: ls /",
        listing(&mut fs, "/"),
        Ok(names(&["README", "box", "lost+found", "secret.txt", "www"])),
    );
    c.eq(
        "judge: ls /www unchanged",
        listing(&mut fs, "/www"),
        Ok(names(&["abs", "index.html", "leak", "sub", "up"])),
    );
    c.eq(
        "judge: ls /www/sub unchanged",
        listing(&mut fs, "/www/sub"),
        Ok(names(&["page.txt"])),
    );
    c.eq(
        "judge: /box/secret.txt is the writer's",
        contents(&mut fs, "/box/secret.txt"),
        text(b"mine"),
    );
    c.eq(
        "judge: /box/escaped.txt is the seed",
        contents(&mut fs, "/box/escaped.txt"),
        text(SEED),
    );
    c.eq(
        "judge: the seed has its two names in /box",
        fs.stat("/box/linked").map(|s| s.links),
        Ok(2),
    );
    c.eq("judge: shut the server down", fs.shutdown(), Ok(()));
}
