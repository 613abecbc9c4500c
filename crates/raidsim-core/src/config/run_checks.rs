//! Checks of a config against what it will run on, made at resolve so that
//! a config that resolves is one the simulator runs: listed requests against
//! the capacity the host sees, and the request log's file. (A trace's file
//! is opened when the run is built: a sweep's point may name one only its
//! worker holds.)

use super::{unpack_requests, RequestTuple, TracePath};
use crate::error::{Error, Result};

/// Listed requests lie inside the `capacity_bytes` the host sees and, under
/// `sim.verify`, on whole sectors.
pub(super) fn listed_requests(requests: &[RequestTuple], packed: &str, capacity_bytes: u64, verify: bool) -> Result<()> {
    let listed = requests.iter().map(|(_, _, offset, len)| (*offset, *len));
    let unpacked = unpack_requests(packed)?.into_iter().map(|(_, _, offset, len)| (offset, len));
    for (i, (offset, len)) in listed.chain(unpacked).enumerate() {
        if !offset.checked_add(len).is_some_and(|end| end <= capacity_bytes) {
            return Err(Error::config(
                format!("workload.requests[{i}]"),
                format!("[{offset}, +{len}) ends beyond the simulated capacity ({capacity_bytes} bytes the host sees)"),
            ));
        }
        if verify && (offset % 512 != 0 || len % 512 != 0) {
            return Err(Error::config(format!("workload.requests[{i}]"), format!("[{offset}, +{len}): sim.verify checks whole 512-byte sectors")));
        }
    }
    Ok(())
}

/// `metrics.request_log` names a Parquet file that can be created: its
/// directory exists and it is not itself a directory. Checked before the
/// run, so a finished run is never lost to a path its log cannot take.
pub(super) fn request_log(path: &TracePath) -> Result<()> {
    let path = &path.0;
    if path.as_os_str().is_empty() {
        return Ok(());
    }
    let key = "metrics.request_log";
    if path.is_dir() {
        return Err(Error::config(key, format!("{} is a directory: name a file in it", path.display())));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        let tilde = if path.starts_with("~") { " (`~` is not expanded)" } else { "" };
        return Err(Error::config(key, format!("{}: no directory {} to write it in{tilde}", path.display(), dir.display())));
    }
    if !matches!(path.extension().and_then(|e| e.to_str()), Some("parquet" | "pq")) {
        return Err(Error::config(key, format!("{}: the log is written as Parquet: name the file *.parquet", path.display())));
    }
    Ok(())
}
