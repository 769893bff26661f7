"""`nndebug demo`: the broken-networks tour, on PyTorch and minigrad, with a written report.

    nndebug demo [--out DIR] [--all] [--tensorboard]

Trains a selection of the zoo's broken networks (and healthy ones) in both frameworks
under ``nndebug.watch``, prints each diagnosis and writes DIR (default nndebug-report):

    DIR/README.md        the tour at a glance: one row per run, links to its plot
    DIR/report.txt       every run's full report (findings, evidence, fixes, layer table)
    DIR/report.json      the same as data (findings and the recorded statistics)
    DIR/plots/*.png      one dashboard per run: loss with findings, gradient flow,
                         activation scale, dead/saturated units
    DIR/tensorboard/     (with --tensorboard) event files, one run per case

Exit code 0 when every run got its expected diagnosis, 1 otherwise.
"""
import json
import os
import textwrap
import time

from ..cli import EXIT_HEALTHY, EXIT_PROBLEMS, UsageError

# the lesson's broken networks first, then the bugs its debugger could not see
TOUR = [
    "torch/healthy-mlp", "torch/dead-relu-bias", "torch/dead-relu-lr", "torch/vanishing-sigmoid",
    "torch/exploding-gradients", "torch/missing-zero-grad", "torch/lr-too-high",
    "torch/unnormalized-inputs", "torch/double-softmax", "torch/shuffled-labels",
    "torch/eval-mode-dropout", "torch/detached-graph",
    "minigrad/healthy-mlp", "minigrad/dead-relu-bias", "minigrad/vanishing-sigmoid",
    "minigrad/missing-zero-grad", "minigrad/double-softmax", "minigrad/optimizer-on-copy",
]


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "demo", help="the broken-networks tour on PyTorch and minigrad, with a report and plots",
        description="Train broken (and healthy) networks under nndebug.watch, print each "
                    "diagnosis and write a report folder with text, JSON and PNG plots.")
    parser.add_argument("--out", default="nndebug-report", metavar="DIR",
                        help="report folder (default: nndebug-report)")
    parser.add_argument("--all", action="store_true",
                        help="every zoo case instead of the tour (slower)")
    parser.add_argument("--tensorboard", action="store_true",
                        help="also write TensorBoard event files to DIR/tensorboard/")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG dashboards")
    parser.add_argument("--html", action="store_true",
                        help="also write DIR/index.html: every run's findings and plots in one "
                             "self-contained page")
    parser.set_defaults(run=run)


def _selected(all_cases):
    from .. import zoo
    available = {c.name: c for c in zoo.cases()}
    if all_cases:
        return list(available.values())
    chosen = [available[name] for name in TOUR if name in available]
    if not chosen:
        raise UsageError("no demo cases available (is minigrad importable?)")
    return chosen


def run(args):
    from .zoo import judge
    from ..report.json import plain
    from ..report.text import loss_summary, render
    cases = _selected(args.all)
    out = os.path.abspath(args.out)
    try:
        os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot create the report folder {out}: {error.strerror}") from None
    started = time.perf_counter()
    frameworks = sorted({c.framework for c in cases}, key=lambda f: f != "torch")
    print(f"nndebug demo: {len(cases)} training runs under nndebug.watch "
          f"({', '.join(frameworks)}); report -> {out}\n")
    texts, records, rows, failures, pages = [], [], [], 0, []
    for case in cases:
        options = {}
        if args.tensorboard:
            options["tensorboard"] = os.path.join(out, "tensorboard", case.name.replace("/", "-"))
        t0 = time.perf_counter()
        monitor = case.run(**options)
        seconds = time.perf_counter() - t0
        findings = monitor.findings()
        verdict, passed = judge(case, monitor)
        failures += not passed
        _print_case(case, findings, passed)
        plot = None
        if not args.no_plots:
            plot = os.path.join("plots", case.name.replace("/", "-") + ".png")
            monitor.plot(os.path.join(out, plot), title=case.name)
        texts.append(_case_header(case) + render(monitor.run, findings, title=case.name) +
                     f"\n\n{verdict}\n")
        records.append({"name": case.name, "framework": case.framework, "expected": case.expected,
                        "description": case.description, "fix": case.fix, "passed": passed,
                        "seconds": round(seconds, 2), "plot": plot,
                        "findings": [f.to_dict() for f in findings],
                        "summary": loss_summary(monitor.run),
                        "run": monitor.run.to_dict(records=False)})
        problems = [f for f in findings if f.severity in ("warning", "error")]
        rows.append((case, problems, passed, plot))
        if args.html:
            pages.append({"name": case.name, "description": case.description,
                          "expected": case.expected, "passed": passed, "run": monitor.run,
                          "findings": findings})
    with open(os.path.join(out, "report.txt"), "w") as handle:
        handle.write(("\n\n" + "=" * 88 + "\n\n").join(texts))
    with open(os.path.join(out, "report.json"), "w") as handle:
        json.dump(plain({"cases": records}), handle, indent=1, allow_nan=False)
    with open(os.path.join(out, "README.md"), "w") as handle:
        handle.write(_index(rows))
    if args.html:
        from ..report.html import tour_page
        with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as handle:
            handle.write(tour_page("nndebug: the broken-networks tour",
                                   "Each run below trained a small network with a planted bug "
                                   "(or none) under nndebug.watch.", pages))
    total = time.perf_counter() - started
    print(f"{len(cases) - failures}/{len(cases)} runs got their expected diagnosis "
          f"({total:.0f} s).")
    print(f"Report: {os.path.join(out, 'README.md')} (and report.txt, report.json"
          + (", plots/*.png" if not args.no_plots else "")
          + (", tensorboard/" if args.tensorboard else "")
          + (", index.html" if args.html else "") + ")")
    return EXIT_HEALTHY if failures == 0 else EXIT_PROBLEMS


def _case_header(case):
    return (f"{case.name} ({case.framework})\n"
            + textwrap.fill(f"What is wrong: {case.description}", 88) + "\n"
            + f"Expected: {case.expected or 'nothing (a healthy run)'}\n"
            + textwrap.fill(f"The fix: {case.fix}", 88) + "\n\n")


def _print_case(case, findings, passed):
    problems = [f for f in findings if f.severity in ("warning", "error")]
    mark = "ok  " if passed else "MISS"
    expected = case.expected or "healthy"
    print(f"[{mark}] {case.name}  (expected: {expected})")
    if not problems:
        print("       no problems found")
    for f in problems[:2]:
        where = f" [{f.where}]" if f.where else ""
        print(textwrap.fill(f"{f.severity.upper()} {f.code}{where}: {f.message}", 96,
                            initial_indent="       ", subsequent_indent="         "))
    if problems:
        print(textwrap.fill(f"fix: {problems[0].fix}", 96, initial_indent="       ",
                            subsequent_indent="            "))
    if len(problems) > 2:
        print(f"       (+{len(problems) - 2} more: {', '.join(f.code for f in problems[2:])})")
    print()


def _index(rows):
    lines = ["# nndebug demo: the broken-networks tour", "",
             "Each run trains a small network on the 8x8 digits under `nndebug.watch`. "
             "*Expected* is the bug planted in the run (see `nndebug zoo NAME --show`); "
             "*found* is what watch reported, most important first.", "",
             "| run | expected | found | ok | plot |", "|---|---|---|---|---|"]
    for case, problems, passed, plot in rows:
        found = ", ".join(f"{f.code} ({f.severity})" for f in problems[:3]) or "no problems"
        if len(problems) > 3:
            found += ", ..."
        link = f"[png]({plot})" if plot else ""
        lines.append(f"| {case.name} | {case.expected or 'healthy'} | {found} | "
                     f"{'yes' if passed else '**no**'} | {link} |")
    lines += ["", "Full reports with evidence and fixes: [report.txt](report.txt); "
              "the data: [report.json](report.json).", ""]
    return "\n".join(lines)
