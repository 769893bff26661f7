"""Does nndebug.watch name the cause of training bugs people actually reported?

Each case in ``benchmarks/real_bugs/`` reproduces one public bug report (linked in its
docstring) as a small torch script, with its fixed twin. Both are trained under
``nndebug.watch`` at its defaults, and scored:

  detected     the bug run gives a warning/error whose code names the report's cause
  wrong cause  the bug run gives warnings/errors, none of them naming the cause
  missed       no warning or error names the cause and none is given (when an info
               finding names it, the verdict says so: "missed (info)")
  false alarm  the fixed twin gives any warning or error (it must stay silent)

Printed: one markdown row per case, then the totals.
Run: python -m benchmarks real_bugs, or python -m benchmarks.bench_real_bugs [--every]
[--shift-seeds=N] [NAME ...] (--every: overhead=None, every step recorded in detail,
instead of watch's defaults; --shift-seeds=N: every seed a case sets is moved by N - other
data orders, initial weights, noise - so a verdict that holds for one lucky draw only
shows; NAME: only these cases).
"""
import contextlib
import sys
import time
import warnings

from benchmarks.kernel_family import use_avx2_kernels

use_avx2_kernels()      # before torch: the kernels the verdicts were measured with

PROBLEMS = ("warning", "error")


def problems(monitor):
    return [f for f in monitor.findings() if f.severity in PROBLEMS]


def _printed_nowhere(message, category, filename, lineno, file=None, line=None):
    pass


@contextlib.contextmanager
def warnings_unprinted():
    """Run a case as a user's script runs, minus the console: each warning is shown once per
    line of code (Python's "default" action) and so reaches watch's capture, which reads
    what Python shows (``monitor/raised_warnings.py``), but the display itself prints
    nothing. An "ignore" filter would also hide the warnings from watch, so the benchmark
    would be blind to what watch reads from them (a softmax without dim, a loss's
    broadcast shapes, a KL divergence averaged over classes). One block per run: entering
    it resets Python's record of lines already warned, so a twin's warnings are not taken
    for the bug run's."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _printed_nowhere
        yield


def score(case, **watch):
    """(verdict, codes of the bug run, codes of the fixed twin, seconds) for one case."""
    started = time.perf_counter()
    with warnings_unprinted():
        found = case.run(fixed=False, **watch).findings()
    with warnings_unprinted():
        fixed = problems(case.run(fixed=True, **watch))
    codes = [f.code for f in found if f.severity in PROBLEMS]
    return verdict_of(case.EXPECTED, found), codes, [f.code for f in fixed], \
        time.perf_counter() - started


def verdict_of(expected, found):
    """detected: a warning or error names an ``expected`` code; wrong cause: warnings name
    only others; "missed (info)": only an info finding names it; else missed."""
    codes = [f.code for f in found if f.severity in PROBLEMS]
    if any(code in expected for code in codes):
        return "detected"
    if codes:
        return "wrong cause"
    if any(f.code in expected for f in found):
        return "missed (info)"
    return "missed"


def _unique(codes):
    return ", ".join(dict.fromkeys(codes)) or "-"


@contextlib.contextmanager
def shifted_seeds(offset):
    """Every integer seed the cases set - ``torch.manual_seed``, ``numpy.random.seed``,
    ``numpy.random.default_rng`` - moved by ``offset`` while inside (0: left as it is). The
    cases' own draws change; what each case does, and its fix, do not."""
    if not offset:
        yield
        return
    import numpy as np
    import torch
    originals = torch.manual_seed, np.random.seed, np.random.default_rng

    def moved(seed):
        return seed + offset if isinstance(seed, int) and not isinstance(seed, bool) else seed
    torch.manual_seed = lambda seed: originals[0](moved(int(seed)))
    np.random.seed = lambda seed=None: originals[1](moved(seed))
    np.random.default_rng = lambda seed=None, *args, **kwargs: \
        originals[2](moved(seed), *args, **kwargs)
    try:
        yield
    finally:
        torch.manual_seed, np.random.seed, np.random.default_rng = originals


def main(argv=()):
    import torch
    from benchmarks.real_bugs import cases

    watch = {"overhead": None} if "--every" in argv else {}
    names = [a for a in argv if not a.startswith("--")]
    shift = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--shift-seeds=")), 0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    totals = {"detected": 0, "wrong cause": 0, "missed": 0, "missed (info)": 0,
              "false alarm": 0}
    print("| case (public report) | cause | verdict | bug run: warnings/errors | "
          "fixed twin |")
    print("|---|---|---|---|---|")
    try:
        chosen = [c for c in cases() if not names or c.__name__.rsplit(".", 1)[-1] in names]
        for case in chosen:
            with shifted_seeds(shift):
                verdict, codes, fixed_codes, seconds = score(case, **watch)
            totals[verdict] += 1
            totals["false alarm"] += bool(fixed_codes)
            name = case.__name__.rsplit(".", 1)[-1]
            print(f"| [{name}]({case.LINK}) | {' / '.join(case.EXPECTED)} | {verdict} | "
                  f"{_unique(codes)} | {_unique(fixed_codes) if fixed_codes else 'silent'} |",
                  flush=True)
    finally:
        torch.set_num_threads(threads)
    n = len(chosen)
    print(f"\n{n} reports: detected {totals['detected']}, wrong cause {totals['wrong cause']}, "
          f"missed {totals['missed'] + totals['missed (info)']} (named only as info: "
          f"{totals['missed (info)']}); false alarms on the {n} fixed twins: "
          f"{totals['false alarm']}  ({'every step recorded' if watch else 'watch defaults'}"
          f"{f', seeds shifted by {shift}' if shift else ''})")
    return totals


if __name__ == "__main__":
    main(sys.argv[1:])
