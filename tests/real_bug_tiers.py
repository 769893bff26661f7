"""Which of the reproduced bug reports a test run replays: a fixed sample, the rest, a half
of the rest, or all.

Replaying every case of ``benchmarks/real_bugs/`` (over 1,600 reports, each bug and its fixed
twin, and every sixth one again recording every step for the thinning test) takes 60 to 80
minutes on 2 cores, after the 15 to 23 of ``make test`` (clean-clone rehearsals and CI runs
of 2026-12-05 to 2026-12-07; the same machine type runs up to half again slower on some
days). CI has 90 minutes, and its run of 2026-12-07 was stopped at 81% of the replay. So:

- ``sample`` (the default, what ``make test`` runs): one case in SAMPLE_ONE_IN, picked by a
  checksum of the case's name. The checksum, not the name order, decides, so a case stays in
  or out of the sample when other cases are added around it, and a sample run today replays
  the same cases as one last week.
- ``rest``: every case the sample leaves out (``make test-real-bugs``).
- ``half-0`` and ``half-1``: the rest split in two by the same checksum (its next digit, in
  base two). CI replays the sample and one half, chosen by the parity of the number of
  commits (``.ci/run``), so two landings in a row replay every case between them, and each
  landing still finishes well inside its 90 minutes.
- ``all``: every case.
"""
import zlib

TIERS = ("sample", "rest", "half-0", "half-1", "all")
DEFAULT_TIER = "sample"

SAMPLE_ONE_IN = 10
"""About a tenth of the cases: some 170 reports, every kind the table holds (each batch of
five has on average one case in it), in about 5 minutes of the test run on 2 cores."""


def _checksum(case_name):
    return zlib.crc32(case_name.encode("utf-8"))


def in_sample(case_name):
    """Whether the case named ``case_name`` (its module's short name) is in the sample tier."""
    return _checksum(case_name) % SAMPLE_ONE_IN == 0


def half_of(case_name):
    """Which half of the rest (0 or 1) the case named ``case_name`` is in. The checksum's
    quotient by SAMPLE_ONE_IN decides, not its remainder, so the halves do not lean on the
    digit that chose the sample."""
    return (_checksum(case_name) // SAMPLE_ONE_IN) % 2


def short_name(case):
    """A case module's name without its package: ``benchmarks.real_bugs.x`` -> ``x``."""
    return case.__name__.rsplit(".", 1)[-1]


def _replays(name, tier):
    if tier == "all":
        return True
    if tier == "sample":
        return in_sample(name)
    if in_sample(name):
        return False
    return tier == "rest" or half_of(name) == int(tier[-1])


def chosen(cases, tier):
    """The cases of ``cases`` (case modules) that the tier ``tier`` replays, in their order."""
    if tier not in TIERS:
        raise ValueError(f"--real-bugs must be one of {', '.join(TIERS)}, not {tier!r}")
    return [case for case in cases if _replays(short_name(case), tier)]


def tier_of(config):
    """The tier this pytest run asked for (``--real-bugs``, tests/conftest.py)."""
    return config.getoption("real_bugs", default=DEFAULT_TIER)
