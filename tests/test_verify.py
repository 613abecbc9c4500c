"""`raidsim verify` (issue #10): random arrays with real bytes read back every write."""

import json
import tomllib

import pytest

import raidsim
from raidsim.cli import main
from raidsim.verify import run_cases


def test_verify_json_reports_no_mismatch(capsys):
    assert main(["verify", "--cases", "60", "--seed", "3", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cases"] == 60
    assert out["mismatches"] == 0 and out["data_loss_events"] == 0
    assert out["first_failure"] is None
    assert out["sectors_checked"] > 10_000


def test_a_broken_parity_update_fails_the_command_and_names_a_replayable_case(capsys):
    assert main(["verify", "--cases", "60", "--inject-fault", "--no-progress"]) == 1
    text = capsys.readouterr().out
    assert "first failing case" in text and "replay: raidsim run --set" in text
    first = run_cases(60, 1, progress=False, fault=True)["first_failure"]
    # Replayed without the fault, the same scenario reads back every write.
    values = {k: tomllib.loads(f"v = {v}")["v"] for k, v in (o.split("=", 1) for o in first["overrides"])}
    report = raidsim.simulate(None, overrides=values, progress=False)
    assert report.to_dict()["verify"]["mismatches"] == 0


@pytest.mark.parametrize("cases", [0, -3, True])
def test_bad_case_counts_are_refused(cases):
    with pytest.raises(raidsim.ConfigError, match="cases"):
        run_cases(cases)


def test_an_interrupt_reports_the_cases_that_ran(monkeypatch, capsys):
    # Ctrl-C after three scenarios: their totals are printed, marked, exit 130.
    real = raidsim._native.verify_case
    calls = []

    def stop_after_three(seed, case, fault):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(case)
        return real(seed, case, fault)

    monkeypatch.setattr(raidsim._native, "verify_case", stop_after_three)
    assert main(["verify", "--cases", "1000000", "--json", "--no-progress"]) == 130
    out = json.loads(capsys.readouterr().out)
    assert out["interrupted"] is True and out["cases"] == 3 and out["mismatches"] == 0


@pytest.mark.parametrize("args", [["--cases", "0"], ["--cases", "-1"], ["--seed", "-1"], ["--seed", str(2**64)]])
def test_bad_arguments_are_usage_errors(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(["verify", *args, "--no-progress"])
    assert e.value.code == 2
    assert "verify: error: argument" in capsys.readouterr().err
