"""The zoo: broken (and healthy) training runs, each a short script with its bug marked.

Every case is a module in ``torch_cases/`` or ``minigrad_cases/`` defining

    NAME         "torch/dead-relu-bias"  (framework/short-name)
    FRAMEWORK    "torch" or "minigrad"
    EXPECTED     the finding code nndebug.watch must report, or None for a healthy run
    DESCRIPTION  what is wrong (one or two sentences)
    FIX          what the fix is
    STEPS        how many optimizer steps the case trains by default
    run(steps=STEPS, **watch_options) -> the nndebug Monitor of the run (closed)

The bug is marked with a ``# BUG:`` comment in each broken case. ``nndebug zoo`` lists
them, ``nndebug zoo NAME`` runs one, ``nndebug zoo --all`` runs them all.
"""
import importlib
import pkgutil
from dataclasses import dataclass

PACKAGES = ("nndebug.zoo.torch_cases", "nndebug.zoo.minigrad_cases")

# the zoo records every step (reproducible, and short runs show everything);
# nndebug.watch's default instead samples steps to stay under its time budget
ZOO_WATCH_OPTIONS = {"overhead": None}


@dataclass
class Case:
    name: str
    framework: str
    expected: "str | None"
    description: str
    fix: str
    steps: int
    module: object

    @property
    def healthy(self):
        return self.expected is None

    @property
    def short_name(self):
        return self.name.split("/", 1)[-1]

    def run(self, steps=None, **watch_options):
        """Train the case (its RNG seeded, the caller's RNG states restored) -> Monitor."""
        options = dict(ZOO_WATCH_OPTIONS, **watch_options)
        with _rng_preserved(self.framework):
            return self.module.run(self.steps if steps is None else steps, **options)


def cases(framework=None):
    """Every case, sorted: broken ones by framework and name, then the healthy ones."""
    found = []
    for package_name in PACKAGES:
        if framework and not package_name.endswith(f".{framework}_cases"):
            continue
        try:
            package = importlib.import_module(package_name)
        except ImportError:       # e.g. torch not installed: its cases are skipped
            continue
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            try:
                module = importlib.import_module(f"{package_name}.{info.name}")
            except ImportError:
                continue
            found.append(Case(module.NAME, module.FRAMEWORK, module.EXPECTED,
                              module.DESCRIPTION.strip(), module.FIX.strip(), module.STEPS, module))
    return sorted(found, key=lambda c: (c.healthy, c.framework != "torch", c.name))


def get(name):
    """A case by full name ("torch/dead-relu-bias") or unambiguous short name."""
    every = cases()
    for case in every:
        if case.name == name:
            return case
    matches = [c for c in every if c.short_name == name or c.name.endswith(name)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise KeyError(f"no zoo case named {name!r}; `nndebug zoo` lists them")
    raise KeyError(f"{name!r} matches several cases ({', '.join(c.name for c in matches)}); "
                   "give the full name")


class _rng_preserved:
    """Seeding inside a case must not move the caller's random streams (nor its torch
    thread count)."""

    def __init__(self, framework):
        self.framework = framework

    def __enter__(self):
        import random

        import numpy as np
        self.states = {"python": random.getstate(), "numpy": np.random.get_state()}
        try:
            import minigrad as mg
            self.states["minigrad"] = mg.get_rng_state()
        except ImportError:
            pass
        if self.framework == "torch":
            import torch
            self.states["torch"] = torch.get_rng_state()
            # the zoo's models are tiny: one thread is faster than several fighting over
            # the cores (and far faster on a busy machine); restored on exit
            self.states["threads"] = torch.get_num_threads()
            torch.set_num_threads(1)
        return self

    def __exit__(self, *exc_info):
        import random

        import numpy as np
        random.setstate(self.states["python"])
        np.random.set_state(self.states["numpy"])
        if "minigrad" in self.states:
            import minigrad as mg
            mg.set_rng_state(self.states["minigrad"])
        if "torch" in self.states:
            import torch
            torch.set_rng_state(self.states["torch"])
            torch.set_num_threads(self.states["threads"])
        return False
