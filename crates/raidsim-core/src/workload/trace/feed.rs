//! A trace read, parsed and replayed ([`Replay`]) on a thread of its own,
//! ahead of the simulation.
//!
//! Parsing text costs about a fifth of a replay; on a second core it is off
//! the simulation's path. The reader thread sends records in batches over a
//! bounded channel, so at most [`BATCHES_IN_FLIGHT`] × [`BATCH_RECORDS`]
//! records are held whatever the trace's length. Records arrive in file
//! order, and each carries its line number and the reader's skip counters
//! as they stood when it was read, so errors and the report describe what
//! the simulation consumed, not how far the thread has read ahead: a run
//! that stops early (`sim.max_requests`, a stop rule) reports exactly what
//! the serial reader would have.

use super::{Replay, Replayed, TraceReader, TraceRecord};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

/// Records per batch: large enough that the channel's cost per record is
/// negligible, small enough that the simulation starts at once.
pub const BATCH_RECORDS: usize = 4096;
/// Batches the reader may run ahead.
pub const BATCHES_IN_FLIGHT: usize = 4;

/// One record and where the reader stood when it read it.
#[derive(Clone, Copy, Debug)]
pub struct FedRecord {
    /// The record.
    pub record: TraceRecord,
    /// Its arrival and fitted place.
    pub replayed: Replayed,
    /// Its line number.
    pub line_no: u64,
    /// Malformed lines skipped before it (`skip_malformed`).
    pub malformed_skipped: u64,
    /// Zero-length requests skipped before it.
    pub zero_length_skipped: u64,
    /// Trims left out before it.
    pub trims_skipped: u64,
}

/// How the reader stood at the end of the file.
#[derive(Clone, Copy, Debug, Default)]
struct EndCounters {
    malformed_skipped: u64,
    zero_length_skipped: u64,
    trims_skipped: u64,
}

/// Where the consumer stands once the current batch is used up.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// More batches to come.
    Reading,
    /// The end of the file was handed out.
    Ended(EndCounters),
    /// An error was handed out: nothing after it is read.
    Failed,
}

struct Batch {
    records: Vec<FedRecord>,
    /// The first malformed line skipped, once there is one.
    first_malformed: Option<String>,
    /// After the records: the end of the file, or the error that stopped the reader.
    end: Option<Result<EndCounters>>,
}

/// The consuming end: records in file order from the reader thread.
pub struct TraceFeed {
    path: PathBuf,
    /// In a mutex only so that the feed is `Sync`; `get_mut` never locks.
    receiver: Mutex<Receiver<Batch>>,
    batch: std::vec::IntoIter<FedRecord>,
    /// What follows the current batch (the end or an error), once sent.
    after_batch: Option<Result<EndCounters>>,
    stage: Stage,
    first_malformed: Option<String>,
    /// The last record handed out, for the counters.
    last: Option<FedRecord>,
    bytes_read: Arc<AtomicU64>,
    file_bytes: u64,
}

impl TraceFeed {
    /// Starts reading `reader` on its own thread, replayed by `replay`.
    pub fn start(reader: TraceReader, replay: Replay) -> Result<Self> {
        let path = reader.path().to_path_buf();
        let (bytes_read, file_bytes) = (reader.bytes_read.clone(), reader.file_bytes);
        let (sender, receiver) = sync_channel(BATCHES_IN_FLIGHT);
        std::thread::Builder::new()
            .name("raidsim-trace".into())
            .spawn(move || read_batches(reader, replay, &sender))
            .map_err(|e| Error::Internal(format!("cannot start the trace reader thread: {e}")))?;
        Ok(Self {
            path,
            receiver: Mutex::new(receiver),
            batch: Vec::new().into_iter(),
            after_batch: None,
            stage: Stage::Reading,
            first_malformed: None,
            last: None,
            bytes_read,
            file_bytes,
        })
    }

    /// The next record, or `None` at the end of the file. After an error
    /// every call is an error: what follows a bad line is never read as the
    /// end of the trace.
    pub fn next_record(&mut self) -> Result<Option<FedRecord>> {
        loop {
            if let Some(r) = self.batch.next() {
                self.last = Some(r);
                return Ok(Some(r));
            }
            match self.stage {
                Stage::Ended(_) => return Ok(None),
                Stage::Failed => return Err(Error::Workload(format!("{}: reading stopped at an earlier error", self.path.display()))),
                Stage::Reading => {}
            }
            match self.after_batch.take() {
                Some(Ok(counters)) => {
                    self.stage = Stage::Ended(counters);
                    return Ok(None);
                }
                Some(Err(e)) => {
                    self.stage = Stage::Failed;
                    return Err(e);
                }
                None => {}
            }
            // A closed channel before the end was sent: the thread died
            // (it cannot, short of a bug); never read that as the end of the trace.
            let receiver = self.receiver.get_mut().map_err(|_| Error::Internal("the trace feed's receiver is poisoned".into()))?;
            let batch = receiver.recv().map_err(|_| Error::Internal(format!("{}: the trace reader thread stopped early", self.path.display())))?;
            if self.first_malformed.is_none() {
                self.first_malformed = batch.first_malformed;
            }
            self.batch = batch.records.into_iter();
            self.after_batch = batch.end;
        }
    }

    /// Malformed lines, zero-length requests and trims skipped so far by
    /// what was consumed: up to the last record, or the whole file once its
    /// end was reached; and the first malformed line.
    pub fn skipped(&self) -> (u64, u64, u64, Option<String>) {
        let (malformed, zero, trims) = match (self.stage, self.last) {
            (Stage::Ended(c), _) => (c.malformed_skipped, c.zero_length_skipped, c.trims_skipped),
            (_, Some(r)) => (r.malformed_skipped, r.zero_length_skipped, r.trims_skipped),
            _ => (0, 0, 0),
        };
        (malformed, zero, trims, if malformed > 0 { self.first_malformed.clone() } else { None })
    }

    /// Fraction of the file read (by the thread: a little ahead of the simulation).
    pub fn progress(&self) -> f64 {
        super::fraction(self.bytes_read.load(Ordering::Relaxed), self.file_bytes)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The reader thread: batches until the end, an error, or the consumer
/// hanging up (a run that stopped early drops its feed).
fn read_batches(mut reader: TraceReader, mut replay: Replay, sender: &std::sync::mpsc::SyncSender<Batch>) {
    let mut sent_malformed = false;
    loop {
        let mut records = Vec::with_capacity(BATCH_RECORDS);
        let mut end = None;
        while records.len() < BATCH_RECORDS {
            match reader.next_record() {
                Ok(Some(record)) => match replay.next(&record) {
                    Ok(replayed) => records.push(FedRecord {
                        record,
                        replayed,
                        line_no: reader.line_no(),
                        malformed_skipped: reader.malformed_skipped,
                        zero_length_skipped: reader.zero_length_skipped,
                        trims_skipped: reader.trims_skipped,
                    }),
                    Err(message) => end = Some(Err(reader.line_error(message))),
                },
                Ok(None) if reader.records == 0 => end = Some(Err(reader.no_records_error())),
                Ok(None) => {
                    end = Some(Ok(EndCounters {
                        malformed_skipped: reader.malformed_skipped,
                        zero_length_skipped: reader.zero_length_skipped,
                        trims_skipped: reader.trims_skipped,
                    }))
                }
                Err(e) => end = Some(Err(e)),
            }
            if end.is_some() {
                break;
            }
        }
        let first_malformed = if sent_malformed { None } else { reader.first_malformed.clone() };
        sent_malformed |= first_malformed.is_some();
        let last = end.is_some();
        if sender.send(Batch { records, first_malformed, end }).is_err() || last {
            return;
        }
    }
}
