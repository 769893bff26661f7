"""`nndebug lr-find TARGET`: the learning-rate range test with your optimizer.

    nndebug lr-find examples/mlp.py:make [--csv lr.csv] [--plot lr.png] [--steps 100]
                    [--start-lr 1e-7] [--end-lr 10] [--batch-size 32] [--seed 0]

TARGET is ``path/to/file.py:factory``; ``factory()`` returns
``dict(model=..., inputs=..., targets=..., loss_fn=..., optimizer=None)`` and may add
``batches=`` (an iterable of (inputs, targets)); otherwise the inputs are cut into
mini-batches of ``--batch-size``. The sweep uses a fresh copy of your optimizer (class,
hyper-parameters, param groups) on a private copy of the model. Exit code 0: a learning
rate is suggested; 1: the loss never fell (no suggestion); 2: bad TARGET or arguments.
"""
import math

from ..cli import EXIT_HEALTHY, EXIT_PROBLEMS, UsageError, one_line
from ._output import output_file


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "lr-find", help="learning-rate range test with your optimizer; suggests a learning rate",
        description="Sweep the learning rate exponentially with a copy of your optimizer on a "
                    "private copy of the model, and suggest a learning rate (a rule measured "
                    "against a grid search; see benchmarks/bench_lr_suggestion.py).")
    parser.add_argument("target", metavar="TARGET",
                        help="path/to/file.py:factory, where factory() returns dict(model=..., "
                             "inputs=..., targets=..., loss_fn=..., optimizer=None)")
    parser.add_argument("--csv", metavar="FILE", help="write step, lr, loss, smoothed loss and "
                                                      "fixed-batch loss to FILE")
    parser.add_argument("--plot", metavar="FILE", help="save the loss-vs-lr plot to FILE (PNG); "
                                                       "a folder: FILE/lr-find.png inside it")
    parser.add_argument("--steps", type=int, default=100, help="sweep steps (default 100)")
    parser.add_argument("--start-lr", type=float, default=1e-7, help="first learning rate (1e-7)")
    parser.add_argument("--end-lr", type=float, default=10.0, help="last learning rate (10)")
    parser.add_argument("--batch-size", type=int, default=32,
                        help="mini-batch size when the target gives no batches (default 32)")
    parser.add_argument("--seed", type=int, default=0, help="seed (dropout, shuffling); default 0")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(run=run)


def run(args):
    from ..probes._training import split_batches
    from ..probes.lr_finder import find_lr
    from ..target import load_target

    if args.batch_size < 1:
        raise UsageError(f"--batch-size must be a positive integer, got {args.batch_size}")
    csv_path = args.csv and output_file(args.csv, "--csv", "lr-find.csv")
    plot_path = args.plot and output_file(args.plot, "--plot", "lr-find.png", suffix=".png")
    target = load_target(args.target)
    try:
        batches = target.get("batches")
        if batches is None:
            batches = split_batches(target["inputs"], target["targets"], args.batch_size)
        res = find_lr(target["model"], target["loss_fn"], batches, optimizer=target["optimizer"],
                      start_lr=args.start_lr, end_lr=args.end_lr, steps=args.steps, seed=args.seed,
                      progress=False if args.no_progress else None)
    except Exception as error:   # the model's own errors too: one line, exit code 2
        raise UsageError(f"cannot run the range test on {args.target}: {type(error).__name__}: "
                         f"{one_line(error)}") from error
    print(res)
    if csv_path:
        res.to_csv(csv_path)
        print(f"wrote {csv_path}")
    if plot_path:
        try:
            res.plot(plot_path)
        except ImportError as error:
            raise UsageError(one_line(error)) from error
        print(f"wrote {plot_path}")
    return EXIT_HEALTHY if math.isfinite(res.suggestion) else EXIT_PROBLEMS
