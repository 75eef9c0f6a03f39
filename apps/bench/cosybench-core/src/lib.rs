//! What the Cosy benchmark task (`apps/bench/cosybench`) and its client tasks
//! (`apps/bench/cosybench-client`, run as several tasks: the extra processes of dbsim's 2- and
//! 4-process runs) share: where a compound's buffers lie ([`layout`]),
//! the three configurations ([`Config`]), running a compound after
//! placing its inputs ([`run_in`]), the dbsim workload ([`dbsim`]) and
//! the messages the benchmark hands jobs to its clients with ([`job`]),
//! fs-ops' operations and buffers ([`fs_ops`]), and `ls -l`'s listing and
//! compounds ([`ls_l`]), and both through each path to the file server,
//! rings included ([`paths`], the rings benchmark's, and [`many`], its
//! many-client runs' messages).
//! A client runs the same code for a job as the benchmark runs for its
//! own share, so every process of a run does the same kind of work.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

#[cfg(target_os = "none")]
pub mod client;
pub mod config;
#[cfg(target_os = "none")]
pub mod dbsim;
pub mod fs_ops;
pub mod job;
pub mod layout;
#[cfg(target_os = "none")]
pub mod ls_l;
pub mod many;
#[cfg(target_os = "none")]
pub mod paths;
#[cfg(target_os = "none")]
pub mod wire;
pub mod work;

pub use config::Config;

#[cfg(target_os = "none")]
use conflux_fs_client::{Error, Fs};

/// Runs `compound` once after `place` wrote its inputs into `region` of
/// `fs` (0: the control region, else a data region); its exit value.
/// `TooLarge` if `place` finds no room there, `Compound` (the op and its
/// error) if the compound stopped before its end.
#[cfg(target_os = "none")]
pub fn run_in(
    fs: &mut Fs,
    region: u8,
    compound: &[u8],
    place: impl FnOnce(&mut [u8]) -> bool,
) -> Result<u64, Error> {
    let memory = match region {
        0 => Some(fs.control()),
        n => fs.data(n),
    };
    if !memory.is_some_and(place) {
        return Err(Error::TooLarge);
    }
    Ok(fs.run(compound, &[])?.exit_value)
}
