"""The real-bug replay's tiers (tests/real_bug_tiers.py) split the cases as they say: the
sample and the two halves of the rest are disjoint and cover every case, and a case's tier
does not move when other cases are added."""
import types

import pytest

from real_bug_tiers import TIERS, chosen, half_of, in_sample, short_name


def _cases(names):
    return [types.SimpleNamespace(__name__=f"benchmarks.real_bugs.{name}") for name in names]


NAMES = [f"case_{i}_{word}" for i, word in enumerate(["loss", "mask", "norm", "lr", "seed"] * 120)]


def _names(tier, names=NAMES):
    return [short_name(case) for case in chosen(_cases(names), tier)]


def test_sample_and_halves_are_disjoint_and_cover_every_case():
    sample, half0, half1 = (set(_names(tier)) for tier in ("sample", "half-0", "half-1"))
    assert not (sample & half0) and not (sample & half1) and not (half0 & half1)
    assert sample | half0 | half1 == set(NAMES)
    assert set(_names("rest")) == half0 | half1
    assert _names("all") == NAMES


def test_the_halves_are_about_even_and_the_sample_about_a_tenth():
    rest = len(_names("rest"))
    assert 0.4 * rest < len(_names("half-0")) < 0.6 * rest
    assert 0.05 * len(NAMES) < len(_names("sample")) < 0.15 * len(NAMES)


def test_a_case_keeps_its_tier_when_cases_are_added_around_it():
    fewer = NAMES[::3]
    for tier in TIERS:
        assert _names(tier, fewer) == [name for name in _names(tier) if name in set(fewer)]


def test_the_tier_follows_the_names_checksum_not_its_position():
    assert all(half_of(name) in (0, 1) for name in NAMES)
    assert _names("half-1", list(reversed(NAMES))) == list(reversed(_names("half-1")))
    assert {name for name in NAMES if in_sample(name)} == set(_names("sample"))


def test_an_unknown_tier_says_which_exist():
    with pytest.raises(ValueError, match="sample, rest, half-0, half-1, all.*'half'"):
        chosen(_cases(NAMES), "half")
