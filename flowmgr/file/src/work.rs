//! What `flowfile` does for a flow, as a [`Work`]: checking the file at
//! START (refusing, with a console line, what it could never read or
//! write), then one step per turn — the source reads the next pieces of
//! its range into the output buffers waiting, the sink writes the input
//! buffers waiting at their place — and making the sink's bytes durable.
//!
//! The sink writes every buffer waiting and has the file server sync
//! them before it gives any back, so what the flow let go of is on the
//! disk even if the file server restarts (and loses what it had not
//! synced): such a restart sends the sink back to the start of its batch.

use alloc::vec::Vec;
use conflux_flow_file_core::{figures, ReadCursor, WriteLimit};
use conflux_flow_protocol::stage::{FilePath, StageSpec, StageStatus, Start};
use conflux_flow_stage::{edges_match, Failure, FlowIo, Os, Step, Work, BATCH};
use conflux_fs_client::Error;
use conflux_fs_protocol::record::Kind;
use conflux_userlib::println;

use crate::files::{Access, Files, Open};

/// A file source: its range, and what it sent.
pub struct Source {
    file: Open,
    cursor: ReadCursor,
    made: u64,
    finished: bool,
    /// A piece could not be read and was skipped: count it as a drop.
    skipped: bool,
}

/// A file sink: where it writes, what it wrote, and whether the file
/// server holds bytes of it not yet synced.
pub struct Sink {
    file: Open,
    limit: WriteLimit,
    buffers: u64,
    bytes: u64,
    dirty: bool,
    /// Buffers that ran past the limit since the last step: counted as
    /// drops.
    over: u64,
}

/// The most bytes one read fetches for several buffers.
const COALESCE: usize = 16 * 1024;

/// The spec kind this task runs (`StageSpec::File`'s `kind`).
const KIND: u64 = 8;

/// One flow's job.
pub enum Job {
    Source(Source),
    Sink(Sink),
}

/// The file stage: the flows' shared session with the file server.
pub struct FileStage {
    files: Files,
    /// Where one read for several buffers lands (one flow at a time).
    staging: Vec<u8>,
}

impl FileStage {
    pub fn new(files: Files) -> Self {
        Self {
            files,
            staging: Vec::new(),
        }
    }

    /// One step of `job` (flow `flow`) on `io`.
    pub fn step(&mut self, os: &mut impl Os, flow: u32, io: &mut FlowIo, job: &mut Job) -> Step {
        let files = &mut self.files;
        match job {
            Job::Source(s) => {
                let staging = &mut self.staging;
                let step = io.source_batch(os, |bufs, results| {
                    s.fill_batch(files, staging, flow, bufs, results)
                });
                if core::mem::take(&mut s.skipped) {
                    io.count_drop();
                }
                step
            }
            Job::Sink(s) => {
                let step = io.sink_batch(os, |bufs, results| {
                    s.write_durably(files, flow, bufs, results)
                });
                for _ in 0..core::mem::take(&mut s.over) {
                    io.count_drop();
                }
                step
            }
        }
    }

    fn start_source(
        &mut self,
        flow: u32,
        path: FilePath,
        offset: u64,
        length: u64,
    ) -> Result<Job, StageStatus> {
        let mut file = Open::new(path, Access::Read);
        let refuse = |why: &dyn core::fmt::Display| {
            println!("flow {flow}: file source {path}: {why}; the flow is refused (name an existing regular file, and an offset inside it)");
            StageStatus::DeviceRefused
        };
        let stat = match self.files.once_more(&mut file, |fs, fd| fs.fstat(fd)) {
            Ok(st) => st,
            Err(e) => return Err(refuse(&e)),
        };
        let checked = if stat.kind != Kind::File {
            Err(refuse(&"not a regular file"))
        } else {
            ReadCursor::new(offset, length, stat.size).map_err(|e| refuse(&e))
        };
        match checked {
            Ok(cursor) => Ok(Job::Source(Source {
                file,
                cursor,
                made: 0,
                finished: false,
                skipped: false,
            })),
            Err(s) => {
                self.files.close(&mut file);
                Err(s)
            }
        }
    }

    fn start_sink(
        &mut self,
        flow: u32,
        path: FilePath,
        offset: u64,
        length: u64,
    ) -> Result<Job, StageStatus> {
        let mut file = Open::new(path, Access::Write);
        let refuse = |why: &dyn core::fmt::Display| {
            println!("flow {flow}: file sink {path}: {why}; the flow is refused (its directory must exist, and the path must not name a directory)");
            StageStatus::DeviceRefused
        };
        let checked = match self.files.once_more(&mut file, |fs, fd| fs.fstat(fd)) {
            Err(e) => Err(refuse(&e)),
            Ok(st) if st.kind != Kind::File => Err(refuse(&"not a regular file")),
            // An unbounded sink makes the file end where the flow's bytes
            // do (as `dd` does), so writing fewer than last time leaves no
            // stale tail; a bounded one overwrites its range in place.
            Ok(_) if length == u64::MAX => self
                .files
                .once_more(&mut file, |fs, fd| fs.ftruncate(fd, offset))
                .map_err(|e| refuse(&TruncateFailed(e))),
            Ok(_) => Ok(()),
        };
        match checked {
            Ok(()) => Ok(Job::Sink(Sink {
                file,
                limit: WriteLimit::new(offset, length),
                buffers: 0,
                bytes: 0,
                dirty: false,
                over: 0,
            })),
            Err(s) => {
                self.files.close(&mut file);
                Err(s)
            }
        }
    }
}

struct TruncateFailed(Error);

impl core::fmt::Display for TruncateFailed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "cannot cut the file at the flow's offset: {}", self.0)
    }
}

impl Source {
    /// Reads the next piece of the range into `dst`: its length,
    /// `Ok(None)` if it was skipped, `Err(Permanent)` once the range is
    /// read (the source step then finishes).
    /// Fills `bufs` from the first on with one read of the file (as many
    /// as [`COALESCE`] bytes take, at least one); returns how many it
    /// got to, `results[i]` as [`Self::fill`] would say it. A read that
    /// fails goes again as [`Self::fill`] of the first buffer alone,
    /// which says what failed.
    fn fill_batch(
        &mut self,
        files: &mut Files,
        staging: &mut Vec<u8>,
        flow: u32,
        bufs: &mut [&mut [u8]],
        results: &mut [Result<Option<usize>, Failure>],
    ) -> usize {
        let mut rooms = [0usize; BATCH];
        for (room, b) in rooms.iter_mut().zip(bufs.iter()) {
            *room = b.len();
        }
        let mut wants = [0usize; BATCH];
        let n = self
            .cursor
            .plan(&rooms[..bufs.len().min(BATCH)], COALESCE, &mut wants);
        let (Some(first), Some(result)) = (bufs.first_mut(), results.first_mut()) else {
            return 0;
        };
        if n <= 1 {
            *result = self.fill(files, flow, first);
            return 1;
        }
        let total: usize = wants[..n].iter().sum();
        let at = self.cursor.position();
        staging.resize(total, 0);
        let got = files
            .fd(&mut self.file)
            .and_then(|fd| files.fs()?.pread(fd, staging, at));
        let handled = match got {
            Ok(got) if got > 0 => {
                self.cursor.advance(total, got);
                let mut from = 0;
                let mut handled = 0;
                let pieces = bufs.iter_mut().zip(results.iter_mut()).zip(&wants[..n]);
                for ((buf, result), &want) in pieces {
                    let len = want.min(got - from);
                    if len == 0 {
                        break;
                    }
                    buf[..len].copy_from_slice(&staging[from..from + len]);
                    from += len;
                    self.made += 1;
                    *result = Ok(Some(len));
                    handled += 1;
                }
                handled
            }
            // The end of the file, or a failure: the first buffer alone
            // says which.
            _ => {
                *result = self.fill(files, flow, first);
                1
            }
        };
        handled
    }

    fn fill(
        &mut self,
        files: &mut Files,
        flow: u32,
        dst: &mut [u8],
    ) -> Result<Option<usize>, Failure> {
        let want = self.cursor.take(dst.len());
        if want == 0 {
            self.finished = true;
            return Err(Failure::Permanent);
        }
        let at = self.cursor.position();
        let got = files
            .fd(&mut self.file)
            .and_then(|fd| files.fs()?.pread(fd, &mut dst[..want], at));
        match got {
            Ok(0) => {
                self.cursor.advance(want, 0);
                self.finished = true;
                Err(Failure::Permanent)
            }
            Ok(n) => {
                self.cursor.advance(want, n);
                self.made += 1;
                Ok(Some(n))
            }
            Err(e) => match files.failed(e) {
                Failure::Transient => Err(Failure::Transient),
                Failure::Permanent => {
                    println!(
                        "flow {flow}: file source {}: reading {want} bytes at {at} failed: {e}; they are skipped and counted as a drop (check the disk)",
                        self.file.path
                    );
                    self.cursor.skip(want);
                    self.skipped = true;
                    Ok(None)
                }
            },
        }
    }
}

impl Sink {
    /// Writes every buffer lent (`bufs`, in order) at the sink's place
    /// and makes them durable before any is given back: a buffer the
    /// flow no longer holds is on the disk, whatever happens to the file
    /// server after. A file server that restarts meanwhile (which loses
    /// what it had not synced) is a transient failure of the first
    /// buffer: the sink goes back to where the batch began and the next
    /// step writes all of it again. Returns how many it got to (all, or
    /// the first alone after such a failure).
    fn write_durably(
        &mut self,
        files: &mut Files,
        flow: u32,
        bufs: &[(&[u8], u32)],
        results: &mut [Result<(), Failure>],
    ) -> usize {
        let mark = (self.limit, self.buffers, self.bytes, self.over);
        let rewind = |s: &mut Self, results: &mut [Result<(), Failure>]| {
            (s.limit, s.buffers, s.bytes, s.over) = mark;
            if let Some(first) = results.first_mut() {
                *first = Err(Failure::Transient);
            }
            1
        };
        for ((src, _), result) in bufs.iter().zip(results.iter_mut()) {
            *result = self.write(files, flow, src);
            if *result == Err(Failure::Transient) {
                return rewind(self, results);
            }
        }
        if self.dirty && self.sync(files, flow) == Err(Failure::Transient) {
            self.dirty = true;
            return rewind(self, results);
        }
        bufs.len()
    }

    /// Writes what of `src` fits the limit at the sink's place.
    fn write(&mut self, files: &mut Files, flow: u32, src: &[u8]) -> Result<(), Failure> {
        let a = self.limit.accept(src.len());
        if a.len == 0 {
            self.over += u64::from(a.excess > 0);
            return Ok(());
        }
        let wrote = files
            .fd(&mut self.file)
            .and_then(|fd| files.fs()?.pwrite(fd, &src[..a.len], a.at));
        match wrote {
            Ok(n) => {
                self.limit.wrote(n);
                self.dirty = true;
                if n < a.len {
                    println!(
                        "flow {flow}: file sink {}: only {n} of {} bytes written at {}; the buffer is dropped (is the disk full?)",
                        self.file.path, a.len, a.at
                    );
                    return Err(Failure::Permanent);
                }
                self.buffers += 1;
                self.bytes += n as u64;
                self.over += u64::from(a.excess > 0);
                Ok(())
            }
            Err(e) => {
                let f = files.failed(e);
                if f == Failure::Permanent {
                    println!(
                        "flow {flow}: file sink {}: writing {} bytes at {} failed: {e}; the buffer is dropped and counted (check the disk)",
                        self.file.path, a.len, a.at
                    );
                }
                Err(f)
            }
        }
    }

    /// Asks the file server to make the written bytes durable; how it
    /// failed, if it did (a permanent failure is said on the console,
    /// and the bytes are given up as written).
    fn sync(&mut self, files: &mut Files, flow: u32) -> Result<(), Failure> {
        let synced = files
            .fd(&mut self.file)
            .and_then(|fd| files.fs()?.fsync(fd));
        self.dirty = false;
        match synced {
            Ok(()) => Ok(()),
            Err(e) => {
                let f = files.failed(e);
                if f == Failure::Permanent {
                    println!(
                        "flow {flow}: file sink {}: sync failed: {e}; the bytes written since the last sync may not be on the disk (check the disk)",
                        self.file.path
                    );
                }
                Err(f)
            }
        }
    }
}

impl Work for FileStage {
    type Flow = Job;

    fn start(&mut self, flow: u32, start: &Start, _io: &mut FlowIo) -> Result<Job, StageStatus> {
        if !edges_match(start) {
            return Err(StageStatus::BadEdge);
        }
        let StageSpec::File {
            path,
            offset,
            length,
        } = start.spec
        else {
            return Err(StageStatus::Unsupported);
        };
        if start.output.is_some() {
            self.start_source(flow, path, offset, length)
        } else {
            self.start_sink(flow, path, offset, length)
        }
    }

    fn stop(&mut self, flow: u32, job: Job) {
        match job {
            Job::Source(mut s) => self.files.close(&mut s.file),
            Job::Sink(mut s) => {
                if s.dirty {
                    let _ = s.sync(&mut self.files, flow);
                }
                self.files.close(&mut s.file);
            }
        }
    }

    fn info(&self) -> [u64; 2] {
        debug_assert!(FilePath::new("/f").is_some_and(|path| StageSpec::File {
            path,
            offset: 0,
            length: 0
        }
        .kind()
            == KIND));
        [1 << KIND, 0]
    }

    fn figures(&self, job: &Job) -> [u64; 2] {
        match job {
            Job::Source(s) => figures::source(s.made, s.finished),
            Job::Sink(s) => figures::sink(s.buffers, s.bytes),
        }
    }
}
