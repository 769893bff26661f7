"""`nndebug bugs`: not written yet."""


def add_parser(subparsers):
    parser = subparsers.add_parser("bugs", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args):
    print("nndebug bugs: not implemented yet")
    return 2
