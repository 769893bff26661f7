"""What the variant tables (``core_variants.py`` to ``_7.py``) share: a variant and its
registry, the digits they train on, the command line's selection, and the scoring.

A variant is scored like a real-bug case (``bench_real_bugs.py``): detected when a warning or
error names one of its EXPECTED codes, wrong cause when warnings name only others, missed
otherwise ("missed (info)" when only an info finding names it); its fixed twin is a false
alarm when it gives any warning or error. Each file trains its variants its own way, so it
hands ``score`` the function that runs one: ``run(variant, fixed) -> monitor`` with a
``variant_losses`` list (the twin's losses show whether the twin learned).
"""
import math
import time
import warnings
from dataclasses import dataclass

from benchmarks.bench_real_bugs import PROBLEMS, verdict_of
from benchmarks.bench_real_bugs import _unique as unique   # the codes once each, in order
from benchmarks.real_bugs._common import batches, classification


@dataclass
class Variant:
    name: str
    capability: str
    expected: tuple
    build: object          # build(fixed) -> what the table's own loop trains
    framework: str = "torch"


def registry():
    """(variants, variant): a table's list and the decorator that appends a build function
    to it: ``@variant(capability, expected codes[, framework])``."""
    variants = []

    def variant(capability, expected, framework="torch"):
        def register(build):
            variants.append(Variant(build.__name__, capability, tuple(expected), build,
                                    framework))
            return build
        return register
    return variants, variant


def select(variants, argv):
    """The variants a table's command line names (``NAME``, ``CAPABILITY`` or ``FRAMEWORK``
    words; options starting with ``--`` are left to the table), or all of them."""
    names = [a for a in argv if not a.startswith("--")]
    return [v for v in variants if not names or v.name in names or v.capability in names
            or v.framework in names]


FRAMEWORK_COLUMN = ("framework", lambda v: v.framework)   # for tables with minigrad variants


def digits(steps, batch_size=64, images=False, scale=1.0, seed=0):
    """``steps`` shuffled batches of the digits (x times ``scale``, class ids)."""
    x, y = classification(images=images)
    return batches(x * scale, y, steps, batch_size=batch_size, seed=seed)


def rows(steps, batch_size=64):
    """The digits as sequences of 8 rows of 8 pixels: (B, 8, 8)."""
    return ((xb.view(-1, 8, 8), yb) for xb, yb in digits(steps, batch_size))


def problem_codes(train, setup):
    """The warning and error codes of one variant's run, ``train(setup)`` returning the monitor
    (the framework's own warnings silenced: the variants plant what raises them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monitor = train(setup)
    return [f.code for f in monitor.findings() if f.severity in PROBLEMS]


def score(variant, run):
    """(verdict, bug codes, twin codes, (twin's first-10 mean loss, last-10 mean), seconds)."""
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bug_monitor = run(variant, False)
        twin_monitor = run(variant, True)
    found = bug_monitor.findings()
    bug = [f.code for f in found if f.severity in PROBLEMS]
    twin = [f.code for f in twin_monitor.findings() if f.severity in PROBLEMS]
    verdict = verdict_of(variant.expected, found)
    losses = twin_monitor.variant_losses
    learned = (sum(losses[:10]) / 10, sum(losses[-10:]) / 10)
    return verdict, bug, twin, learned, time.perf_counter() - started


def learned_note(first, last):
    """"" when the twin's loss fell by a fifth (or ended under 0.1), else a warning note."""
    learned = (last < first * 0.8 or last < 0.1) and not math.isnan(last)
    return "" if learned else " (NOT LEARNING)"


def print_table(chosen, score_one, extra_columns=()):
    """Score each variant, print one markdown row each and the totals; returns the totals.
    ``extra_columns``: (title, variant -> text) pairs shown after the capability."""
    totals = {}
    titles = ["capability", *[title for title, _ in extra_columns], "variant", "expected",
              "verdict", "bug run: warnings/errors", "fixed twin", "twin loss", "s"]
    print("| " + " | ".join(titles) + " |")
    print("|" + "---|" * len(titles))
    for v in chosen:
        verdict, bug, twin, (first, last), seconds = score_one(v)
        totals[verdict] = totals.get(verdict, 0) + 1
        totals["false alarm"] = totals.get("false alarm", 0) + bool(twin)
        twin_text = "FALSE ALARM: " + unique(twin) if twin else "silent"
        cells = [v.capability, *[text(v) for _, text in extra_columns], v.name,
                 " / ".join(v.expected), verdict, unique(bug), twin_text,
                 f"{first:.3f} -> {last:.3f}{learned_note(first, last)}", f"{seconds:.0f}"]
        print("| " + " | ".join(cells) + " |", flush=True)
    n = len(chosen)
    print(f"\n{n} variants: detected {totals.get('detected', 0)}, wrong cause "
          f"{totals.get('wrong cause', 0)}, missed {totals.get('missed', 0)} (info only: "
          f"{totals.get('missed (info)', 0)}); false alarms on the {n} twins: "
          f"{totals.get('false alarm', 0)}")
    return totals
