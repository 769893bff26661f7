"""minigrad.memory.keep_freed_memory: fewer page faults for a loop that frees and
allocates NumPy arrays (run in child processes: the setting is process-wide)."""
import json
import subprocess
import sys

import pytest

from minigrad.memory import keep_freed_memory

_LOOP = r"""
import json, resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from minigrad.memory import keep_freed_memory
    assert keep_freed_memory()
x = np.ones(262144, np.float32)               # 1 MiB
for _ in range(5):                             # settle malloc's adaptive thresholds
    arrays = [x * i for i in range(8)]; del arrays
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):                            # a "step": 8 MiB of temporaries, then freed
    arrays = [x * i for i in range(8)]; del arrays
print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before))
"""


def _page_faults(mode):
    out = subprocess.run([sys.executable, "-c", _LOOP, mode], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a glibc malloc setting")
def test_kept_memory_is_reused_without_page_faults():
    default, kept = _page_faults("default"), _page_faults("keep")
    assert kept < 50 <= default, (default, kept)   # 8 MiB freed each round: 2048 pages back


@pytest.mark.parametrize("limit", [0, -1, 4096, "256", True, None])
def test_a_bad_limit_is_one_clear_error(limit):
    with pytest.raises(ValueError, match="limit_mib must be a number of MiB"):
        keep_freed_memory(limit)
