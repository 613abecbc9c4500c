"""Bad arguments to the Python API are raidsim errors that say what is wrong, never tracebacks from
inside a conversion, silent truncation or a corrupt result (issue #8)."""

import importlib
import pkgutil

import pytest

import raidsim
from raidsim import Config, ConfigError, Workload, codes
from raidsim.workload import RequestError

DATA = [b"\x01" * 8, b"\x02" * 8]


def write_msr_trace(path, requests=3):
    lines = [f"{128166372000000000 + i * 10000},hm,0,Write,{i * 4096},4096,100" for i in range(requests)]
    path.write_text("\n".join(lines) + "\n")
    return path


# --- trace statistics ------------------------------------------------------------------------------

@pytest.mark.parametrize("device", [-1, 1.5, True])
def test_trace_stats_device_that_is_not_a_non_negative_int_is_a_config_error(tmp_path, device):
    trace = write_msr_trace(tmp_path / "t.csv")
    with pytest.raises(ConfigError, match=rf"device must be a non-negative integer.*got {device!r}"):
        raidsim.trace_stats(trace, device=device)
    assert raidsim.trace_stats(trace, device=0)["requests"] == 3


# --- raidsim.codes ---------------------------------------------------------------------------------

CALLS = {
    "encode": lambda code, p: codes.encode(code, DATA, p=p),
    "decode": lambda code, p: codes.decode(code, [None, DATA[1], b"\0" * 8, None], p=p),
    "update": lambda code, p: codes.update(code, 2, [b"\0" * 8, b"\0" * 8], 0, DATA[0], DATA[1], p=p),
    "structure": lambda code, p: codes.structure(code, 2, p=p),
}


@pytest.mark.parametrize("code", codes.CODES)
@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("p", [-5, 2.5, "5", True, 1])
def test_codes_p_that_is_not_a_prime_int_is_a_config_error(code, call, p):
    with pytest.raises(ConfigError, match=rf"p must be a prime >= 3 \(an int\), got {p!r}"):
        CALLS[call](code, p)


@pytest.mark.parametrize("code", codes.CODES)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_codes_p_beyond_a_machine_word_is_a_config_error_not_an_overflow(code, call):
    with pytest.raises(ConfigError, match=r"p must be a prime >= 3 below 2\*\*64, got 1180591620717411303424"):
        CALLS[call](code, 2**70)


@pytest.mark.parametrize("name", ["data_columns", "index"])
def test_codes_counts_beyond_a_machine_word_are_a_config_error_not_an_overflow(name):
    args = {"data_columns": 2, "index": 0, name: 2**70}
    with pytest.raises(ConfigError, match=rf"{name} must be below 2\*\*64, got {2**70}"):
        codes.update("rdp", args["data_columns"], [b"\0" * 8] * 2, args["index"], DATA[0], DATA[1])
    if name == "data_columns":
        with pytest.raises(ConfigError, match=rf"data_columns must be below 2\*\*64"):
            codes.structure("rdp", 2**70)


@pytest.mark.parametrize("code", codes.CODES)
@pytest.mark.parametrize("parity", [[b"\0" * 8], [b"\0" * 8] * 3, b"\0" * 8])
def test_codes_update_with_other_than_two_parity_columns_is_a_config_error(code, parity):
    with pytest.raises(ConfigError, match=r"update needs both parity columns, \[row_parity, second_parity\]"):
        codes.update(code, 2, parity, 0, DATA[0], DATA[1])


@pytest.mark.parametrize("code", codes.CODES)
@pytest.mark.parametrize("columns", [
    [None, DATA[1], b"\0" * 4, None],          # the P+Q core read past the end of a short column
    [DATA[0], b"\x02" * 4, None, None],
    [DATA[0], None, b"\0" * 8, b"\0" * 12],
])
def test_codes_decode_of_columns_of_unequal_lengths_is_an_error_not_a_corrupt_column(code, columns):
    with pytest.raises(ConfigError, match=r"columns must have equal lengths; got lengths \["):
        codes.decode(code, columns)


@pytest.mark.parametrize("call", [
    lambda k: codes.encode("rs", [b"\x01"] * k),
    lambda k: codes.decode("rs", [None] + [b"\x01"] * (k - 1) + [None, b"\0"]),
    lambda k: codes.update("rs", k, [b"\0", b"\0"], k - 1, b"\x01", b"\x02"),
    lambda k: codes.structure("rs", k),
], ids=["encode", "decode", "update", "structure"])
def test_rs_with_more_than_255_data_columns_is_refused_naming_md_limit(call):
    # Q's coefficients 2^i repeat after 255: column 255 would alias column 0.
    with pytest.raises(ConfigError, match=r"at most 255 data columns, got 256.*254 data disks"):
        call(256)
    call(255)  # the last count whose coefficients are all distinct


def test_rs_with_255_data_columns_still_recovers_its_first_and_last_column():
    data = [bytes([i, 255 - i]) for i in range(255)]
    p, q = codes.encode("rs", data)
    got = codes.decode("rs", [None] + data[1:254] + [None, p, q])
    assert got[0] == data[0] and got[254] == data[254]


@pytest.mark.parametrize("column", [4, "abcd", None])
def test_codes_columns_that_are_not_bytes_are_a_config_error(column):
    # bytes(4) is four zero bytes: an int column used to be encoded as one, silently.
    with pytest.raises(ConfigError, match="column 1 must be bytes"):
        codes.encode("rs", [b"\x01" * 4, column])


@pytest.mark.parametrize("name, value", [("data_columns", -1), ("index", -1), ("data_columns", 2.0)])
def test_codes_negative_or_float_counts_are_a_config_error(name, value):
    args = {"data_columns": 2, "index": 0, name: value}
    with pytest.raises(ConfigError, match=rf"{name} must be a non-negative int, got {value!r}"):
        codes.update("evenodd", args["data_columns"], [b"\0" * 8] * 2, args["index"], DATA[0], DATA[1])


# --- Config ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [None, 5, ("ssd", "queue_depth"), b"ssd.queue_depth"])
def test_config_key_that_is_not_a_string_is_a_config_error(key):
    with pytest.raises(ConfigError, match=r"a config key is a dotted string such as \"ssd.queue_depth\""):
        Config().set(key, 8)
    with pytest.raises(ConfigError, match=r"a config key is a dotted string"):
        Config().with_overrides({key: 8})


def test_override_that_is_not_a_string_is_a_config_error():
    with pytest.raises(ConfigError, match=r"an override is a \"key=value\" string, got 5"):
        Config().with_overrides(["ssd.queue_depth=8", 5])


def test_one_override_string_is_one_override_not_its_characters():
    assert Config().with_overrides("ssd.queue_depth=8").resolved()["ssd"]["queue_depth"] == 8


def test_config_value_that_toml_cannot_hold_is_a_config_error():
    with pytest.raises(ConfigError, match=r"config key `sim.seed`: \{1\} is not a TOML value"):
        Config().set("sim.seed", {1})


@pytest.mark.parametrize("name", [5, None, ["cr5m-table1"]])
def test_preset_name_that_is_not_a_string_is_a_config_error(name):
    with pytest.raises(ConfigError, match=r"a preset is named by a string"):
        Config.preset(name)


def test_trace_stats_device_beyond_64_bits_is_a_config_error(tmp_path):
    trace = write_msr_trace(tmp_path / "t.csv")
    with pytest.raises(ConfigError, match=r"device must be a non-negative integer below 2\*\*64.*got 18446744073709551616"):
        raidsim.trace_stats(trace, device=2**64)


# --- Workload.requests ----------------------------------------------------------------------------

@pytest.mark.parametrize("request_, field, shown", [
    ((0.5, "W", 0, 4096), "time_ns", "0.5"),
    ((0, "W", 4096.0, 4096), "offset_bytes", "4096.0"),
    ((0, "W", 0, 4096.9), "length_bytes", "4096.9"),
    ((0, "W", True, 4096), "offset_bytes", "True"),
    ((0, "W", 0, "4096"), "length_bytes", "'4096'"),
])
def test_request_field_that_is_not_an_integer_is_refused_naming_request_and_field(request_, field, shown):
    with pytest.raises(RequestError, match=rf"request 1: {field} must be an integer, got {shown}"):
        Workload.requests([(0, "W", 0, 4096), request_])


@pytest.mark.parametrize("request_, field", [
    ((-1, "W", 0, 4096), "time_ns"), ((0, "W", -4096, 4096), "offset_bytes"), ((0, "R", 0, -1), "length_bytes"),
])
def test_request_field_that_is_negative_is_refused_naming_request_and_field(request_, field):
    with pytest.raises(RequestError, match=rf"request 0: {field} must not be negative"):
        Workload.requests([request_])


def test_request_errors_are_workload_errors_and_still_value_errors():
    with pytest.raises(raidsim.WorkloadError) as e:
        Workload.requests([(0, "W", 0.5, 4096)])
    assert isinstance(e.value, ValueError)
    with pytest.raises(raidsim.WorkloadError, match="op 'X'"):
        Workload.requests([(0, "X", 0, 4096)])


def test_integer_requests_still_work_including_numpy_integers():
    # A guard against over-refusing: numpy's integers are numbers.Integral, and come out as int.
    np = pytest.importorskip("numpy")
    w = Workload.requests([(np.int64(0), "W", np.uint32(4096), 8192), (10, "read", 0, 4096)])
    assert w.to_dict()["requests"] == [[0, "W", 4096, 8192], [10, "R", 0, 4096]]
    assert all(type(v) is int for row in w.to_dict()["requests"] for v in (row[0], row[2], row[3]))


# --- one hierarchy ---------------------------------------------------------------------------------

# Argparse's concern, not raidsim's: a command line that parses but makes no sense (exit 2, as argparse's
# own errors). The library never raises it; `except raidsim.RaidsimError` around the API need not see it.
OUTSIDE_THE_HIERARCHY = {"raidsim.cli._common.UsageError"}


def public_exception_classes():
    """{module.Name: class} of every exception class a module of the package defines under a public name,
    found by importing every module (private ones too: their public classes are raised through the API)."""
    found = {}
    for info in pkgutil.walk_packages(raidsim.__path__, "raidsim."):
        if info.name.endswith(".__main__"):  # running it would parse this process's command line
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (not name.startswith("_") and isinstance(obj, type) and issubclass(obj, BaseException)
                    and obj.__module__ == module.__name__):
                found[f"{module.__name__}.{name}"] = obj
    return found


def test_every_public_exception_of_the_package_is_a_raidsim_error():
    found = public_exception_classes()
    # Guards the walk itself: it reaches the errors of the studies, the catalog and the tools.
    assert {"SweepError", "StudyError", "CatalogError", "AdviseError", "RangeError"} <= {k.rsplit(".", 1)[1] for k in found}
    outside = {name for name, cls in found.items() if not issubclass(cls, raidsim.RaidsimError)}
    assert outside == OUTSIDE_THE_HIERARCHY


def test_errors_that_were_value_errors_still_are():
    # `except ValueError` around a study, a catalog entry or advise's options keeps working.
    found = public_exception_classes()
    for name in ("StudyError", "CatalogError", "AdviseError", "RangeError"):
        cls = next(c for k, c in found.items() if k.endswith("." + name))
        assert issubclass(cls, ValueError), name
