"""raidsim beside SSDsim under a write-only stream that keeps collection busy.

SSDsim's figures below were recorded on this machine type with

    python bench/peers/ssdsim.py --ssdsim PATH/TO/ssdsim

(github:huaicheng/ssdsim at f411289, its Linux port, built unchanged but
for ``-fcommon``; 400,000 writes of 4 KiB at 1,500 IOPS, seed 1). The
script's own functions write the same stream and set up the same drive
here; SSDsim itself never runs in the tests.
"""

import pytest

from conftest import peer_script

# bench/peers/ssdsim.py --ssdsim PATH (defaults: 400000 requests, 1500 IOPS, seed 1)
SSDSIM = {"write_mean_ms": 0.9114, "erases": 6743, "pages_moved": 149093}
REQUESTS, IOPS, SEED = 400_000, 1500.0, 1


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    peer = peer_script("ssdsim")
    trace = str(tmp_path_factory.mktemp("ssdsim") / "stream.ascii")
    peer.write_trace(trace, REQUESTS, IOPS, SEED)
    return {holds: peer.run_raidsim(trace, REQUESTS, holds) for holds in ("channel", "unit")}


def test_every_write_of_the_stream_is_simulated(runs):
    assert runs["channel"]["writes"] == REQUESTS


def test_collection_holding_the_channel_answers_as_ssdsim_does(runs):
    r = runs["channel"]
    assert r["write_mean_ms"] == pytest.approx(SSDSIM["write_mean_ms"], rel=0.25)
    assert r["erases"] == pytest.approx(SSDSIM["erases"], rel=0.05)
    assert r["pages_moved"] == pytest.approx(SSDSIM["pages_moved"], rel=0.05)


def test_collection_on_the_chip_alone_is_what_made_ssdsim_slower(runs):
    # The same collections (the option changes only what they hold) ...
    assert runs["unit"]["erases"] == runs["channel"]["erases"]
    # ... and SSDsim's writes wait more than twice as long as they do on the chip alone.
    assert SSDSIM["write_mean_ms"] > 2 * runs["unit"]["write_mean_ms"]
