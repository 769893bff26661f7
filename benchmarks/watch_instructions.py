"""What nndebug.watch costs over a whole short run, counted in instructions, not seconds.

``bench_watch_whole_run.py`` times the same three healthy zoo runs in CPU seconds; on a
shared virtual machine those seconds move by 10-30% from one minute to the next (the plain
MLP run measured 65 ms and 95 ms within the same hour), more than the cost being measured.
Here each run is executed under valgrind's cachegrind, which counts the instructions the
process executes: the same code on the same input gives nearly the same count on a busy
machine and an idle one.

For each case four processes run (two at a time): the case's loop plain and watched
(``nndebug.watch`` at its defaults, ``findings()`` included), once and three times. The
difference between three runs and one is two runs without the process's start-up (Python,
torch and nndebug imports, the first-call costs), so

    instructions per run = (count of 3 runs - count of 1 run) / 2

and the cost of watching is watched / plain - 1. Instructions are not time (a cache miss
costs more than an add), but on these small models Python's own work dominates both sides.

Valgrind slows torch's kernels more than the monitor's Python, so a time budget spends
differently under it: on long runs it bought several times the extra records a run at full
speed takes (``watch_long_run.py --instructions`` replays the full-speed ones). These runs
are too short for any: at full speed and under valgrind alike they record the judged steps
only (checked on the three cases), so no replay is needed here.

Needs valgrind (``apt-get install valgrind``); about 15 minutes for the three cases
(cachegrind runs ~50x slower). Run: python -m benchmarks.watch_instructions [CASE ...]
"""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CASES = ("torch/healthy-mlp", "torch/healthy-cnn", "torch/healthy-residual")
WORKER = """
import sys, torch
torch.set_num_threads(1)
import benchmarks.bench_watch_whole_run as bench
from nndebug import zoo
case = zoo.get(sys.argv[1])
for _ in range(int(sys.argv[3])):
    bench._one_run(case, sys.argv[2] == "watched")
"""


def count_instructions(case, mode, runs):
    """Instructions executed by a process that trains ``case`` ``runs`` times."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", WORKER, case, mode, str(runs)],
        cwd=root, env=env, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"valgrind failed on {case} {mode} x{runs}:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv=()):
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind): nothing measured")
        return []
    cases = [a for a in argv if not a.startswith("-")] or list(CASES)
    jobs = [(case, mode, runs) for case in cases for mode in ("plain", "watched")
            for runs in (1, 3)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        counts = dict(zip(jobs, pool.map(lambda job: count_instructions(*job), jobs)))
    print("| healthy zoo run | plain (M instructions a run) | watched, findings included | cost |")
    print("|---|---|---|---|")
    rows = []
    for case in cases:
        plain, watched = ((counts[case, mode, 3] - counts[case, mode, 1]) / 2
                          for mode in ("plain", "watched"))
        rows.append((case, plain, watched))
        print(f"| {case} | {plain / 1e6:.0f} | {watched / 1e6:.0f} | "
              f"{100 * (watched / plain - 1):+.1f}% |")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
