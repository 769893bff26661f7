"""`nndebug bugs`: the catalogue of planted backward bugs, and a game of finding one.

    nndebug bugs list                       every bug: name, op, summary
    nndebug bugs show NAME                  the lesson: correct derivative, the bug, why it hides
    nndebug bugs hunt [--seed N]            train with a secret planted bug; find it
    nndebug bugs hunt --seed N --reveal GUESS   was GUESS (a bug or an op name) right?

The hunt is stateless: the seed alone decides the bug and the model, so the
reveal needs only the seed again.
"""
import difflib
import inspect
import shutil
import sys
import textwrap
import time

import numpy as np

from ..cli import UsageError

STEPS = 300
CHECK_SAMPLES = 16
# keep the hunt quick: a tensor that fails the directional check is then examined on a
# sample of elements rather than all of them (used where the check function offers it)
CHECK_OPTIONS = {"full_limit": 128, "auto_samples": 64}


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "bugs", help="the catalogue of planted backward bugs in minigrad, and a bug hunt",
        description="Learn backpropagation by breaking it: each bug is a faulty backward a "
                    "learner could write. It keeps every shape, so nothing crashes.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="every bug: name, op, summary")
    listing.add_argument("--op", help="only the bugs planted in this primitive")
    listing.set_defaults(run=run_list)
    show = actions.add_parser("show", help="the lesson of one bug")
    show.add_argument("name", metavar="NAME", help="a bug name (see `nndebug bugs list`)")
    show.set_defaults(run=run_show)
    hunt = actions.add_parser(
        "hunt", help="train a model with a secret planted bug and find it",
        description="Picks a bug from the seed without telling, trains a small minigrad model "
                    "on the 8x8 digits with and without it, and runs nndebug's gradient checks.")
    hunt.add_argument("--seed", type=int, default=None,
                      help="which hunt (default: a random one, printed so you can come back)")
    hunt.add_argument("--reveal", metavar="GUESS", default=None,
                      help="your guess, a bug name or an op name: says whether it is right")
    hunt.add_argument("--give-up", action="store_true",
                      help="with --seed: show the planted bug without guessing")
    hunt.add_argument("--no-checks", action="store_true",
                      help="a harder hunt: skip nndebug's gradcheck and locate, which point "
                           "straight at the faulty primitive")
    hunt.add_argument("--steps", type=int, default=STEPS,
                      help=f"training steps of each run (default {STEPS})")
    hunt.set_defaults(run=run_hunt)
    parser.set_defaults(run=lambda args: _missing_action(parser))


def run(args):  # the add_parser/run pattern: dispatch to the action's function
    return args.run(args)


def _missing_action(parser):
    parser.print_help(sys.stderr)
    return 2


def _width():
    return max(60, min(100, shutil.get_terminal_size((90, 24)).columns))


def _bugs():
    from minigrad import bugs
    return bugs


def _unknown(word, known, what):
    close = difflib.get_close_matches(word, known, n=2, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return UsageError(f"no {what} named {word!r}{hint} (`nndebug bugs list` shows them all)")


# --- list ---------------------------------------------------------------------------

def run_list(args):
    catalogue = _bugs().catalogue()
    if args.op is not None:
        ops = sorted({bug.op for bug in catalogue})
        if args.op not in ops:
            raise _unknown(args.op, ops, "op with a planted bug")
        catalogue = [bug for bug in catalogue if bug.op == args.op]
    name_w = max(len("name"), *(len(b.name) for b in catalogue))
    op_w = max(len("op"), *(len(b.op) for b in catalogue))
    summary_w = max(20, _width() - name_w - op_w - 4)
    print(f"{'name':<{name_w}}  {'op':<{op_w}}  summary")
    print(f"{'-' * name_w}  {'-' * op_w}  {'-' * min(summary_w, 40)}")
    for bug in catalogue:
        lines = textwrap.wrap(bug.summary, summary_w) or [""]
        print(f"{bug.name:<{name_w}}  {bug.op:<{op_w}}  {lines[0]}")
        for line in lines[1:]:
            print(f"{'':<{name_w}}  {'':<{op_w}}  {line}")
    count = f"{len(catalogue)} bug{'s' if len(catalogue) != 1 else ''}"
    print(f"\n{count}. `nndebug bugs show NAME` explains one; "
          "`nndebug bugs hunt` hides one for you to find.")
    return 0


# --- show ---------------------------------------------------------------------------

def _find_bug(name):
    bugs = _bugs()
    try:
        return bugs.get(name)
    except KeyError:
        raise _unknown(name, bugs.names(), "bug") from None


def _example_error(bug):
    """How far the bug moves the gradients of its own small example (a live demonstration)."""
    from minigrad.bugs import plant

    rng = np.random.default_rng(0)
    leaves, forward = bug.example(rng)
    cotangent = rng.standard_normal(forward().shape)

    def grads():
        for t in leaves.values():
            t.grad = None
        forward().backward(cotangent)
        return {name: t.grad.copy() for name, t in leaves.items()}

    correct = grads()
    with plant(bug.name):
        faulty = grads()
    rows = []
    for name, good in correct.items():
        scale = float(np.abs(good).max()) or 1.0
        rows.append((name, good.shape, float(np.abs(faulty[name] - good).max()) / scale))
    return rows


def _print_bug(bug, width):
    indent = "  "
    print(f"{bug.name}   (op: {bug.op}, family: {bug.family})")
    print(textwrap.fill(bug.summary, width, initial_indent=indent, subsequent_indent=indent))
    print("\nWhat you would see in training:")
    print(textwrap.fill(bug.symptom, width, initial_indent=indent, subsequent_indent=indent))
    print("\nLesson:")
    for line in bug.lesson.splitlines():
        print(indent + line if line.strip() else "")


def run_show(args):
    bug = _find_bug(args.name)
    _print_bug(bug, _width())
    print("\nOn a small example (random upstream gradient):")
    for name, shape, error in _example_error(bug):
        verdict = "wrong" if error > 1e-6 else "unchanged"
        print(f"  gradient of {name} {shape}: largest error {error:.0%} of its size ({verdict})")
    print("\nPlant it yourself:")
    print(f'  with minigrad.bugs.plant("{bug.name}"):')
    print("      loss.backward()")
    return 0


# --- hunt ---------------------------------------------------------------------------

def _resolve_guess(guess):
    from minigrad.bugs import hunt

    resolved = hunt.resolve_guess(guess)
    if resolved is None:
        catalogue = _bugs().catalogue()
        known = [b.name for b in catalogue] + sorted({b.op for b in catalogue})
        raise _unknown(guess, known, "bug or op")
    return resolved


def _reveal(picked, guess):
    """Right: the lesson, exit 0. Wrong: a hint that keeps the answer secret, exit 1 (the
    bug is not found yet); ``--give-up`` shows it."""
    kind, value = _resolve_guess(guess)
    bug = picked.bug
    if kind == "bug":
        right = value.name == bug.name
        if right:
            verdict = f"Right! The planted bug was {bug.name}."
        elif value.op == bug.op:
            verdict = (f"Close: the bug is in {bug.op}'s backward, but it is not {value.name}. "
                       f"`nndebug bugs list --op {bug.op}` lists the others.")
        else:
            verdict = f"Not this one: the planted bug is not {value.name}, and not in {value.op}."
    else:
        right = value == bug.op
        verdict = (f"Right! The bug was in {bug.op}'s backward: {bug.name}." if right else
                   f"Not {value}: the faulty backward is in another primitive.")
    print(verdict)
    if not right:
        print(f"Keep looking, or see the answer: nndebug bugs hunt --seed {picked.seed} --give-up")
        return 1
    print(f"(hunt seed {picked.seed}, model: {picked.model.title})\n")
    _print_bug(bug, _width())
    return 0


def _give_up(picked):
    print(f"The planted bug was {picked.bug.name}, in {picked.bug.op}'s backward.")
    print(f"(hunt seed {picked.seed}, model: {picked.model.title})\n")
    _print_bug(picked.bug, _width())
    return 1


class HuntSession:
    """One hunt, to investigate in Python; the bug stays secret until you plant it.

        from nndebug.commands.bugs import HuntSession
        s = HuntSession(7)                  # the seed of the hunt
        with s.bug_planted():               # the faulty backward is active inside
            print(nd.locate(s.model, s.x, s.y, s.loss_fn))
    """

    def __init__(self, seed, samples=64):
        from minigrad import tensor
        from minigrad.bugs import hunt
        digits = hunt.split_digits()
        self._picked = hunt.pick(seed, digits)
        self.model = hunt.build(self._picked.model, seed)
        self.x = tensor(hunt.inputs_of(self._picked.model, digits)[:samples])
        self.y = tensor(digits.y_train[:samples])
        self.loss_fn = self._picked.model.loss_fn
        self.ops = sorted(hunt.ops_of(self._picked.model, digits))

    def bug_planted(self):
        from minigrad.bugs import plant
        return plant(self._picked.bug.name)

    def __repr__(self):
        return f"HuntSession(model={type(self.model).__name__}, ops={self.ops})"


def _curve_table(runs, steps):
    """Mean loss over equal stretches of training, one column per stretch."""
    chunks = 6
    edges = np.linspace(0, steps, chunks + 1).astype(int)
    header = "".join(f"{f'{a + 1}-{b}':>11}" for a, b in zip(edges[:-1], edges[1:]))
    lines = [f"{'steps':<22}{header}{'test acc':>10}"]
    for label, run in runs:
        cells = []
        for a, b in zip(edges[:-1], edges[1:]):
            part = run.losses[a:b]
            if not part:
                cells.append(f"{'-':>11}")
            else:
                value = float(np.mean(part))
                cells.append(f"{value:>11.4g}" if np.isfinite(value) else f"{'nan/inf':>11}")
        lines.append(f"{label:<22}{''.join(cells)}{run.test_accuracy:>10.1%}")
    return "\n".join(lines)


def _accepts(function, keyword):
    try:
        return keyword in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _nndebug_check(title, function_name, model, picked, digits):
    """Run nd.gradcheck or nd.locate with the bug planted; say so if nndebug lacks it."""
    import nndebug
    from minigrad import tensor
    from minigrad.bugs import hunt, plant

    print(f"\n{title}:")
    try:
        check = getattr(nndebug, function_name)
    except (ImportError, AttributeError):
        print(f"  nndebug.{function_name} is not available in this version of nndebug.")
        return
    x = tensor(hunt.inputs_of(picked.model, digits)[:CHECK_SAMPLES])
    y = tensor(digits.y_train[:CHECK_SAMPLES])
    options = {name: value for name, value in CHECK_OPTIONS.items() if _accepts(check, name)}
    try:
        with plant(picked.bug.name), np.errstate(all="ignore"):  # a broken backward overflows
            report = check(model, x, y, picked.model.loss_fn, seed=0, **options)
    except NotImplementedError:
        print(f"  nndebug.{function_name} is not implemented yet in this version of nndebug.")
        return
    except Exception as error:  # a learner's tool run should still show the rest
        print(f"  nndebug.{function_name} could not run: {type(error).__name__}: {error}")
        return
    print(textwrap.indent(str(report).rstrip(), "  "))


def run_hunt(args):
    from minigrad.bugs import hunt

    if args.steps < 10:
        raise UsageError(f"--steps must be at least 10, got {args.steps}")
    if args.seed is None:
        if args.reveal is not None:
            raise UsageError("--reveal needs the --seed of the hunt you are answering")
        if args.give_up:
            raise UsageError("--give-up needs the --seed of the hunt you give up on")
        args.seed = int(np.random.default_rng().integers(0, 10_000))
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.reveal is not None:
        _resolve_guess(args.reveal)            # a typo is a usage error before any work
    digits = hunt.split_digits()
    picked = hunt.pick(args.seed, digits)
    if args.reveal is not None:
        return _reveal(picked, args.reveal)
    if args.give_up:
        return _give_up(picked)

    started = time.perf_counter()
    print(f"Bug hunt #{args.seed}: one backward pass of minigrad has been replaced by a faulty one.")
    print(f"Model: {picked.model.title} (key {picked.model.key}); {args.steps} steps of SGD with "
          f"momentum, lr {picked.model.lr}, batch {hunt.BATCH}, on the 8x8 digits.")
    ops = sorted(hunt.ops_of(picked.model, digits))
    print(f"Primitives this model runs: {', '.join(ops)} (and the engine that chains them).\n")
    reference, _ = hunt.train(picked.model, digits, steps=args.steps, seed=args.seed)
    planted, _ = hunt.train(picked.model, digits, steps=args.steps, seed=args.seed,
                            bug=picked.bug.name)
    print("Training loss (mean over each stretch of steps):")
    print(_curve_table([("reference (no bug)", reference), ("with the planted bug", planted)],
                       args.steps))
    if planted.blew_up:
        print(f"The run with the bug hit a NaN/inf loss at step {len(planted.losses)}.")
    if not args.no_checks:
        # the checks look at the model as initialised (finite even when training blew up)
        model = hunt.build(picked.model, args.seed)
        _nndebug_check(f"Gradient check (nndebug.gradcheck), bug planted, initial weights, "
                       f"{CHECK_SAMPLES} samples", "gradcheck", model, picked, digits)
        _nndebug_check("Where is it? (nndebug.locate)", "locate", model, picked, digits)
    print("\nInvestigate in Python (the bug stays secret):")
    print("  from nndebug.commands.bugs import HuntSession")
    print(f"  s = HuntSession({args.seed})    # s.model, s.x, s.y, s.loss_fn")
    print("  with s.bug_planted(): ...        # e.g. nd.gradcheck(s.model, s.x, s.y, s.loss_fn)")
    print(f"\n({time.perf_counter() - started:.1f} s)  Your guess - a bug name or an op name:")
    print(f"  nndebug bugs hunt --seed {args.seed} --reveal GUESS")
    print("  (`nndebug bugs list` lists the bugs; `--reveal relu` guesses an op)")
    return 0
