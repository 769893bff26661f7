"""Which of the reproduced bug reports a test run replays: a fixed sample, the rest, or all.

Replaying every case of ``benchmarks/real_bugs/`` (over 1,100 reports, each bug and its fixed
twin, and every third one again recording every step for the thinning test) took about 38 of
the suite's 47 minutes on 2 cores (measured at the clean-clone CI of 2026-12-05). A learner or
contributor who runs ``make test`` should not wait that long for the rest of the suite, and
CI must still replay every case. So the replay has two tiers, chosen with ``--real-bugs``:

- ``sample`` (the default, what ``make test`` runs): one case in SAMPLE_ONE_IN, picked by a
  checksum of the case's name. The checksum, not the name order, decides, so a case stays in
  or out of the sample when other cases are added around it, and a sample run today replays
  the same cases as one last week.
- ``rest``: every case the sample leaves out (``make test-real-bugs``).
- ``all``: both.

``.ci/run`` runs ``make test`` and then ``make test-real-bugs``: every landing still replays
every case, bug and twin.
"""
import zlib

TIERS = ("sample", "rest", "all")
DEFAULT_TIER = "sample"

SAMPLE_ONE_IN = 10
"""About a tenth of the cases: some 120 reports, every kind the table holds (each batch of
five has on average one case in it), in about 4 minutes of the test run on 2 cores."""


def in_sample(case_name):
    """Whether the case named ``case_name`` (its module's short name) is in the sample tier."""
    return zlib.crc32(case_name.encode("utf-8")) % SAMPLE_ONE_IN == 0


def short_name(case):
    """A case module's name without its package: ``benchmarks.real_bugs.x`` -> ``x``."""
    return case.__name__.rsplit(".", 1)[-1]


def chosen(cases, tier):
    """The cases of ``cases`` (case modules) that the tier ``tier`` replays, in their order."""
    if tier not in TIERS:
        raise ValueError(f"--real-bugs must be one of {', '.join(TIERS)}, not {tier!r}")
    if tier == "all":
        return list(cases)
    wanted = tier == "sample"
    return [case for case in cases if in_sample(short_name(case)) == wanted]


def tier_of(config):
    """The tier this pytest run asked for (``--real-bugs``, tests/conftest.py)."""
    return config.getoption("real_bugs", default=DEFAULT_TIER)
