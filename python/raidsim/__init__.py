"""raidsim: a fast, deterministic simulator of SSDs and SSD arrays.

The Rust core (``raidsim._native``) does the simulating; this package builds
configurations, runs them with a progress bar and turns reports into pandas
tables. Quick start::

    import raidsim
    report = raidsim.simulate("stripe-unit-table5",
                              raidsim.Workload.synthetic(requests=10_000))
    print(report.summary())
"""

from importlib import metadata as _metadata

from ._native import (
    ConfigError,
    DeviceError,
    InputError,
    InternalError,
    RaidsimError,
    TraceError,
    WorkloadError,
)
from .api import presets, simulate, trace_stats
from .config import Config
from .counting import CountReport, count
from .report import Report, plot_rebuild
from .workload import Workload

__all__ = [
    "Config",
    "CountReport",
    "count",
    "ConfigError",
    "DeviceError",
    "InputError",
    "InternalError",
    "RaidsimError",
    "Report",
    "TraceError",
    "Workload",
    "WorkloadError",
    "plot_rebuild",
    "presets",
    "simulate",
    "trace_stats",
]
# One version, the Cargo workspace's, which maturin writes into the package metadata.
__version__ = _metadata.version("raidsim")
