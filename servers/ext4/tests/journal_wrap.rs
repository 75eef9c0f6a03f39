//! A known rsext4 (=0.9.2) bug, kept as an ignored test so it is easy to
//! re-check when the library is updated: after a couple of hundred synced
//! transactions in one mount on an image with the default 4 MiB journal
//! (a 64 MiB image), `unmount` fails with `Io` (rsext4's own error, no
//! device error happened), apparently once the journal has wrapped. A
//! 256 MiB image (16 MiB journal) takes about 700. The crash test
//! (`qemu/tests/fs-crash.toml`) stays below that per boot.
//! Run with `cargo test -p conflux-ext4 --test journal_wrap -- --ignored`.

mod common;

use common::{Image, Mkfs};

#[test]
#[ignore = "rsext4 0.9.2: unmount fails with Io after ~200 synced transactions on a 4 MiB journal"]
fn unmount_after_many_synced_appends() {
    let img = Image::new(
        "unmount_after_many_synced_appends",
        Mkfs {
            size_mib: 64,
            ..Mkfs::default()
        },
    );
    let mut fs = img.mount();
    fs.mkdir("/crash", 0o755).unwrap();
    let inos: Vec<_> = (0..3)
        .map(|f| fs.create(&format!("/crash/log{f}"), 0o644).unwrap().ino)
        .collect();
    let mut next = [0u64; 3];
    for batch in 0..400u32 {
        let f = (batch % 3) as usize;
        for _ in 0..1 + batch % 3 {
            fs.write_at(inos[f], next[f] * 64, &[0xab; 64]).unwrap();
            next[f] += 1;
        }
        fs.sync().unwrap();
    }
    fs.unmount().unwrap();
    img.fsck();
}
