//! Streaming readers of block I/O traces.
//!
//! A trace is read line by line through one reused buffer (a 10-million-line
//! trace is never loaded whole); gzip and bzip2 streams are told by their
//! first bytes and decompressed on the fly. Each file is read once, so a
//! pipe, a FIFO or `/dev/stdin` is read whole.
//! Formats are those of `../shared/traces/README.md`, detected from the first
//! lines or named. A malformed line stops the run with an error naming the
//! file, the line and the expected layout, unless `skip_malformed` is set.

mod feed;
mod formats;
mod replay;

pub use feed::{FedRecord, TraceFeed, BATCHES_IN_FLIGHT, BATCH_RECORDS};
pub use formats::{decimal_scaled, expected_layout, parse_line, Parsed, TraceRecord};
pub use replay::{Replay, Replayed};

use crate::config::TraceFormat;
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Counts bytes read from the underlying file, for progress reporting.
struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The longest line read, bytes: a longer one means the file is not a text
/// trace (or has no line breaks), and reading on would not stop.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// Reads one line of at most [`MAX_LINE_BYTES`] into `buf`; bytes read.
fn read_line_capped(reader: &mut (dyn BufRead + Send + Sync), buf: &mut String) -> std::io::Result<usize> {
    let n = reader.take(MAX_LINE_BYTES).read_line(buf)?;
    if n as u64 == MAX_LINE_BYTES && !buf.ends_with('\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a line longer than {MAX_LINE_BYTES} bytes: not a text trace, or its lines do not end in \\n"),
        ));
    }
    Ok(n)
}

/// Refuses a file whose lines end in CR alone (classic Mac), which would read as one line.
fn refuse_cr_only(path: &Path, reader: &mut (dyn BufRead + Send + Sync)) -> Result<()> {
    let head = reader.fill_buf().map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    if head.contains(&b'\r') && !head.contains(&b'\n') {
        return Err(Error::Workload(format!("{}: lines end in CR alone; convert them to LF first (e.g. `tr '\\r' '\\n'`)", path.display())));
    }
    Ok(())
}

/// Options of a trace reader that do not depend on the simulated device.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// Format, or `None` to detect.
    pub format: Option<TraceFormat>,
    /// Keep only this device's requests.
    pub device: Option<u64>,
    /// Stop after this many records (0 = all).
    pub max_requests: u64,
    /// blkparse action to replay.
    pub blkparse_action: String,
    /// Skip malformed lines instead of failing.
    pub skip_malformed: bool,
    /// Leave trims out, counted (`workload.trims = "skip"`).
    pub skip_trims: bool,
}

/// Line-by-line reader of one trace file.
pub struct TraceReader {
    path: PathBuf,
    format: TraceFormat,
    reader: Box<dyn BufRead + Send + Sync>,
    line: String,
    line_no: u64,
    opts: TraceOptions,
    /// Records returned so far.
    records: u64,
    bytes_read: Arc<AtomicU64>,
    file_bytes: u64,
    /// Malformed lines skipped.
    pub malformed_skipped: u64,
    /// First malformed line skipped, with its error.
    pub first_malformed: Option<String>,
    /// Zero-length requests skipped.
    pub zero_length_skipped: u64,
    /// Trims left out (`skip_trims`).
    pub trims_skipped: u64,
    /// A validation trace's clock: the issue instant of its next request.
    issue_clock_ns: u128,
}

/// A trace's stream. A file is opened once and read once, start to end:
/// a pipe, a FIFO or `/dev/stdin` cannot be read twice, so compression is
/// told from the first bytes and the format from the first lines of the
/// same stream, which are then read again from memory.
type Stream = Box<dyn BufRead + Send + Sync>;

/// Bytes read before a trace's compression is told.
const HEAD_BYTES: usize = 1 << 16;

/// gzip's and bzip2's magic bytes.
const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const BZIP2_MAGIC: &[u8] = b"BZh";

fn open(path: &Path, count: Arc<AtomicU64>) -> Result<Stream> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut file = CountingReader { inner: File::open(path).map_err(io)?, count };
    // The head is read whole (a pipe may deliver it in pieces), so that the
    // first buffer a plain trace's reader fills holds all of it for the
    // line-end check.
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&mut file).take(HEAD_BYTES as u64).read_to_end(&mut head).map_err(io)?;
    let (gzip, bzip2) = (head.starts_with(GZIP_MAGIC), head.starts_with(BZIP2_MAGIC));
    let raw = std::io::Cursor::new(head).chain(file);
    Ok(if gzip {
        Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(raw)))
    } else if bzip2 {
        Box::new(BufReader::with_capacity(1 << 16, bzip2::read::MultiBzDecoder::new(raw)))
    } else {
        Box::new(BufReader::with_capacity(1 << 16, raw))
    })
}

/// Lines read to tell a trace's format.
const DETECTION_LINES: usize = 20;

/// Reads the first lines of `stream` and tells its format from them;
/// returns it with a stream that yields those lines again, then the rest.
fn detect_from_head(path: &Path, mut stream: Stream) -> Result<(TraceFormat, Stream)> {
    let (mut lines, mut buf) = (Vec::new(), String::new());
    for _ in 0..DETECTION_LINES {
        buf.clear();
        match read_line_capped(stream.as_mut(), &mut buf) {
            Ok(0) => break,
            Ok(_) => lines.push(buf.clone()),
            Err(source) => return Err(Error::Io { path: path.to_path_buf(), source }),
        }
    }
    let format = formats::detect(&lines).ok_or_else(|| {
        let valid: Vec<&str> = TraceFormat::ALL.iter().map(|f| f.name()).collect();
        Error::Workload(format!("{}: cannot tell the trace format from its first lines; name it (one of {})", path.display(), valid.join(", ")))
    })?;
    Ok((format, Box::new(std::io::Cursor::new(lines.concat().into_bytes()).chain(stream))))
}

impl TraceReader {
    /// Opens `path`, detecting its format unless named.
    pub fn open(path: &Path, opts: TraceOptions) -> Result<Self> {
        let bytes_read = Arc::new(AtomicU64::new(0));
        let mut reader = open(path, bytes_read.clone())?;
        refuse_cr_only(path, reader.as_mut())?;
        let (format, reader) = match opts.format {
            Some(f) => (f, reader),
            None => detect_from_head(path, reader)?,
        };
        // A pipe has no length: its progress stays 0.
        let file_bytes = std::fs::metadata(path).map(|m| if m.is_file() { m.len() } else { 0 }).unwrap_or(0);
        Ok(Self {
            path: path.to_path_buf(),
            format,
            reader,
            line: String::with_capacity(256),
            line_no: 0,
            opts,
            records: 0,
            bytes_read,
            file_bytes,
            malformed_skipped: 0,
            first_malformed: None,
            zero_length_skipped: 0,
            trims_skipped: 0,
            issue_clock_ns: 0,
        })
    }

    /// The format being read.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The line number of the last record returned.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// Fraction of the file consumed.
    pub fn progress(&self) -> f64 {
        fraction(self.bytes_read.load(Ordering::Relaxed), self.file_bytes)
    }

    /// The error for a trace that yielded no request: the wrong format
    /// named, or a device filter that matches nothing.
    pub fn no_records_error(&self) -> Error {
        let filter = match self.opts.device {
            Some(d) => format!("; device filter {d} matched nothing"),
            None => String::new(),
        };
        let skipped = if self.malformed_skipped > 0 { format!(", {} malformed lines skipped", self.malformed_skipped) } else { String::new() };
        Error::Workload(format!(
            "{}: no request read from {} lines as format {}{filter}{skipped} (expected {})",
            self.path.display(),
            self.line_no,
            self.format.name(),
            expected_layout(self.format)
        ))
    }

    /// An error about the current line.
    pub fn line_error(&self, message: String) -> Error {
        line_error(&self.path, self.line_no, self.format, message)
    }

    /// The next record that passes the filters, or `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        if self.opts.max_requests > 0 && self.records >= self.opts.max_requests {
            return Ok(None);
        }
        loop {
            self.line.clear();
            let n = match read_line_capped(self.reader.as_mut(), &mut self.line) {
                Ok(n) => n,
                Err(e) => {
                    self.line_no += 1;
                    return Err(self.line_error(format!("cannot read: {e}")));
                }
            };
            if n == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            match parse_line(self.format, &self.line, &self.opts.blkparse_action) {
                Ok(Parsed::Skip) => continue,
                Ok(Parsed::Record(mut r)) => {
                    if self.format == TraceFormat::DisksimValidate {
                        // The line holds the time to the next issue; this one issues at the sum so far.
                        let issue = self.issue_clock_ns;
                        self.issue_clock_ns = issue.saturating_add(r.time_ns);
                        r.time_ns = issue;
                    }
                    if self.opts.device.is_some_and(|d| d != r.device) {
                        continue;
                    }
                    // Left out before anything else is asked of them: a
                    // skipped trim is as if the trace never held it.
                    if self.opts.skip_trims && r.op == crate::workload::HostOp::Trim {
                        self.trims_skipped += 1;
                        continue;
                    }
                    if r.len_bytes == 0 {
                        self.zero_length_skipped += 1;
                        continue;
                    }
                    if r.offset_bytes.checked_add(r.len_bytes).is_none() {
                        let m = format!("offset {} + length {} overflows 64 bits", r.offset_bytes, r.len_bytes);
                        return Err(self.line_error(m));
                    }
                    self.records += 1;
                    return Ok(Some(r));
                }
                Err(message) if self.opts.skip_malformed => {
                    self.malformed_skipped += 1;
                    if self.first_malformed.is_none() {
                        self.first_malformed = Some(format!("line {}: {message}", self.line_no));
                    }
                }
                Err(message) => return Err(self.line_error(message)),
            }
        }
    }
}

/// An error about line `line` of a trace.
fn line_error(path: &Path, line: u64, format: TraceFormat, message: String) -> Error {
    Error::Trace { path: path.to_path_buf(), line, format: format.name(), expected: expected_layout(format), message }
}

/// `done` of `total` bytes as a fraction (0 for an empty or unsized file).
fn fraction(done: u64, total: u64) -> f64 {
    if total == 0 {
        return 0.0;
    }
    (done as f64 / total as f64).min(1.0)
}

/// Reads the first lines of `path` and guesses its format.
pub fn detect_format(path: &Path) -> Result<TraceFormat> {
    let mut reader = open(path, Arc::new(AtomicU64::new(0)))?;
    refuse_cr_only(path, reader.as_mut())?;
    detect_from_head(path, reader).map(|(format, _)| format)
}
