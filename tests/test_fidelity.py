"""The kit-fidelity command: it measures the Ruby kit's rate loop against a
bare hand-written loop over the same call and prints the ratio. Whether the
ratio is within the tolerance is a measurement (`make fidelity`), not a test."""

import re
import shutil
import subprocess

import pytest
from conftest import ROOT


@pytest.mark.skipif(not shutil.which("ruby"), reason="ruby is not installed")
def test_the_fidelity_command_measures_and_prints_the_ratio():
    done = subprocess.run(
        ["ruby", str(ROOT / "runtimes/ruby/fidelity.rb"), "1", "0.05"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    # Both loops checked their bodies' counts before anything was printed.
    assert re.search(r"^ruby \S+: bare while loop [\d.]+M calls/s, kit [\d.]+M calls/s", done.stdout, re.M), (
        done.stdout + done.stderr
    )
    assert re.search(r"^the kit's rate is \d+\.\d% of the bare rate \(required: within 3%\)$", done.stdout, re.M)
    assert done.returncode in (0, 1)  # 1: outside the tolerance in this short, noisy run
