"""`nndebug demo`: not written yet."""


def add_parser(subparsers):
    parser = subparsers.add_parser("demo", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args):
    print("nndebug demo: not implemented yet")
    return 2
