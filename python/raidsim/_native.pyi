"""Typed stub of the compiled core (crates/raidsim-py)."""

from typing import List, Optional, Tuple

Layer = Tuple[str, str]

class RaidsimError(Exception): ...
class ConfigError(RaidsimError): ...
class TraceError(RaidsimError): ...
class WorkloadError(RaidsimError): ...
class DeviceError(RaidsimError): ...
class InputError(RaidsimError): ...
class InternalError(RaidsimError): ...

def resolve_config(layers: List[Layer]) -> str:
    """Validate layered config; return the resolved config as sorted TOML."""

def config_schema() -> str:
    """The JSON Schema of the whole config: every key's type, default and doc comment."""

def presets() -> List[Tuple[str, str]]:
    """(name, TOML text) of every packaged preset."""

def trace_stats(
    path: str,
    format: Optional[str] = None,
    device: Optional[int] = None,
    skip_malformed: bool = False,
    blkparse_action: str = "D",
) -> str:
    """Statistics of a trace file, as JSON text."""

def detect_format(path: str) -> str:
    """The format name of a trace file, detected from its first lines."""

def trace_formats() -> List[str]:
    """Names of the supported trace formats."""

def disk_parameters(layers: List[Layer]) -> str: ...
def count(layers: List[Layer]) -> str:
    """Counting mode: exact page counts per member and cause, as JSON text."""

def stripe_unit_equations(
    data_disks: int, stripe_unit_bytes: int, page_bytes: int, request_bytes: int, start_disk: int
) -> Tuple[int, int]:
    """The stripe-unit paper's Eqs. 1-3: (NEPR, NEPW) of one write."""

def codes_encode(code: str, columns: List[bytes], p: Optional[int] = None) -> Tuple[bytes, bytes]: ...
def codes_decode(code: str, columns: List[Optional[bytes]], p: Optional[int] = None) -> List[bytes]: ...
def codes_update(code: str, data_columns: int, row_parity: bytes, second_parity: bytes, index: int,
                 old: bytes, new: bytes, p: Optional[int] = None) -> Tuple[bytes, bytes]: ...
def codes_structure(code: str, data_columns: int, p: Optional[int] = None) -> Tuple[int, List[Tuple[Tuple[int, int], List[Tuple[int, int]]]]]: ...

class Simulation:
    def __init__(self, layers: List[Layer]) -> None: ...
    def step(self, max_events: int) -> Tuple[int, float, bool]:
        """Process up to max_events; return (completed, fraction issued, finished)."""
    def report_json(self) -> str: ...
    def config_toml(self) -> str: ...
    def request_log(self) -> Optional[List[Tuple[str, bytes]]]:
        """metrics.request_log's rows as little-endian columns (name, bytes); None without the key."""
    def precondition(self, max_pages: int) -> float:
        """Precondition up to max_pages more pages; return the fraction done (1.0 when the run may start)."""

class Counting:
    def __init__(self, layers: List[Layer]) -> None: ...
    def step(self, max_requests: int) -> Tuple[int, float, bool]:
        """Plan up to max_requests more requests; return (planned, fraction of the workload, finished)."""
    def report_json(self) -> str: ...
