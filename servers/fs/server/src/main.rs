//! The file server. It mounts the ext4 file system on the virtio-blk
//! driver (through `conflux-fs-core`'s write-back block cache), then
//! serves its endpoint: each client, known by the badge on its endpoint
//! capability, connects by sharing its control region, and then sends
//! file operations one per IPC (VAN) or compounds that the server
//! verifies with `cosy-abi` and runs with the file operations as the
//! service (COSY; COSY-FAST when the buffers are the client's data
//! regions), in slices, so a long compound never holds up the others.
//! Each client's session is held to its file rights from the manifest
//! (`rights`): a root it cannot leave, read-only or read-write.
//! See `docs/fs.md`, "The file server".
//!
//! When init restarts it after a fault, the new instance begins a new
//! session with the block driver (which drops the old one once the device
//! has finished its requests), mounts again (rsext4 replays the journal:
//! what was fsynced is there, what sat unsynced in the old cache is gone)
//! and serves again; clients, whose calls failed with `DeadPeer`,
//! reconnect and share their regions again.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

mod clients;
mod disk;
mod endpoint_loop;
mod fault;
mod jobs;
mod priority;
mod request;
mod rights;
mod rings;
mod serve;

use conflux_blk_client::{Caps, Connection};
use conflux_cosy_ipc::slots::SlotPool;
use conflux_ext4::{blocks_in_image, FileSystem, FixedClock, MetaSizes};
use conflux_fs_core::pages::PAGE;
use conflux_fs_core::{BlockCache, Disk, Files, Pages};
use conflux_fs_protocol::{ipc, FsError};
use conflux_userlib::ipc::{reply, Endpoint, Message};
use conflux_userlib::println;

use clients::{Clients, MAX_CLIENTS};
use disk::BlkDisk;
use serve::Server;

conflux_userlib::entry!(main);

/// Block-cache slots (4 KiB each): a quarter of the heap the manifest
/// gives the server (8 MiB of 32). File data is kept by the page cache
/// above the file system (half the heap); the blocks cached here are
/// mostly metadata, and data on its way to and from the disk.
const CACHE_BLOCKS: usize = config::HEAP_SIZE / 4 / conflux_fs_core::BLOCK;
/// Page-cache pages: seven sixteenths of the heap (14 MiB of 32), as
/// Linux gives free memory to its page cache.
const PAGES: usize = config::HEAP_SIZE / 16 * 7 / PAGE;
/// The metadata caches (inodes, names, directory listings): an eighth.
/// The rest (three sixteenths) holds rsext4's own state, sessions and
/// compounds.
const META_BYTES: usize = config::HEAP_SIZE / 8;
/// Where a transferred capability lands.
const RECEIVED: usize = config::caps::FIRST_FREE;
/// Then each client's control-region slot, reserved for its badge, so
/// every client the manifest names can always connect.
const CONTROL_CAPS: usize = RECEIVED + 1;
/// Then the reply slots: one per client (its running compound or waiting
/// RING_ENTER) and one to receive into (`endpoint_loop`).
const REPLIES: usize = CONTROL_CAPS + MAX_CLIENTS;
/// The rest of the table holds data regions, taken by whichever session
/// attaches one (`clients`): ATTACH past it is refused `TableFull`.
const POOL: usize = REPLIES + MAX_CLIENTS + 1;
const _: () = assert!(
    POOL < conflux_abi::cap::CAP_SLOTS,
    "the manifest gives the file server more clients than its capability table holds: \
     each badge takes a control-region slot and a reply slot, and at least one slot \
     must be left for data regions; give fewer tasks a capability to its endpoint, \
     or share badges"
);
/// Inode times: the system has no real-time clock task yet, so files get
/// the time the image was built with (2026-11-24T00:00:00Z).
const NOW: i64 = 1_795_478_400;

fn main() {
    let link = Connection::open(Caps {
        region: config::caps::DISK0,
        addr: config::caps::DISK0_ADDR,
        size: config::caps::DISK0_SIZE,
        done: config::caps::DISK0_DONE,
        doorbell: config::caps::DISK0_DOORBELL,
    });
    let link = match link {
        Ok(l) => l,
        Err(e) => {
            println!("cannot reach the block driver: {e}; the file server stops");
            return;
        }
    };
    let restarted = link.restarted();
    let mut disk = BlkDisk::new(link, u64::MAX);
    let mut first = [0u8; conflux_fs_core::BLOCK];
    let blocks = disk
        .read(0, &mut first)
        .ok()
        .and_then(|_| blocks_in_image(&first));
    let Some(blocks) = blocks else {
        println!(
            "disk0 holds no ext4 file system with 4 KiB blocks (make it with \
             mke2fs -t ext4 -b 4096); the file server stops"
        );
        return;
    };
    disk.set_blocks(blocks);
    // The page pool first, while the heap is one free run: a mount that
    // replays a journal leaves it fragmented, and the pool (one piece)
    // would then get only half its size (found by the soak test).
    let Some(pages) = page_pool() else {
        println!(
            "cannot allocate even 64 pages for the page cache from a heap of {} KiB; \
             give the file server a larger heap_size in the manifest (the file server stops)",
            config::HEAP_SIZE / 1024
        );
        return;
    };
    let cache = BlockCache::new(disk, CACHE_BLOCKS);
    let meta = MetaSizes::within(META_BYTES);
    let fs = match FileSystem::mount_sized(cache, FixedClock(NOW), meta) {
        Ok(fs) => fs,
        Err(e) => {
            println!(
                "cannot mount the ext4 file system on disk0: {e}; \
                 check the image with e2fsck -fn (the file server stops)"
            );
            return;
        }
    };
    println!(
        "caches of a {} KiB heap: pages {} KiB, blocks {} KiB, metadata {} KiB \
         ({} inodes, {} names)",
        config::HEAP_SIZE / 1024,
        pages.capacity() * PAGE / 1024,
        CACHE_BLOCKS * conflux_fs_core::BLOCK / 1024,
        meta.bytes() / 1024,
        meta.inodes,
        meta.names
    );
    let fs = Files::new(fs, pages, FixedClock(NOW));
    let totals = fs.stats();
    println!(
        "ext4 mounted{}{}: {} of {} blocks free, {} of {} inodes free",
        if fs.is_read_only() { " read-only" } else { "" },
        if restarted {
            " again after a restart (journal replayed; clients must reconnect)"
        } else {
            ""
        },
        totals.free_blocks,
        totals.total_blocks,
        totals.free_inodes,
        totals.total_inodes
    );
    let pool = SlotPool::new(POOL, conflux_abi::cap::CAP_SLOTS - POOL);
    println!(
        "{} clients; {} capability slots for their data regions, shared",
        MAX_CLIENTS,
        pool.capacity()
    );
    let injection = fault::Injection::new(restarted);
    let mut server = Server::new(fs, Clients::new(CONTROL_CAPS, pool), injection);
    let shutdown = endpoint_loop::serve(&mut server, Endpoint(config::caps::FS), REPLIES, RECEIVED);
    println!("shutting down: writing everything back and unmounting");
    let answer = match server.fs.unmount() {
        Ok(()) => {
            println!("unmounted cleanly; the file server stops");
            Message::new(ipc::OK, &[])
        }
        Err(e) => {
            println!("unmount failed: {e}; the journal will be replayed at the next mount");
            Message::new(u32::from(cosy_abi::code::SERVICE | FsError::Io.code()), &[])
        }
    };
    let _ = reply(shutdown, &answer);
}

/// The page cache, as large as [`PAGES`] or, if the heap cannot give
/// that much in one piece, the largest half of it that fits.
fn page_pool() -> Option<Pages> {
    let mut want = PAGES.max(64);
    loop {
        match Pages::new(want) {
            Ok(pages) => return Some(pages),
            Err(_) if want > 64 => want /= 2,
            Err(_) => return None,
        }
    }
}
