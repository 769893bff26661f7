"""`nndebug gradcheck TARGET`: do the model's gradients agree with finite differences?

    nndebug gradcheck examples/mlp.py:make [--mode auto|full|sample|fast] [--seed N]

TARGET is ``path/to/file.py:factory``; ``factory()`` returns
``dict(model=..., inputs=..., targets=..., loss_fn=..., optimizer=None)``.
Prints one row per parameter tensor; when a gradient disagrees, runs ``locate`` and
prints the suspects (module, primitive, evidence). Exit code 0: every gradient
agrees; 1: a backward is wrong; 2: bad TARGET or input (one line on stderr).
"""
from ..cli import EXIT_HEALTHY, EXIT_PROBLEMS, UsageError, one_line

MODES = ("auto", "full", "sample", "fast")


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "gradcheck", help="compare every gradient with finite differences and locate a wrong backward",
        description="Check the model's gradients against finite differences (in a private "
                    "float64 copy; your model is not changed). When they disagree, check every "
                    "layer alone and name the one whose backward is wrong (on minigrad also the "
                    "primitive).")
    parser.add_argument("target", metavar="TARGET",
                        help="path/to/file.py:factory, where factory() returns dict(model=..., "
                             "inputs=..., targets=..., loss_fn=..., optimizer=None)")
    parser.add_argument("--mode", choices=MODES, default="auto",
                        help="auto (default): random directional derivatives, then elements of "
                             "what fails; full: every element; sample: random elements; fast: "
                             "directional derivatives only")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the random directions, elements and dropout masks (default 0)")
    parser.set_defaults(run=run)


def run(args):
    from ..gradcheck import gradcheck
    from ..locate import locate
    from ..target import load_target

    target = load_target(args.target)
    problem = (target["model"], target["inputs"], target["targets"], target["loss_fn"])
    try:
        report = gradcheck(*problem, mode=args.mode, seed=args.seed)
    except Exception as error:   # the model's own errors too: one line, exit code 2
        raise UsageError(f"cannot check {args.target}: {type(error).__name__}: "
                         f"{one_line(error, limit=None)}") from error
    print(report)
    if report.passed:
        print("\nEvery gradient agrees with finite differences.")
        return EXIT_HEALTHY
    print()
    try:
        found = locate(*problem, seed=args.seed)
    except Exception as error:
        raise UsageError(f"cannot locate the fault in {args.target}: {type(error).__name__}: "
                         f"{one_line(error, limit=None)}") from error
    print(found)
    if found.suspects:
        top = found.suspects[0]
        where = "the loss function" if top.location == "loss" else \
            (f"module '{top.module}'" if top.module else "the model's own forward")
        if top.op == "engine":
            what = "the autograd engine: how the gradients of a re-used tensor are combined"
        elif top.op:
            what = f"the backward of primitive '{top.op}' (used by {where})"
        else:
            what = f"the backward of the autograd.Function(s) that {where} calls"
        print(f"\nFix: start with {what}.")
    else:
        print("\nNo single module fails alone although the whole model does; the wrong gradient "
              "comes from how modules are connected (a tensor used twice, a hook, an in-place "
              "change) - try `nndebug gradcheck --mode full` and compare with a reference model.")
    return EXIT_PROBLEMS
