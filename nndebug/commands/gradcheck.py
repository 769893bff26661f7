"""`nndebug gradcheck`: not written yet."""


def add_parser(subparsers):
    parser = subparsers.add_parser("gradcheck", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args):
    print("nndebug gradcheck: not implemented yet")
    return 2
