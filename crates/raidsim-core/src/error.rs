//! The one error type of raidsim-core.
//!
//! Every bad input names where it came from (file and line, config key) and
//! what was expected; the Python layer maps each variant to one exception
//! class, once (`crates/raidsim-py`). Nothing in the core panics on user input.

use std::path::PathBuf;

/// Everything that can go wrong in raidsim-core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A configuration key or value is invalid (unknown key, wrong type,
    /// value out of range, impossible geometry).
    #[error("config error at `{key}`: {message}")]
    Config {
        /// Dotted path of the offending key (`ssd.geometry.channels`), or `<root>`.
        key: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// A trace line could not be parsed.
    #[error("{}:{line}: {message} (format {format}: expected {expected})", path.display())]
    Trace {
        /// Trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// Trace format being parsed.
        format: &'static str,
        /// The layout of a line in that format.
        expected: &'static str,
        /// What was wrong.
        message: String,
    },
    /// A workload is invalid (request beyond capacity with `out_of_range = "error"`,
    /// zero-length request, bad generator parameter).
    #[error("workload error: {0}")]
    Workload(String),
    /// The device cannot serve the request (no free block left for garbage collection).
    #[error("device error: {0}")]
    Device(String),
    /// An invariant of raidsim itself broke: a bug, never the user's input.
    /// Says where and with what state, so it can be reported.
    #[error("internal error (a raidsim bug; please report it with your config): {0}")]
    Internal(String),
    /// The run was asked to stop (Ctrl-C) before it finished.
    #[error("interrupted")]
    Interrupted,
    /// An I/O error reading a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Shorthand for a [`Error::Config`].
    pub fn config(key: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Config { key: key.into(), message: message.into() }
    }
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;
