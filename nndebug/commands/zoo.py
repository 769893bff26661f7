"""`nndebug zoo`: the broken-networks zoo.

    nndebug zoo                     list every case (framework, expected finding, what is wrong)
    nndebug zoo NAME                run one case and print nndebug.watch's diagnosis
    nndebug zoo --all               run every case; a pass table (expected finding found?)
    nndebug zoo NAME --show         print the case's source: the bug is marked `# BUG:`

Exit codes: `zoo NAME` 1 when the run has problems (a broken case), 0 when healthy;
`zoo --all` 0 when every case gives its expected diagnosis, 1 otherwise.
"""
import inspect
import time

from ..cli import EXIT_HEALTHY, EXIT_PROBLEMS, UsageError


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "zoo", help="the broken-networks zoo: list, run one, or run all",
        description="Broken (and healthy) training runs on PyTorch and minigrad, each a short "
                    "script with the bug marked. nndebug.watch diagnoses each one.")
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="a case to run (e.g. torch/dead-relu-bias, or dead-relu-bias when "
                             "unambiguous); without it: the list")
    parser.add_argument("--all", action="store_true", help="run every case and print a pass table")
    parser.add_argument("--framework", choices=["torch", "minigrad"],
                        help="only the cases of one framework")
    parser.add_argument("--steps", type=int, default=None, help="override the case's step count")
    parser.add_argument("--show", action="store_true", help="print the case's source code")
    parser.add_argument("--plot", metavar="PNG", default=None,
                        help="also write the run's dashboard (loss, gradients, activations)")
    parser.add_argument("--sampled", action="store_true",
                        help="use watch()'s default time-budgeted sampling instead of recording "
                             "every step")
    parser.set_defaults(run=run)


def _cases(framework):
    from .. import zoo
    found = zoo.cases(framework)
    if not found:
        raise UsageError("no zoo cases available (torch cases need PyTorch installed)")
    return found


def run(args):
    if args.steps is not None and args.steps < 1:
        raise UsageError(f"--steps must be a positive number of steps, got {args.steps}")
    if args.all:
        return run_all(_cases(args.framework), args)
    if args.name is None or args.name == "list":   # `zoo list`, like `bugs list`
        return list_cases(_cases(args.framework))
    from .. import zoo
    try:
        case = zoo.get(args.name)
    except KeyError as error:
        raise UsageError(str(error.args[0])) from None
    if args.show:
        print(inspect.getsource(case.module))
        return EXIT_HEALTHY
    return run_one(case, args)


def list_cases(found):
    width = max(len(c.name) for c in found)
    print(f"{'case':{width}s}  {'expected finding':24s}  what is wrong")
    for case in found:
        expected = case.expected or "(healthy)"
        print(f"{case.name:{width}s}  {expected:24s}  {_first_sentence(case.description)}")
    broken = sum(not c.healthy for c in found)
    print(f"\n{broken} broken and {len(found) - broken} healthy runs. "
          "`nndebug zoo NAME` runs one, `nndebug zoo --all` runs them all, "
          "`nndebug zoo NAME --show` shows its code.")
    return EXIT_HEALTHY


def _first_sentence(text):
    sentence = text.split(". ")[0].rstrip(".")
    return sentence if len(sentence) <= 70 else sentence[:67] + "..."


def _watch_options(args):
    return {"overhead": 0.05} if getattr(args, "sampled", False) else {}


def run_one(case, args):
    print(f"{case.name} ({case.framework})")
    print(f"  what is wrong: {case.description}")
    print(f"  expected:      {case.expected or 'no problem (a healthy run)'}")
    print(f"  the fix:       {case.fix}\n")
    started = time.perf_counter()
    monitor = case.run(args.steps, **_watch_options(args))
    elapsed = time.perf_counter() - started
    print(monitor.report())
    verdict, _ = judge(case, monitor)
    print(f"\n{verdict} ({elapsed:.1f} s)")
    if args.plot:
        path = monitor.plot(args.plot, title=case.name)
        print(f"dashboard written to {path}")
    problems = any(f.severity in ("warning", "error") for f in monitor.findings())
    return EXIT_PROBLEMS if problems else EXIT_HEALTHY


def judge(case, monitor):
    """(verdict sentence, passed): did watch() say what the case expects?"""
    problems = [f for f in monitor.findings() if f.severity in ("warning", "error")]
    codes = [f.code for f in problems]
    if case.healthy:
        if not problems:
            return "PASS: healthy run, and watch() raised no warning or error.", True
        return f"FAIL: healthy run, but watch() reported {', '.join(codes)}.", False
    if case.expected in codes:
        rank = codes.index(case.expected) + 1
        where = "the first finding" if rank == 1 else f"finding #{rank}, after {codes[0]}"
        return f"PASS: watch() found {case.expected} ({where}).", True
    return f"FAIL: expected {case.expected}, watch() reported {', '.join(codes) or 'nothing'}.", False


def run_all(found, args):
    rows, failures = [], 0
    started_all = time.perf_counter()
    for case in found:
        started = time.perf_counter()
        try:
            monitor = case.run(args.steps, **_watch_options(args))
            _, passed = judge(case, monitor)
            problems = [f.code for f in monitor.findings() if f.severity in ("warning", "error")]
            top = problems[0] if problems else "-"
        except Exception as error:   # a case that crashes is a failure, not the end of the table
            passed, top = False, f"crashed: {type(error).__name__}: {error}"[:60]
        failures += not passed
        rows.append((case.name, case.expected or "(healthy)", top,
                     "pass" if passed else "FAIL", f"{time.perf_counter() - started:.1f}s"))
    header = ("case", "expected", "first finding", "result", "time")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line(row))
    print(f"\n{len(rows) - failures}/{len(rows)} cases give their expected diagnosis "
          f"({time.perf_counter() - started_all:.0f} s).")
    return EXIT_HEALTHY if failures == 0 else EXIT_PROBLEMS
