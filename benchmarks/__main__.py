"""Run every benchmark in turn: python -m benchmarks [name ...]."""
import importlib
import pkgutil
import sys

import benchmarks


def main(names):
    found = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    for name in names or found:
        module = importlib.import_module(f"benchmarks.{name if name.startswith('bench_') else 'bench_' + name}")
        print(f"\n## {module.__name__}\n")
        module.main()


if __name__ == "__main__":
    main(sys.argv[1:])
