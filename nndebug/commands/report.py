"""`nndebug report PATH`: the report of a run saved by ``nndebug.watch``.

    nndebug report run.nndebug                 the text report (findings, evidence, fixes)
    nndebug report run.nndebug --json          the same as JSON (findings and the run)
    nndebug report run.nndebug --plot run.png  also write the dashboard (loss, gradients, ...)
    nndebug report run.nndebug --html run.html also write the self-contained HTML report

A run is saved by ``watch(..., save_to=PATH)`` while it trains (and when it closes) or by
``mon.save(PATH)``; a process that was killed leaves its last complete save.

Exit codes: 0 the saved run is healthy, 1 it has problems (a warning or an error), 2 the
file cannot be read (one line on stderr: truncated, not an nndebug run, or written by a
newer nndebug).
"""
import json

from ..cli import EXIT_HEALTHY, EXIT_PROBLEMS, UsageError


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "report", help="print the report of a run saved by nndebug.watch (save_to= / mon.save)",
        description="Print the findings of a saved watched run (a .nndebug file).")
    parser.add_argument("path", metavar="PATH", help="a run saved by watch(save_to=...) or mon.save")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--plot", metavar="PNG", default=None, help="also write the dashboard")
    parser.add_argument("--html", metavar="HTML", default=None,
                        help="also write the self-contained HTML report")
    parser.set_defaults(run=run)


def run(args):
    from ..runfile import RunFileError, load_run
    try:
        saved = load_run(args.path)
    except RunFileError as error:
        raise UsageError(str(error)) from None
    if args.json:
        print(json.dumps(saved.to_dict(), indent=1, allow_nan=False))
    else:
        print(saved.report())
    if args.plot:
        print(f"dashboard written to {saved.plot(args.plot)}")
    if args.html:
        print(f"HTML report written to {saved.save_html(args.html)}")
    problems = any(f.severity in ("warning", "error") for f in saved.findings())
    return EXIT_PROBLEMS if problems else EXIT_HEALTHY
