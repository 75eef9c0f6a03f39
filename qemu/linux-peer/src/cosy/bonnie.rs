//! bonnie's phases on Linux (`apps/bench/cosybench/src/bonnie.rs`), each timed
//! on its own, in order, each run as Conflux's VAN run makes it:
//! `putc-N` (N one-byte `write`s to `FILE.putc`, created, truncated),
//! `write` (the file written in 4 KiB blocks), `rewrite` (each block
//! `pread`, its first byte set to the block's number, `pwrite` back),
//! `read` (4 KiB `read`s, each block's CRC-32C chained; the answer is the
//! bytes << 32 plus the checksum) and `seeks-N` (N random blocks from
//! xorshift64, `lseek` + `read`, every tenth `lseek` + `write` back). The
//! bytes written are Conflux's (`(i % 95) + ' '`), so every answer is the
//! one Conflux's task prints, and each must be what the phase must give
//! (computed here without the disk). Each phase through system calls,
//! then through io_uring (`super::uring`).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

use cosy_abi::crc32c;
use cosybench_core::layout::APP_LEN;
use cosybench_core::work::{next, BLOCK};

use super::files::ring;
use super::plan::{count, Step};
use super::uring::{self, Uring};
use super::{rounds, timed, Via, VIAS};
use crate::report::Checks;

/// Where the seekers' block sequence starts (Conflux's).
const SEEK_SEED: u64 = 0x6a09_e667_f3bc_c908;

/// A phase of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Putc,
    Write,
    Rewrite,
    Read,
    Seeks,
}

/// What the phases run with.
#[derive(Clone, Copy)]
struct Sizes {
    blocks: u64,
    chars: u64,
    seeks: u64,
}

pub fn run(checks: &mut Checks, step: &Step) -> Result<(), String> {
    let [file, size, chars, seeks] = &step.params[..] else {
        return Err("bonnie: parameters are FILE SIZE PUTC-BYTES SEEKS".into());
    };
    let size = count(size, 1 << 40).map_err(|e| format!("bonnie: size {e}"))?;
    if size % BLOCK != 0 {
        return Err(format!("bonnie: size {size} is not whole 4 KiB blocks"));
    }
    let sizes = Sizes {
        blocks: size / BLOCK,
        chars: count(chars, u64::from(APP_LEN)).map_err(|e| format!("bonnie: putc bytes {e}"))?,
        seeks: count(seeks, 1 << 32).map_err(|e| format!("bonnie: seeks {e}"))?,
    };
    let data: Vec<u8> = (0..u64::from(APP_LEN))
        .map(|i| (i % 95) as u8 + b' ')
        .collect();
    let putc_file = format!("{file}.putc");
    let phases = [
        (
            Phase::Putc,
            format!("putc-{}", sizes.chars),
            putc_file.as_str(),
        ),
        (Phase::Write, "write".into(), file.as_str()),
        (Phase::Rewrite, "rewrite".into(), file),
        (Phase::Read, "read".into(), file),
        (Phase::Seeks, format!("seeks-{}", sizes.seeks), file),
    ];
    for (phase, param, path) in phases {
        let bytes = match phase {
            Phase::Putc => &data[..sizes.chars as usize],
            _ => &data[..BLOCK as usize],
        };
        let expected = expected(phase, sizes, bytes);
        let mut u = ring()?;
        for via in VIAS {
            rounds(
                checks,
                "bonnie",
                &param,
                via,
                step.rounds,
                Some(expected),
                || {
                    timed(|| match via {
                        Via::Syscall => one(phase, path, sizes, bytes),
                        Via::IoUring => in_ring(&mut u, phase, path, sizes, bytes),
                    })
                },
            )?;
        }
    }
    Ok(())
}

/// What a run of `phase` must answer when every call moves all its bytes.
fn expected(phase: Phase, s: Sizes, bytes: &[u8]) -> u64 {
    match phase {
        Phase::Putc => s.chars,
        Phase::Write | Phase::Rewrite => s.blocks * BLOCK,
        Phase::Read => {
            // After rewrite, block i is the written block with its first
            // byte i's low byte.
            let mut block = bytes.to_vec();
            let crc = (0..s.blocks).fold(0, |crc, i| {
                block[0] = i as u8;
                crc32c(crc, &block)
            });
            ((s.blocks * BLOCK) << 32) + u64::from(crc)
        }
        Phase::Seeks => {
            let (mut x, mut total) = (SEEK_SEED, 0);
            for i in 0..s.seeks {
                x = next(x);
                total += BLOCK + x % s.blocks * BLOCK;
                if i % 10 == 9 {
                    total += BLOCK;
                }
            }
            total
        }
    }
}

/// One run of `phase` on `path` through io_uring (`super::uring`).
fn in_ring(u: &mut Uring, phase: Phase, path: &str, s: Sizes, bytes: &[u8]) -> io::Result<u64> {
    match phase {
        Phase::Putc => uring::write_pieces(u, path, bytes, 1, s.chars),
        Phase::Write => uring::write_pieces(u, path, bytes, bytes.len(), s.blocks),
        Phase::Rewrite => uring::rewrite(u, path, s.blocks),
        Phase::Read => uring::read_crc(u, path, s.blocks * BLOCK),
        Phase::Seeks => uring::seeks(u, path, SEEK_SEED, s.seeks, s.blocks),
    }
}

/// One run of `phase` on `path`: Conflux's VAN answer.
fn one(phase: Phase, path: &str, s: Sizes, bytes: &[u8]) -> io::Result<u64> {
    let create = || {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
    };
    let read_write = || OpenOptions::new().read(true).write(true).open(path);
    let mut total = 0u64;
    let mut block = vec![0u8; BLOCK as usize];
    match phase {
        Phase::Putc => {
            let mut f = create()?;
            for ch in bytes.chunks(1) {
                total += f.write(ch)? as u64;
            }
        }
        Phase::Write => {
            let mut f = create()?;
            for _ in 0..s.blocks {
                total += f.write(bytes)? as u64;
            }
        }
        Phase::Rewrite => {
            let f = read_write()?;
            for i in 0..s.blocks {
                let n = f.read_at(&mut block, i * BLOCK)?;
                block[0] = i as u8;
                total += f.write_at(&block[..n], i * BLOCK)? as u64;
            }
        }
        Phase::Read => {
            let mut f = File::open(path)?;
            let mut crc = 0;
            loop {
                let n = f.read(&mut block)?;
                crc = crc32c(crc, &block[..n]);
                total += n as u64;
                if n != block.len() {
                    break;
                }
            }
            total = (total << 32) + u64::from(crc);
        }
        Phase::Seeks => {
            let mut f = read_write()?;
            let mut x = SEEK_SEED;
            for i in 0..s.seeks {
                x = next(x);
                let at = x % s.blocks * BLOCK;
                f.seek(SeekFrom::Start(at))?;
                let n = f.read(&mut block)?;
                total += n as u64 + at;
                if i % 10 == 9 {
                    f.seek(SeekFrom::Start(at))?;
                    total += f.write(&block[..n])? as u64;
                }
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phases_run_on_a_host_file_give_the_expected_answers() {
        let dir = std::env::temp_dir().join(format!("linux-peer-bonnie-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.bin");
        let path = path.to_str().unwrap();
        let s = Sizes {
            blocks: 3,
            chars: 10,
            seeks: 20,
        };
        let data: Vec<u8> = (0..BLOCK).map(|i| (i % 95) as u8 + b' ').collect();
        for phase in [
            Phase::Putc,
            Phase::Write,
            Phase::Rewrite,
            Phase::Read,
            Phase::Seeks,
        ] {
            let bytes = if phase == Phase::Putc {
                &data[..10]
            } else {
                &data[..]
            };
            let want = expected(phase, s, bytes);
            assert_eq!(one(phase, path, s, bytes).unwrap(), want, "{phase:?}");
            if let Ok(mut u) = Uring::new() {
                let got = in_ring(&mut u, phase, path, s, bytes).unwrap();
                assert_eq!(got, want, "{phase:?} through io_uring");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
