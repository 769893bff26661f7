"""`nndebug lr-find`: not written yet."""


def add_parser(subparsers):
    parser = subparsers.add_parser("lr-find", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args):
    print("nndebug lr-find: not implemented yet")
    return 2
