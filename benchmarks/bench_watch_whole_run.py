"""What does nndebug.watch cost over a whole short run, closing analysis included?

``bench_watch.py`` measures the cost per step of long runs. Short runs pay fixed costs on
top: the first recorded steps, the frozen-parameter fingerprints, the loss checks and the
closing analysis (``findings()``). Here three healthy zoo runs (the digits MLP, the small CNN,
the 12-block residual MLP: 120-150 steps each) are trained whole, twice per round:

  plain     the case's own loop with ``nndebug.watch`` replaced by a monitor that does nothing
  watched   the same loop under ``nndebug.watch`` at its defaults, then ``findings()``

interleaved round by round (the order alternates), on one torch thread, timed in CPU time of
this process. Printed: a markdown row per run with the median ratio watched / plain of the
same round, and the geometric mean. The goal (issue #10): at most +5%.
Run: python -m benchmarks watch_whole_run [--quick]
"""
import math
import statistics
import sys
import time

CASES = ("torch/healthy-mlp", "torch/healthy-cnn", "torch/healthy-residual")
CLOCK = time.process_time


class _Unwatched:
    """Stands in for nndebug.watch: the loop runs exactly as written, with no monitor."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def step(self, loss=None, val_loss=None):
        pass

    def findings(self):
        return []

    def close(self):
        pass


def _one_run(case, watched):
    import nndebug
    real_watch = nndebug.watch
    if not watched:
        nndebug.watch = _Unwatched
    try:
        started = CLOCK()
        monitor = case.module.run(case.steps)       # the case's defaults: watch(model, opt)
        monitor.findings()                           # the closing analysis
        return CLOCK() - started
    finally:
        nndebug.watch = real_watch


def main(argv=()):
    import torch
    from nndebug import zoo
    rounds = 3 if "--quick" in argv else 7
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    rows = []
    try:
        for name in CASES:
            case = zoo.get(name)
            _one_run(case, True), _one_run(case, False)          # warm-up
            ratios, plain_times, watched_times = [], [], []
            for i in range(rounds):
                order = (False, True) if i % 2 == 0 else (True, False)
                times = {watched: _one_run(case, watched) for watched in order}
                plain_times.append(times[False])
                watched_times.append(times[True])
                ratios.append(times[True] / times[False])
            rows.append((name, case.steps, statistics.median(plain_times),
                         statistics.median(watched_times), statistics.median(ratios)))
    finally:
        torch.set_num_threads(threads)
    print("| healthy zoo run | steps | plain (CPU s) | watched, findings included (CPU s) | "
          "cost |")
    print("|---|---|---|---|---|")
    for name, steps, plain, watched, ratio in rows:
        print(f"| {name} | {steps} | {plain:.3f} | {watched:.3f} | {100 * (ratio - 1):+.1f}% |")
    mean = math.exp(sum(math.log(r) for *_, r in rows) / len(rows))
    print(f"\nGeometric mean: {100 * (mean - 1):+.1f}% (median of {rounds} paired rounds per run; "
          "goal: at most +5%)")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
