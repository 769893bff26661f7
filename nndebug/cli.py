"""The ``nndebug`` command line.

Each subcommand lives in its own module under ``nndebug/commands/`` and exposes
``add_parser(subparsers)`` and ``run(args) -> int``. Exit codes (API.md):
0 healthy, 1 problems found, 2 usage or input error (with a one-line reason).
"""
import argparse
import importlib
import sys

COMMANDS = ["demo", "zoo", "bugs", "check", "gradcheck", "lr_find", "report"]

EXIT_HEALTHY, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


def one_line(error, limit=240):
    """An exception's message cut to its first line (its type's name when it has none) and
    to ``limit`` characters (None: no cut), to fit the one-line messages of the commands."""
    lines = str(error).strip().splitlines()
    line = lines[0] if lines else type(error).__name__
    return line if limit is None else line[:limit]


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"nndebug: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser():
    parser = _Parser(prog="nndebug", description="Find what is silently wrong in neural-network "
                     "training, on PyTorch and minigrad models.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"nndebug.commands.{name}")
        module.add_parser(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return EXIT_USAGE if argv else EXIT_HEALTHY
    try:
        return int(args.run(args) or 0)
    except UsageError as error:
        print(f"nndebug: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head`: stop quietly
        sys.stderr.close()
        return EXIT_HEALTHY


if __name__ == "__main__":
    sys.exit(main())
