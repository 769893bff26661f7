"""`nndebug check`: not written yet."""


def add_parser(subparsers):
    parser = subparsers.add_parser("check", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args):
    print("nndebug check: not implemented yet")
    return 2
