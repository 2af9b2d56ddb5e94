"""The Ruby kit's celluloid pool waits for its workers through Celluloid
0.16's Actor.all, which raises NoMethodError (behavior_proxy on nil) when a
worker ends while it looks: a make bench trial once failed so. The kit looks
again then, and lets any other error through. With a stand-in Celluloid,
on Debian's Ruby."""

import shutil
import subprocess

import pytest
from conftest import ROOT

POOL = ROOT / "runtimes" / "ruby" / "workloads" / "pool.rb"

# A stand-in Kit and Celluloid: Actor.all fails as given, then answers.
SCRIPT = """
module Kit; def self.loaded?(_) = false; end
module Celluloid; class Actor
  @fails = ARGV.fetch(0).to_i
  def self.all
    if (@fails -= 1) >= 0
      raise NoMethodError.new("undefined method", ARGV.fetch(1).to_sym, receiver: nil)
    end
    [:worker]
  end
end; end
require ARGV.fetch(2)
print Workloads::Pool.running_actors.inspect
"""


def running_actors(fails: int, method: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["ruby", "-e", SCRIPT, str(fails), method, str(POOL)], capture_output=True, text=True, timeout=60
    )


pytestmark = pytest.mark.skipif(not shutil.which("ruby"), reason="no ruby (apt-get install ruby)")


def test_a_worker_ending_while_celluloid_looks_is_looked_past():
    done = running_actors(3, "behavior_proxy")
    assert done.returncode == 0 and done.stdout == "[:worker]", done.stderr


def test_any_other_error_of_actor_all_is_raised():
    done = running_actors(1, "something_else")
    assert done.returncode != 0 and "NoMethodError" in done.stderr
