"""Training bugs reproduced from public bug reports, each with its fixed twin.

One module per report. Each reproduces what the report describes as a small CPU torch
script on the 8x8 digits (seconds), names the report (title and link) in its docstring,
and defines

    TITLE     the report's title
    LINK      where it was reported
    EXPECTED  the finding codes that name the cause (any one of them counts as detected)
    STEPS     optimizer steps the case trains
    run(fixed=False, steps=STEPS, **watch_options) -> the closed nndebug Monitor

``fixed=True`` trains the same script with the report's fix applied: nndebug.watch must
stay silent (no warning, no error) on it. The cases were chosen for being real reports,
not for what nndebug already finds; ``benchmarks/bench_real_bugs.py`` scores them.
"""
import importlib
import pkgutil


def cases():
    """Every case module, sorted by name."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            found.append(importlib.import_module(f"{__name__}.{info.name}"))
    return sorted(found, key=lambda m: m.__name__)
