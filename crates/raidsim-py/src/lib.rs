//! PyO3 bindings of raidsim-core: the only crate that knows Python.
//!
//! It converts (configs and reports cross as TOML/JSON text), releases the
//! GIL while simulating, and maps [`raidsim_core::Error`] to Python
//! exceptions in one place ([`to_py_err`]). Nothing else lives here.
// The workspace lint denies unsafe code (raidsim-core allows it in one
// place, its prefetch); this crate has none and forbids it outright.
#![forbid(unsafe_code)]

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use raidsim_core::config::{RawConfig, TraceFormat};
use raidsim_core::engine::StopFlag;
use raidsim_core::workload::trace::{detect_format as core_detect, TraceOptions};
use raidsim_core::workload::TraceStats;
use raidsim_core::Error;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

create_exception!(raidsim._native, RaidsimError, PyException, "Base class of every raidsim error.");
create_exception!(raidsim._native, ConfigError, RaidsimError, "Invalid configuration: unknown key, bad value, impossible geometry.");
create_exception!(raidsim._native, TraceError, RaidsimError, "A trace line could not be parsed (names file, line and expected layout).");
create_exception!(raidsim._native, WorkloadError, RaidsimError, "Invalid workload: request beyond capacity, impossible generator parameters.");
create_exception!(raidsim._native, DeviceError, RaidsimError, "The simulated device could not serve a request.");
create_exception!(raidsim._native, InputError, RaidsimError, "A file could not be read.");
create_exception!(raidsim._native, InternalError, RaidsimError, "An invariant of raidsim broke: a bug, to be reported with the config.");

/// The one mapping from core errors to Python exceptions.
fn to_py_err(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Config { .. } => ConfigError::new_err(msg),
        Error::Trace { .. } => TraceError::new_err(msg),
        Error::Workload(_) => WorkloadError::new_err(msg),
        Error::Device(_) => DeviceError::new_err(msg),
        Error::Io { .. } => InputError::new_err(msg),
        Error::Internal(_) => InternalError::new_err(msg),
        Error::Interrupted => PyKeyboardInterrupt::new_err(msg),
    }
}

/// A panic in the core (a bug) as an internal error, not pyo3's
/// `PanicException`, which escapes `except Exception`.
fn panicked(payload: &(dyn std::any::Any + Send)) -> Error {
    let what = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned());
    Error::Internal(format!("the simulation panicked ({}): a bug in raidsim, please report it", what.as_deref().unwrap_or("no message")))
}

/// How often the interpreter's thread looks for Ctrl-C while a run works.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// Runs `work` on a helper thread while the interpreter's thread, the one
/// that receives Ctrl-C, waits without the GIL and looks for signals every
/// [`SIGNAL_POLL`]. On a signal it asks the work to stop through `stop`
/// (polled between events and between the pages of one request), waits
/// for it, and raises the signal's exception: a run stops within
/// milliseconds whatever it is serving.
fn interruptible<T: Send>(py: Python<'_>, stop: &StopFlag, work: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    std::thread::scope(|scope| {
        let (done, mut result) = mpsc::channel();
        scope.spawn(move || done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|p| Err(panicked(&*p)))));
        loop {
            // A receiver may move to another thread, not be shared: lend it out whole.
            let waiting = &mut result;
            match py.allow_threads(move || waiting.recv_timeout(SIGNAL_POLL)) {
                Ok(outcome) => return outcome.map_err(to_py_err),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(signal) = py.check_signals() {
                        stop.request();
                        // Whatever the work returns now (most often Interrupted) gives way to the signal.
                        let waiting = &mut result;
                        let _ = py.allow_threads(move || waiting.recv());
                        stop.clear();
                        return Err(signal);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return Err(InternalError::new_err("the simulation thread ended without a result")),
            }
        }
    })
}

/// Builds a raw config from layers applied in order: `("preset", name)`,
/// `("file", path)`, `("toml", text)`, `("json", text)`, `("set", "k=v")`,
/// `("override", json)` (a dict override: its keys count as set one by one),
/// `("workload", json)` (replaces the whole `[workload]` table).
fn raw_from_layers(layers: &[(String, String)]) -> Result<RawConfig, Error> {
    let mut raw = RawConfig::new();
    for (kind, value) in layers {
        let layer = match kind.as_str() {
            "preset" => RawConfig::from_preset(value)?,
            "file" => RawConfig::from_file(Path::new(value))?,
            "toml" => RawConfig::from_toml_str(value, "<toml text>")?,
            "json" => RawConfig::from_json_str(value)?,
            "set" => {
                raw.set(value)?;
                continue;
            }
            "override" => {
                raw.merge_as_set(&RawConfig::from_json_str(value)?);
                continue;
            }
            "workload" => {
                raw.replace_table("workload", &RawConfig::from_json_str(value)?);
                continue;
            }
            other => return Err(Error::config("<layers>", format!("unknown layer kind `{other}`"))),
        };
        raw.merge(&layer);
    }
    Ok(raw)
}

/// Validates the layered config; returns the resolved config as sorted TOML.
#[pyfunction]
fn resolve_config(layers: Vec<(String, String)>) -> PyResult<String> {
    let resolved = raw_from_layers(&layers).and_then(|r| r.resolve()).map_err(to_py_err)?;
    resolved.to_toml().map_err(to_py_err)
}

/// Chen & Lee's Table 1 rows of the disk in the layered config (its
/// `[hdd]`), as JSON: capacity, sustained rate, (effective) average seek and
/// positioning time, disk performance product.
#[pyfunction]
fn disk_parameters(layers: Vec<(String, String)>) -> PyResult<String> {
    let resolved = raw_from_layers(&layers).and_then(|r| r.resolve()).map_err(to_py_err)?;
    if resolved.config.member.kind != raidsim_core::config::MemberKind::Hdd {
        return Err(ConfigError::new_err("config error at `member.kind`: disk parameters need member.kind = \"hdd\""));
    }
    let p = raidsim_core::analytic::striping::disk_parameters(&resolved.config.hdd).map_err(to_py_err)?;
    serde_json::to_string(&p).map_err(|e| InternalError::new_err(e.to_string()))
}

/// `(name, TOML text)` of every packaged preset.
/// Runs `raidsim verify` scenario `case` of `seed` with verified bytes;
/// returns its outcome as JSON.
#[pyfunction]
#[pyo3(signature = (seed, case, fault=false))]
fn verify_case(py: Python<'_>, seed: u64, case: u64, fault: bool) -> PyResult<String> {
    let outcome = py.allow_threads(|| raidsim_core::verify_cases::run_case(seed, case, fault)).map_err(to_py_err)?;
    Ok(outcome.to_json())
}

/// The JSON Schema of the whole config (every key's type, default and doc).
#[pyfunction]
fn config_schema() -> PyResult<String> {
    raidsim_core::config::config_schema_json().map_err(to_py_err)
}

#[pyfunction]
fn presets() -> Vec<(&'static str, &'static str)> {
    raidsim_core::config::PRESETS.to_vec()
}

/// One simulation run, stepped from Python so a progress bar can follow it.
#[pyclass(module = "raidsim._native")]
struct Simulation {
    inner: raidsim_core::Simulation,
}

#[pymethods]
impl Simulation {
    /// Builds the run; preconditioning is done by `precondition` slices (or
    /// before the first step), so Python can show progress and take Ctrl-C.
    #[new]
    fn new(py: Python<'_>, layers: Vec<(String, String)>) -> PyResult<Self> {
        let inner = py
            .allow_threads(|| {
                let resolved = raw_from_layers(&layers)?.resolve()?;
                raidsim_core::Simulation::build(resolved)
            })
            .map_err(to_py_err)?;
        Ok(Self { inner })
    }

    /// Preconditions up to `max_pages` more pages; returns the fraction done.
    fn precondition(&mut self, py: Python<'_>, max_pages: u64) -> PyResult<f64> {
        let stop = self.inner.stop_flag();
        let inner = &mut self.inner;
        interruptible(py, &stop, || inner.precondition(max_pages))
    }

    /// Processes up to `max_events` events; returns `(completed, fraction, finished)`.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> PyResult<(u64, f64, bool)> {
        let stop = self.inner.stop_flag();
        let inner = &mut self.inner;
        let p = interruptible(py, &stop, || inner.step(max_events))?;
        Ok((p.completed, p.fraction, p.finished))
    }

    /// The report so far, as JSON text.
    fn report_json(&self) -> String {
        self.inner.report().to_json()
    }

    /// `metrics.request_log`'s rows as little-endian columns: `arrival_ns`,
    /// `offset_bytes`, `len_bytes`, `completion_ns` (`u64` each), `op`
    /// (0 read, 1 write) and `served` (`u8` each), `flow` (`u16`: 0 for a
    /// single workload, N for `flow-N`); `None` without the key.
    fn request_log<'py>(&self, py: Python<'py>) -> Option<Vec<(&'static str, Bound<'py, PyBytes>)>> {
        let log = self.inner.request_log()?;
        let words = |v: &[u64]| PyBytes::new(py, &v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
        Some(vec![
            ("arrival_ns", words(&log.arrival_ns)),
            ("op", PyBytes::new(py, &log.op)),
            ("offset_bytes", words(&log.offset_bytes)),
            ("len_bytes", words(&log.len_bytes)),
            ("completion_ns", words(&log.completion_ns)),
            ("served", PyBytes::new(py, &log.served)),
            ("flow", PyBytes::new(py, &log.flow.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>())),
        ])
    }

    /// The resolved configuration, as sorted TOML.
    fn config_toml(&self) -> PyResult<String> {
        self.inner.config().to_toml().map_err(to_py_err)
    }
}

/// Counting mode stepped from Python, so a progress bar can follow it and
/// Ctrl-C is taken between slices.
#[pyclass(module = "raidsim._native")]
struct Counting {
    inner: raidsim_core::Counting,
}

#[pymethods]
impl Counting {
    #[new]
    fn new(py: Python<'_>, layers: Vec<(String, String)>) -> PyResult<Self> {
        let inner = py
            .allow_threads(|| {
                let resolved = raw_from_layers(&layers)?.resolve()?;
                raidsim_core::Counting::new(&resolved)
            })
            .map_err(to_py_err)?;
        Ok(Self { inner })
    }

    /// Plans up to `max_requests` more requests; returns `(planned, fraction, finished)`.
    fn step(&mut self, py: Python<'_>, max_requests: u64) -> PyResult<(u64, f64, bool)> {
        let stop = self.inner.stop_flag();
        let inner = &mut self.inner;
        let p = interruptible(py, &stop, || inner.step(max_requests))?;
        Ok((p.completed, p.fraction, p.finished))
    }

    /// The counts so far, as JSON text.
    fn report_json(&self) -> String {
        self.inner.report().to_json()
    }
}

/// A reliability study stepped from Python: lifetimes in slices, so a
/// progress bar can follow and Ctrl-C is taken between them.
#[pyclass(module = "raidsim._native")]
struct ReliabilityStudy {
    inner: raidsim_core::reliability::Reliability,
}

#[pymethods]
impl ReliabilityStudy {
    /// A study from JSON text (its keys as `raidsim reliability --keys` lists them).
    #[new]
    fn new(json_text: &str) -> PyResult<Self> {
        let config = raidsim_core::reliability::config_from_json(json_text, "the reliability study").map_err(to_py_err)?;
        Ok(Self { inner: raidsim_core::reliability::Reliability::new(config).map_err(to_py_err)? })
    }

    /// Runs up to `lifetimes` more; returns the fraction done.
    fn step(&mut self, py: Python<'_>, lifetimes: u64) -> PyResult<f64> {
        let inner = &mut self.inner;
        py.allow_threads(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.step(lifetimes)))).map_err(|p| to_py_err(panicked(&*p)))
    }

    /// The report so far (running the MTTDL lifetimes, if asked for), as JSON text.
    fn report_json(&mut self, py: Python<'_>) -> PyResult<String> {
        let inner = &mut self.inner;
        let report =
            py.allow_threads(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.report()))).map_err(|p| to_py_err(panicked(&*p)))?;
        serde_json::to_string(&report).map_err(|e| InternalError::new_err(format!("the reliability report does not serialise: {e}")))
    }
}

/// The JSON Schema of a reliability study's keys.
#[pyfunction]
fn reliability_schema() -> PyResult<String> {
    raidsim_core::reliability::schema_json().map_err(to_py_err)
}

/// Counting mode: exact page counts per member and cause, as JSON text.
#[pyfunction]
fn count(py: Python<'_>, layers: Vec<(String, String)>) -> PyResult<String> {
    let mut counting = py
        .allow_threads(|| {
            let resolved = raw_from_layers(&layers)?.resolve()?;
            raidsim_core::Counting::new(&resolved)
        })
        .map_err(to_py_err)?;
    let stop = counting.stop_flag();
    interruptible(py, &stop, || {
        while !counting.step(u64::MAX)?.finished {}
        Ok(())
    })?;
    Ok(counting.report().to_json())
}

/// The stripe-unit paper's Eqs. 1-3: `(NEPR, NEPW)` for one write.
#[pyfunction]
fn stripe_unit_equations(data_disks: u64, stripe_unit_bytes: u64, page_bytes: u64, request_bytes: u64, start_disk: u64) -> PyResult<(i64, u64)> {
    use raidsim_core::analytic::stripe_unit::{nepr, nepw};
    if data_disks == 0 || stripe_unit_bytes == 0 || page_bytes == 0 || request_bytes < stripe_unit_bytes || start_disk >= data_disks {
        return Err(ConfigError::new_err("need data_disks > 0, request_bytes >= stripe_unit_bytes > 0, start_disk < data_disks"));
    }
    Ok((
        nepr(data_disks, stripe_unit_bytes, page_bytes, request_bytes, start_disk),
        nepw(data_disks, stripe_unit_bytes, page_bytes, request_bytes, start_disk),
    ))
}

fn code_err(e: raidsim_codes::Error) -> PyErr {
    ConfigError::new_err(e.to_string())
}

fn code_of(name: &str) -> PyResult<raidsim_codes::Code> {
    raidsim_codes::Code::from_name(name).map_err(code_err)
}

/// RAID-6 encode: `(row_parity, second_parity)` of equal-length data columns.
#[pyfunction]
#[pyo3(signature = (code, columns, p=None))]
fn codes_encode<'py>(py: Python<'py>, code: &str, columns: Vec<Vec<u8>>, p: Option<usize>) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let code = code_of(code)?;
    let refs: Vec<&[u8]> = columns.iter().map(Vec::as_slice).collect();
    let [a, b] = py.allow_threads(|| raidsim_codes::encode(code, &refs, p)).map_err(code_err)?;
    Ok((PyBytes::new(py, &a), PyBytes::new(py, &b)))
}

/// RAID-6 decode: columns (data..., row parity, second parity) with `None` for erased ones.
#[pyfunction]
#[pyo3(signature = (code, columns, p=None))]
fn codes_decode<'py>(py: Python<'py>, code: &str, columns: Vec<Option<Vec<u8>>>, p: Option<usize>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let code = code_of(code)?;
    let mut cols = columns;
    py.allow_threads(|| raidsim_codes::decode(code, &mut cols, p)).map_err(code_err)?;
    Ok(cols.iter().map(|c| PyBytes::new(py, c.as_deref().unwrap_or(&[]))).collect())
}

/// Small-write update: new `(row_parity, second_parity)` after data column `index` changes from `old` to `new`.
#[pyfunction]
#[pyo3(signature = (code, data_columns, row_parity, second_parity, index, old, new, p=None))]
#[allow(clippy::too_many_arguments)]
fn codes_update<'py>(
    py: Python<'py>,
    code: &str,
    data_columns: usize,
    row_parity: Vec<u8>,
    second_parity: Vec<u8>,
    index: usize,
    old: Vec<u8>,
    new: Vec<u8>,
    p: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let code = code_of(code)?;
    let (mut a, mut b) = (row_parity, second_parity);
    raidsim_codes::update(code, data_columns, p, &mut a, &mut b, index, &old, &new).map_err(code_err)?;
    Ok((PyBytes::new(py, &a), PyBytes::new(py, &b)))
}

/// The code's structure: `(rows, [((column, row), [(data column, row), ...]), ...])`.
#[pyfunction]
#[pyo3(signature = (code, data_columns, p=None))]
#[allow(clippy::type_complexity)]
fn codes_structure(code: &str, data_columns: usize, p: Option<usize>) -> PyResult<(usize, Vec<((usize, usize), Vec<(usize, usize)>)>)> {
    let s = raidsim_codes::structure(code_of(code)?, data_columns, p).map_err(code_err)?;
    Ok((s.rows, s.cover))
}

/// Statistics of a trace file as JSON text.
#[pyfunction]
#[pyo3(signature = (path, format=None, device=None, skip_malformed=false, blkparse_action="D"))]
fn trace_stats(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    device: Option<u64>,
    skip_malformed: bool,
    blkparse_action: &str,
) -> PyResult<String> {
    let format = format.map(TraceFormat::from_name).transpose().map_err(to_py_err)?;
    let opts = TraceOptions { format, device, max_requests: 0, blkparse_action: blkparse_action.into(), skip_malformed, skip_trims: false };
    let stop = StopFlag::default();
    let stats = interruptible(py, &stop, || TraceStats::of_file_until(&path, opts, &stop))?;
    serde_json::to_string(&stats).map_err(|e| RaidsimError::new_err(e.to_string()))
}

/// The format of a trace file, detected from its first lines.
#[pyfunction]
fn detect_format(path: PathBuf) -> PyResult<&'static str> {
    core_detect(&path).map(TraceFormat::name).map_err(to_py_err)
}

/// Names of the trace formats.
#[pyfunction]
fn trace_formats() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The Cargo workspace's version, the one version (maturin writes the
    // same into the package metadata, which takes ~20 ms to read).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RaidsimError", py.get_type::<RaidsimError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add_class::<Counting>()?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(config_schema, m)?)?;
    m.add_function(wrap_pyfunction!(verify_case, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(detect_format, m)?)?;
    m.add_function(wrap_pyfunction!(trace_formats, m)?)?;
    m.add_function(wrap_pyfunction!(count, m)?)?;
    m.add_function(wrap_pyfunction!(codes_encode, m)?)?;
    m.add_function(wrap_pyfunction!(codes_decode, m)?)?;
    m.add_function(wrap_pyfunction!(codes_update, m)?)?;
    m.add_function(wrap_pyfunction!(codes_structure, m)?)?;
    m.add_function(wrap_pyfunction!(stripe_unit_equations, m)?)?;
    m.add_function(wrap_pyfunction!(disk_parameters, m)?)?;
    m.add_class::<Simulation>()?;
    m.add_class::<ReliabilityStudy>()?;
    m.add_function(wrap_pyfunction!(reliability_schema, m)?)?;
    Ok(())
}
