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
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an unexpected error (for bug reports)")
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
        code = args.run(args) or EXIT_HEALTHY
        return code if code in (EXIT_HEALTHY, EXIT_PROBLEMS, EXIT_USAGE) else EXIT_PROBLEMS
    except UsageError as error:
        print(f"nndebug: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head`: stop quietly
        sys.stderr.close()
        return EXIT_HEALTHY
    except SystemExit as error:   # the user's code called sys.exit: only 0/1/2 leave here
        print(f"nndebug: error: the checked code called sys.exit({error.code!r}) while it was "
              "running; remove that call from the model, loss or factory", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:
        if getattr(args, "debug", False):
            raise
        print(f"nndebug: error: {type(error).__name__}: {one_line(error)} (run again with "
              "--debug for the traceback)", file=sys.stderr)
        return EXIT_USAGE
    finally:
        _restore_threads()


def _restore_threads():
    """Put torch's thread count back if loading a target changed it (``target.py``)."""
    target = sys.modules.get("nndebug.target")
    if target is not None:
        target.restore_threads()


if __name__ == "__main__":
    sys.exit(main())
