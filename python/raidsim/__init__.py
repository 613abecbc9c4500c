"""raidsim: a fast, deterministic simulator of SSDs and SSD arrays.

The Rust core (``raidsim._native``) does the simulating; this package builds
configurations, runs them with a progress bar and turns reports into pandas
tables. Quick start::

    import raidsim
    report = raidsim.simulate("stripe-unit-table5",
                              raidsim.Workload.synthetic(requests=10_000))
    print(report.summary())
"""

import functools as _functools

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
from .config_keys import keys
from .counting import CountReport, count
from .reliability import ReliabilityReport, reliability
from .report import Report, plot_rebuild
from .timeline import plot_timeline, read_request_log
from .workload import Workload

__all__ = [
    "Config",
    "CountReport",
    "count",
    "keys",
    "ConfigError",
    "DeviceError",
    "InputError",
    "InternalError",
    "RaidsimError",
    "ReliabilityReport",
    "Report",
    "TraceError",
    "Workload",
    "WorkloadError",
    "plot_rebuild",
    "plot_timeline",
    "read_request_log",
    "reliability",
    "presets",
    "simulate",
    "trace_stats",
]


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@_functools.cache
def _version() -> str:
    # One version, the Cargo workspace's, compiled into the extension (reading the package
    # metadata, which maturin fills from the same, would add about 20 ms to every command;
    # a test holds the two equal).
    from . import _native

    return _native.__version__
