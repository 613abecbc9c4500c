"""How likely an array is to lose data over its service life: a seeded Monte Carlo of array lifetimes.

Each lifetime draws when every member fails (exponential, or Weibull for wear-out), rebuilds each failed
member for a drawn time (onto a hot spare at once, or after a replacement arrives), and, when a rebuild
has no redundancy left, checks its reads of the survivors for unrecoverable errors (UBER per bit read).
The array is lost when more members of a group fail than it tolerates (RAID-5: 2 of its N; RAID-6: 3;
RAID-10: a whole mirrored group). The estimates: the probability of losing data by each year of the
mission with a 95 % interval, the bytes lost, the causes, and (``mttdl_lifetimes``) the mean time to data
loss beside the Markov chain's exact value. ``failure_biasing`` estimates rare losses by importance sampling.

>>> import raidsim
>>> r = raidsim.reliability(level="raid6", members=8, mttf_hours=1e6, rebuild_hours=24, lifetimes=20_000,
...                         failure_biasing=0.5, uber=0)
>>> r.by_year().loc[5, "array_loss"] < 1e-6
True

The keys, with their units and defaults: ``raidsim reliability --keys``, or :func:`reliability_keys`.
"""

from __future__ import annotations

import json
import math
import os
import time
import tomllib
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union

from . import _native
from .api import run_in_slices

if TYPE_CHECKING:
    import pandas as pd

#: Lifetimes run between two looks at Ctrl-C and the progress bar.
_SLICE = 50_000


class ReliabilityReport:
    """What a reliability study found: ``by_year()``, ``summary()``, ``to_text()``, ``plot(path)``, ``to_dict()``."""

    def __init__(self, data: Dict[str, Any], params: Mapping[str, Any]):
        self._data = data
        self.params = dict(params)

    def to_dict(self) -> Dict[str, Any]:
        return self._data

    @property
    def warnings(self) -> List[str]:
        return list(self._data["warnings"])

    def by_year(self) -> "pd.DataFrame":
        """One row per year of the mission: the probability of losing data of any cause and of losing the
        array (failures beyond its tolerance), each with its 95 % interval."""
        import pandas as pd

        rows = [{"year": y["year"], "loss": y["loss"]["p"], "loss_low": y["loss"]["low"], "loss_high": y["loss"]["high"],
                 "array_loss": y["array_loss"]["p"], "array_loss_low": y["array_loss"]["low"],
                 "array_loss_high": y["array_loss"]["high"]} for y in self._data["by_year"]]
        return pd.DataFrame(rows).set_index("year")

    def wear_at_wear_outs(self) -> "pd.DataFrame":
        """The members' wear, each its fraction of its rated P/E cycles, oldest first (columns ``by_age_1`` ...), at
        each of a lifetime's first wear-outs (up to three per member), averaged over the lifetimes that reached it:
        the ages a replacement meets. A slot awaiting its replacement has no drive and is left out (NaN where no
        lifetime had one). Empty when no member wears (``wear_out_hours``)."""
        import pandas as pd

        rows = [{"wear_out": w["wear_out"], "lifetimes": w["lifetimes"],
                 **{f"by_age_{k + 1}": (math.nan if x is None else x) for k, x in enumerate(w["fractions"])}}
                for w in self._data["wear_at_wear_outs"]]
        return pd.DataFrame(rows).set_index("wear_out") if rows else pd.DataFrame()

    def summary(self) -> Dict[str, Any]:
        """The end of the mission in one row, and the study's other estimates."""
        d = self._data
        last = d["by_year"][-1]
        mttdl = d["mttdl_hours"]
        return {"lifetimes": d["lifetimes"], "years": last["year"], "p_loss": last["loss"]["p"],
                "p_loss_low": last["loss"]["low"], "p_loss_high": last["loss"]["high"],
                "p_array_loss": last["array_loss"]["p"], "expected_bytes_lost": d["expected_bytes_lost"],
                "read_error_losses_per_lifetime": d["read_error_losses_per_lifetime"],
                "latent_error_losses_per_lifetime": d["latent_error_losses_per_lifetime"],
                "mirrored_page_losses_per_lifetime": d["mirrored_page_losses_per_lifetime"],
                "failures_per_lifetime": d["failures_per_lifetime"],
                "wear_outs_per_lifetime": d["wear_outs_per_lifetime"],
                "array_loss_by_wear_out": d["array_loss_by_wear_out"],
                "array_loss_by_common_cause": d["array_loss_by_common_cause"],
                "rebuild_read_error_probability": d["rebuild_read_error_probability"],
                "mttdl_hours": None if mttdl is None else mttdl["mean"],
                "markov_mttdl_hours": d["markov_mttdl_hours"]}

    def to_text(self) -> str:
        d = self._data
        p = self.params
        shape = {"cr5": f"{p.get('members', 8)} channels of {p.get('chips_per_channel', 4)} chips",
                 "cr5m": f"{p.get('members', 8)} channels of {p.get('chips_per_channel', 4)} data chips and a mirroring "
                         "chip"}.get(p.get("level", ""), f"{p.get('members', 8)} members")
        lines = [f"{p.get('level', 'raid5').upper()} of {shape}, {d['lifetimes']:,} lifetimes"
                 + (" (importance sampling: each weighted by its likelihood ratio)" if d["importance_sampling"] else ""),
                 "", "Probability of data loss by year (95 % interval)"]
        for y in d["by_year"]:
            lines.append(f"  year {y['year']:>2}: any loss {_p(y['loss'])}; array lost {_p(y['array_loss'])}")
        lines += ["", f"expected bytes lost over the mission: {d['expected_bytes_lost']:.4g}",
                  f"{'chip' if p.get('level') in ('cr5', 'cr5m') else 'member'} failures per lifetime: "
                  f"{d['failures_per_lifetime']:.4g}"
                  + (f", of them wear-outs: {d['wear_outs_per_lifetime']:.4g}; array lost, the failure past its "
                     f"tolerance a wear-out: {d['array_loss_by_wear_out']:.4g}" if d["wear_outs_per_lifetime"] else ""),
                  f"rebuilds without redundancy that met a read error, per lifetime: {d['read_error_losses_per_lifetime']:.4g}"
                  f" (each such rebuild meets one with probability {d['rebuild_read_error_probability']:.4g}"
                  + (f" from new survivors, {d['rebuild_read_error_probability_worn']:.4g} from survivors at their rated "
                     "cycles)" if d.get("rebuild_read_error_probability_worn") is not None else ")")]
        if self.params.get("group_failures_per_hour"):
            lines.append(f"array lost to a common-cause event (a whole group failing at once): "
                         f"{d['array_loss_by_common_cause']:.4g}")
        if self.params.get("level") == "cr5m":
            lines.append(f"a data chip and its channel's mirroring chip down at once, losing the pages mirrored and not "
                         f"yet in parity, per lifetime: {d['mirrored_page_losses_per_lifetime']:.4g}")
        if self.params.get("latent_errors_per_hour"):
            lines.append(f"rebuilds without redundancy that met a latent sector error, per lifetime: "
                         f"{d['latent_error_losses_per_lifetime']:.4g}")
        worn = d["wear_at_wear_outs"]
        if worn:
            lines.append("members' wear when one wears out, oldest first (fraction of rated P/E cycles):")
            for w in (worn[0], worn[-1]) if len(worn) > 1 else worn[:1]:
                lines.append(f"  wear-out {w['wear_out']:>2} ({w['lifetimes']:,} lifetimes): "
                             + " ".join("-" if x is None else f"{x:.3f}" for x in w["fractions"]))
        if d["mttdl_hours"] is not None:
            m = d["mttdl_hours"]
            lines.append(f"MTTDL from {m['lifetimes']:,} lifetimes run to the loss: {m['mean']:.4g} h "
                         f"[{m['low']:.4g}, {m['high']:.4g}] ({m['mean'] / 8766:.4g} years)")
        if d["markov_mttdl_hours"] is not None:
            lines.append(f"MTTDL of the Markov chain (exponential lives and rebuilds): {d['markov_mttdl_hours']:.4g} h "
                         f"({d['markov_mttdl_hours'] / 8766:.4g} years)")
        if d["warnings"]:
            lines += ["", "Warnings"] + [f"- {w}" for w in d["warnings"]]
        return "\n".join(lines)

    def plot(self, path: Union[str, os.PathLike]) -> str:
        """The probability of data loss by year with its 95 % band, written to ``path`` (PNG)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from ._figures import save_figure

        t = self.by_year()
        fig, ax = plt.subplots(figsize=(6, 4))
        for col, label, color in (("loss", "any loss", "C3"), ("array_loss", "array lost", "C0")):
            ax.plot(t.index, t[col], "-o", color=color, label=label)
            ax.fill_between(t.index, t[f"{col}_low"], t[f"{col}_high"], color=color, alpha=0.2)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("years in service")
        ax.set_ylabel("probability of data loss")
        if (t["loss"] > 0).any():
            ax.set_yscale("log")
        unit = " channels" if self.params.get("level") in ("cr5", "cr5m") else ""
        ax.set_title(f"{self.params.get('level', 'raid5').upper()} of {self.params.get('members', 8)}{unit}: "
                     f"{self._data['lifetimes']:,} lifetimes", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend()
        return save_figure(fig, os.fspath(path))

    def __repr__(self) -> str:
        s = self.summary()
        return f"ReliabilityReport(P(loss in {s['years']} years) = {s['p_loss']:.3g} [{s['p_loss_low']:.3g}, {s['p_loss_high']:.3g}])"


def _p(p: Mapping[str, float]) -> str:
    return f"{p['p']:.4g} [{p['low']:.4g}, {p['high']:.4g}]"


def reliability(params: Optional[Mapping[str, Any]] = None, *, file: Union[str, os.PathLike, None] = None,
                progress: Optional[bool] = None, **keys: Any) -> ReliabilityReport:
    """Runs a reliability study: keys from ``file`` (TOML), then ``params``, then ``keys``; unset keys take their
    defaults (``raidsim reliability --keys``). An unknown key or a bad value is a :class:`raidsim.ConfigError`
    naming it."""
    merged: Dict[str, Any] = {}
    if file is not None:
        try:
            with open(file, "rb") as f:
                merged.update(tomllib.load(f))
        except OSError as e:
            raise _native.InputError(f"{os.fspath(file)}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise _native.ConfigError(f"{os.fspath(file)}: not TOML: {e}") from None
    merged.update(params or {})
    merged.update(keys)
    merged = {k: _plain(k, v) for k, v in merged.items()}
    started = time.monotonic()
    study = _native.ReliabilityStudy(json.dumps(merged))

    def step():
        fraction = study.step(_SLICE)
        return None, fraction, fraction >= 1.0

    run_in_slices(step, "lifetimes", progress, started)
    return ReliabilityReport(json.loads(study.report_json()), merged)


def _plain(key: str, value: Any) -> Any:
    """A value as JSON carries it: a numpy number as Python's, a non-finite one refused by key (JSON has none)."""
    if isinstance(value, (list, tuple)):
        return [_plain(f"{key}[{i}]", v) for i, v in enumerate(value)]
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, (str, bytes, dict)):
        value = value.item()  # numpy.int64(8) -> 8
    if isinstance(value, float) and not math.isfinite(value):
        raise _native.ConfigError(f"config error at `{key}`: {value} is not a finite number")
    if not isinstance(value, (bool, int, float, str, type(None), list, dict)):
        raise _native.ConfigError(f"config error at `{key}`: {value!r} ({type(value).__name__}) is not a number, "
                                  "text or list")
    return value


def reliability_keys() -> List[Dict[str, Any]]:
    """Every key of a reliability study: name, type, default, and what it means (with its unit)."""
    schema = json.loads(_native.reliability_schema())
    defs = schema.get("definitions", schema.get("$defs", {}))
    out = []
    for name, prop in schema["properties"].items():
        kind = prop.get("type")
        if "$ref" in prop or "allOf" in prop:
            ref = (prop.get("$ref") or prop["allOf"][0]["$ref"]).rsplit("/", 1)[1]
            choices = [v.get("const") or (v.get("enum") or [None])[0] for v in defs[ref].get("oneOf", [])]
            kind = "one of: " + ", ".join(str(c) for c in choices if c is not None)
        out.append({"key": name, "type": kind, "default": prop.get("default"), "doc": " ".join(prop.get("description", "").split())})
    return out
