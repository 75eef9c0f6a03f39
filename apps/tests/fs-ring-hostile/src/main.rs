//! A hostile client of the file server's rings (tests fs-ring and
//! fs-ring-2cpu). It first names regions that cannot be rings (none, and
//! one it never attached), which must be refused with `BadRing`; then it
//! sets its rings up honestly, then writes them by
//! hand: each malformed entry shape (and descriptors outside the data
//! area) must come back with its own code; a thousand entries of random
//! bytes at random places must each be answered once, with their tags;
//! then it writes a submission index 1000 past the server's, after which
//! the server must drop its rings (`NoRing` at the doorbell) and still
//! serve it by IPC. Meanwhile a well-behaved client is served; it is told
//! (`done`) when this one is finished.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::vec::Vec;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::{ops, FsError};
use conflux_queue::{DataRegion, Descriptor, PopError};
use conflux_userlib::ipc::{Endpoint, Message, Notification};
use conflux_userlib::sys::rdtsc;
use conflux_userlib::testing::Checks;
use cosy_abi::code;
use cosy_abi::ring::{entry, Parts, DEPTH};

conflux_userlib::entry!(main);

/// Random entries sent, in batches below the depth.
const RANDOM: u32 = 1000;

/// Pushes `entries` (bytes at a place of the data area, or a bare
/// descriptor) by hand, rings the doorbell and collects every answer:
/// (tag, status) in the order answered.
fn exchange(
    fs: &mut Fs,
    region: u8,
    entries: &[(Descriptor, Vec<u8>)],
) -> Result<Vec<(u32, u16)>, Error> {
    {
        let bytes = fs.data(region).ok_or(Error::NoRing)?;
        let parts = Parts::attach(bytes)?;
        for (d, b) in entries {
            if let Some(at) = parts
                .data
                .get_mut(d.offset as usize..d.offset as usize + b.len())
            {
                at.copy_from_slice(b);
            }
        }
        let mut submissions = parts.submissions.into_producer();
        for (d, _) in entries {
            submissions.push(*d).map_err(|_| Error::TooLarge)?;
        }
    }
    let mut answers = Vec::new();
    while answers.len() < entries.len() {
        fs.ring_doorbell(true)?;
        let bytes = fs.data(region).ok_or(Error::NoRing)?;
        let parts = Parts::attach(bytes)?;
        let mut completions = parts.completions.into_consumer(DataRegion::new(usize::MAX));
        loop {
            let slot = match completions.pop() {
                Ok(Some(v)) => v.get(),
                Ok(None) => break,
                Err(PopError::OutOfBounds(d)) => d,
                Err(PopError::Corrupt(_)) => return Err(Error::NoRing),
            };
            answers.push((slot.id, slot.len as u16));
        }
    }
    Ok(answers)
}

fn shaped(fs: &mut Fs, region: u8, c: &mut Checks) -> Result<(), Error> {
    let op = |op: u16, words: &[u64]| {
        let mut e = alloc::vec![0u8; 64];
        let n = entry::write_op(&mut e, op, words).unwrap_or(0);
        e.truncate(n);
        e
    };
    let data_len = fs.data(region).map_or(0, |d| d.len()) - cosy_abi::ring::DATA;
    let shapes: [(Vec<u8>, u16); 8] = [
        (alloc::vec![1, 0], code::ENTRY_TRUNCATED),
        (alloc::vec![9, 0, 0, 0, 0, 0, 0, 0], code::ENTRY_KIND),
        (alloc::vec![1, 0, 0, 0, 0, 0, 0, 1], code::ENTRY_RESERVED),
        (alloc::vec![1, 0, 0, 0, 0xFF, 0, 0, 0], code::ENTRY_WORDS),
        (op(999, &[]), code::UNKNOWN_SERVICE_OP),
        (op(ops::NOP, &[1]), code::ARG_COUNT),
        // A path in region 5, which the session does not have.
        (
            op(ops::STAT, &[5 << 56 | 4 << 32, 0]),
            code::REF_OUT_OF_BOUNDS,
        ),
        (
            alloc::vec![2, 0, 0, 0, 0, 0, 0, 0, b'N', b'O', b'P', b'E'],
            code::TRUNCATED,
        ),
    ];
    let mut entries: Vec<(Descriptor, Vec<u8>)> = Vec::new();
    let mut want = Vec::new();
    for (i, (bytes, status)) in shapes.into_iter().enumerate() {
        let d = Descriptor {
            offset: i as u64 * 256,
            len: bytes.len() as u32,
            id: 100 + i as u32,
        };
        entries.push((d, bytes));
        want.push((d.id, status));
    }
    for (i, (offset, len)) in [
        (data_len as u64, 1u32),
        (u64::MAX, 8),
        (data_len as u64 - 4, 64),
    ]
    .into_iter()
    .enumerate()
    {
        let d = Descriptor {
            offset,
            len,
            id: 200 + i as u32,
        };
        entries.push((d, Vec::new()));
        want.push((d.id, code::ENTRY_OUT_OF_BOUNDS));
    }
    let got = exchange(fs, region, &entries)?;
    c.eq("each malformed entry answered with its own code", got, want);
    Ok(())
}

/// xorshift64: cheap randomness from a seed.
fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn random(fs: &mut Fs, region: u8, c: &mut Checks) -> Result<(), Error> {
    let data_len = fs.data(region).map_or(0, |d| d.len()) - cosy_abi::ring::DATA;
    let mut seed = rdtsc() | 1;
    let (mut answered, mut tags_ok, mut coded) = (0u32, true, true);
    let mut sent = 0;
    while sent < RANDOM {
        let batch = (RANDOM - sent).min(DEPTH - 1);
        let entries: Vec<(Descriptor, Vec<u8>)> = (0..batch)
            .map(|i| {
                let len = (next(&mut seed) % 300) as u32;
                let offset = next(&mut seed) % (data_len as u64 + 64);
                let mut bytes: Vec<u8> = (0..len).map(|_| next(&mut seed) as u8).collect();
                // Half of them look like entries, so deeper checks run.
                if bytes.len() >= 8 && i % 2 == 0 {
                    bytes[0] = 1 + (i % 2) as u8 + (next(&mut seed) % 2) as u8;
                    bytes[1] = 0;
                    bytes[2..4].copy_from_slice(&((next(&mut seed) % 26) as u16).to_le_bytes());
                    bytes[4..8].copy_from_slice(&[(next(&mut seed) % 7) as u8, 0, 0, 0]);
                }
                let d = Descriptor {
                    offset,
                    len,
                    id: sent + i,
                };
                (d, bytes)
            })
            .collect();
        let got = exchange(fs, region, &entries)?;
        answered += got.len() as u32;
        tags_ok &= got
            .iter()
            .zip(&entries)
            .all(|((tag, _), (d, _))| *tag == d.id);
        coded &= got.iter().all(|(_, status)| *status != code::NONE);
        sent += batch;
    }
    c.eq("1000 random entries, each answered once", answered, RANDOM);
    c.that("each answer names its entry's tag, in order", tags_ok, ());
    c.that("each answer carries a code", coded, ());
    Ok(())
}

/// RING naming `region` by hand, as a client without the library would:
/// the reply's label.
fn name_ring(region: u64) -> Result<u32, conflux_userlib::SysError> {
    let msg = Message::new(conflux_fs_protocol::ipc::RING, &[region]);
    Endpoint(config::caps::FS).call(&msg).map(|r| r.label)
}

fn main() {
    let mut c = Checks::new();
    let mut fs = Fs::connect_or_fail(conflux_fs_client::manifest_caps!());
    let bad_ring = u32::from(cosy_abi::CallError::from(FsError::BadRing).code());
    c.eq(
        "RING naming no region is refused: BadRing",
        name_ring(0),
        Ok(bad_ring),
    );
    c.eq(
        "RING naming a region never attached is refused: BadRing",
        name_ring(7),
        Ok(bad_ring),
    );
    let region = match fs.ring_open(config::caps::RING, config::caps::RING_ADDR) {
        Ok(r) => r,
        Err(e) => {
            c.that("ring set up", false, e);
            c.finish()
        }
    };
    if let Err(e) = shaped(&mut fs, region, &mut c) {
        c.that("malformed entries", false, e);
    }
    if let Err(e) = random(&mut fs, region, &mut c) {
        c.that("random entries", false, e);
    }
    // An index 1000 entries past the server's: the rings are dropped.
    if let Some(bytes) = fs.data(region) {
        let tail = u32::from_le_bytes([bytes[64], bytes[65], bytes[66], bytes[67]]);
        bytes[64..68].copy_from_slice(&tail.wrapping_add(1000).to_le_bytes());
    }
    let rang = fs.ring_doorbell(true);
    let again = fs.ring_doorbell(false);
    c.that(
        "impossible indices: the server dropped the rings",
        matches!(again, Err(Error::Fs(FsError::NoRing))),
        (rang, again),
    );
    c.eq(
        "and still serves the session by IPC",
        fs.call(ops::NOP, &[]),
        Ok(0),
    );
    let _ = Notification(config::caps::DONE).signal();
    c.finish()
}
