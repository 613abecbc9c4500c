//! PyO3 bindings of raidsim-core: the only crate that knows Python.
//!
//! It converts (configs and reports cross as TOML/JSON text), releases the
//! GIL while simulating, and maps [`raidsim_core::Error`] to Python
//! exceptions in one place ([`to_py_err`]). Nothing else lives here.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use raidsim_core::config::{RawConfig, TraceFormat};
use raidsim_core::workload::trace::{detect_format as core_detect, TraceOptions};
use raidsim_core::workload::TraceStats;
use raidsim_core::Error;
use std::path::Path;

create_exception!(raidsim._native, RaidsimError, PyException, "Base class of every raidsim error.");
create_exception!(raidsim._native, ConfigError, RaidsimError, "Invalid configuration: unknown key, bad value, impossible geometry.");
create_exception!(raidsim._native, TraceError, RaidsimError, "A trace line could not be parsed (names file, line and expected layout).");
create_exception!(raidsim._native, WorkloadError, RaidsimError, "Invalid workload: request beyond capacity, impossible generator parameters.");
create_exception!(raidsim._native, DeviceError, RaidsimError, "The simulated device could not serve a request.");
create_exception!(raidsim._native, InputError, RaidsimError, "A file could not be read.");

/// The one mapping from core errors to Python exceptions.
fn to_py_err(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Config { .. } => ConfigError::new_err(msg),
        Error::Trace { .. } => TraceError::new_err(msg),
        Error::Workload(_) => WorkloadError::new_err(msg),
        Error::Device(_) => DeviceError::new_err(msg),
        Error::Io { .. } => InputError::new_err(msg),
    }
}

/// Builds a raw config from layers applied in order: `("preset", name)`,
/// `("file", path)`, `("toml", text)`, `("json", text)`, `("set", "k=v")`,
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
    Ok(resolved.to_toml())
}

/// `(name, TOML text)` of every packaged preset.
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
    #[new]
    fn new(py: Python<'_>, layers: Vec<(String, String)>) -> PyResult<Self> {
        // Building preconditions the drive, which can take a while: release the GIL.
        let inner = py
            .allow_threads(|| {
                let resolved = raw_from_layers(&layers)?.resolve()?;
                raidsim_core::Simulation::new(resolved)
            })
            .map_err(to_py_err)?;
        Ok(Self { inner })
    }

    /// Processes up to `max_events` events; returns `(completed, fraction, finished)`.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> PyResult<(u64, f64, bool)> {
        let inner = &mut self.inner;
        let p = py.allow_threads(|| inner.step(max_events)).map_err(to_py_err)?;
        Ok((p.completed, p.fraction, p.finished))
    }

    /// The report so far, as JSON text.
    fn report_json(&self) -> String {
        self.inner.report().to_json()
    }

    /// The resolved configuration, as sorted TOML.
    fn config_toml(&self) -> String {
        self.inner.config().to_toml()
    }
}

/// Counting mode: exact page counts per member and cause, as JSON text.
#[pyfunction]
fn count(py: Python<'_>, layers: Vec<(String, String)>) -> PyResult<String> {
    let report = py
        .allow_threads(|| {
            let resolved = raw_from_layers(&layers)?.resolve()?;
            raidsim_core::count(&resolved)
        })
        .map_err(to_py_err)?;
    Ok(report.to_json())
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

/// Statistics of a trace file as JSON text.
#[pyfunction]
#[pyo3(signature = (path, format=None, device=None, skip_malformed=false, blkparse_action="D"))]
fn trace_stats(
    py: Python<'_>,
    path: &str,
    format: Option<&str>,
    device: Option<u64>,
    skip_malformed: bool,
    blkparse_action: &str,
) -> PyResult<String> {
    let format = format.map(TraceFormat::from_name).transpose().map_err(to_py_err)?;
    let opts = TraceOptions { format, device, max_requests: 0, blkparse_action: blkparse_action.into(), skip_malformed };
    let stats = py.allow_threads(|| TraceStats::of_file(Path::new(path), opts)).map_err(to_py_err)?;
    serde_json::to_string(&stats).map_err(|e| RaidsimError::new_err(e.to_string()))
}

/// The format of a trace file, detected from its first lines.
#[pyfunction]
fn detect_format(path: &str) -> PyResult<&'static str> {
    core_detect(Path::new(path)).map(TraceFormat::name).map_err(to_py_err)
}

/// Names of the trace formats.
#[pyfunction]
fn trace_formats() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("RaidsimError", py.get_type::<RaidsimError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(detect_format, m)?)?;
    m.add_function(wrap_pyfunction!(trace_formats, m)?)?;
    m.add_function(wrap_pyfunction!(count, m)?)?;
    m.add_function(wrap_pyfunction!(stripe_unit_equations, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
