"""`nndebug zoo`: not written yet."""


def add_parser(subparsers):
    parser = subparsers.add_parser("zoo", help="(not implemented yet)")
    parser.set_defaults(run=run)


def run(args):
    print("nndebug zoo: not implemented yet")
    return 2
