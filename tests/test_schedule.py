"""The recording schedule alone: made-up durations in, "record this step?" out. No model."""
import pytest
from hypothesis import given, settings, strategies as st

from nndebug.monitor.schedule import (ESCALATED_RECORDS, EXTRA, JUDGED, JUDGED_EVERY, Schedule,
                                      is_judged_step)


def drive(schedule, durations, record_cost=0.0, monitor_cost=0.0, nan_at=(), kinds=None):
    """Simulate a training loop: step i takes durations[i] seconds unwatched, plus
    ``record_cost`` when recorded; returns the recorded steps (``kinds``: a dict to fill
    with step -> JUDGED/EXTRA). Step 0 is judged (the monitor starts armed)."""
    recorded, kind = [], JUDGED
    for step, plain in enumerate(durations):
        interval = plain + (record_cost if kind else 0.0)
        if kind:
            recorded.append(step)
            if kinds is not None:
                kinds[step] = kind
        if step in nan_at:
            schedule.escalate()
        kind = schedule.next_record(step + 1, interval, kind is not None)
        schedule.charge(monitor_cost)
    return recorded


def test_without_a_budget_every_nth_step_is_recorded():
    assert drive(Schedule(every=5, overhead=None), [1.0] * 23) == [0, 5, 10, 15, 20]
    assert drive(Schedule(every=1, overhead=None), [1.0] * 4) == [0, 1, 2, 3]


def test_judged_steps_depend_on_the_step_number_only():
    assert [s for s in range(50) if is_judged_step(s)] == [0, 1, 2, 4, 8, 16, 32]
    assert is_judged_step(JUDGED_EVERY * 7) and not is_judged_step(JUDGED_EVERY * 7 + 2)
    # recording costs 100x a plain step: only the judged steps are recorded
    recorded = drive(Schedule(overhead=0.05), [1e-3] * 300, record_cost=0.1)
    assert recorded == [s for s in range(300) if is_judged_step(s)]


def test_cheap_records_are_taken_often_and_stay_within_the_budget():
    durations = [1e-3] * 2000
    kinds = {}
    recorded = drive(Schedule(overhead=0.05), durations, record_cost=1e-4, kinds=kinds)
    extra = [s for s in recorded if kinds[s] == EXTRA]
    assert len(extra) > 300                       # a record costs 10% of a step: ~every 2nd step
    assert all(kinds[s] == JUDGED for s in recorded if is_judged_step(s))
    spent = len(recorded) * 1e-4
    assert spent <= 0.05 * sum(durations) * 1.1   # within the 5% budget


def test_a_nan_records_the_following_steps_and_every_is_respected():
    recorded = drive(Schedule(every=10, overhead=None), [1.0] * 60, nan_at={10})
    after = list(range(11, 11 + ESCALATED_RECORDS))
    assert recorded[:2] == [0, 10] and recorded[2:2 + len(after)] == after
    assert recorded[2 + len(after):] == [40, 50]


def test_a_stopped_schedule_records_nothing_more():
    schedule = Schedule(overhead=None)
    assert schedule.next_is_recorded(1, 1.0, True)
    schedule.stop()
    assert not any(schedule.next_is_recorded(s, 1.0, False) for s in range(2, 20))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-4, 1e-1), min_size=5, max_size=300), st.floats(0, 1e-2),
       st.sets(st.integers(0, 299), max_size=3))
def test_which_steps_are_judged_never_depends_on_the_clock(durations, record_cost, nan_at):
    kinds = {}
    drive(Schedule(overhead=0.05), durations, record_cost=record_cost, nan_at=nan_at, kinds=kinds)
    judged = [s for s, k in kinds.items() if k == JUDGED]
    reference = {}
    drive(Schedule(overhead=0.05), [1.0] * len(durations), record_cost=100.0, nan_at=nan_at,
          kinds=reference)
    assert judged == [s for s, k in reference.items() if k == JUDGED]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-4, 1e-1), min_size=5, max_size=200), st.integers(1, 7))
def test_every_is_a_minimum_spacing_under_any_timing(durations, every):
    recorded = drive(Schedule(every=every, overhead=0.05), durations, record_cost=1e-3)
    assert recorded[0] == 0
    assert all(b - a >= every for a, b in zip(recorded, recorded[1:]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-4, 1e-1), min_size=5, max_size=300), st.floats(0, 1e-2),
       st.integers(1, 4))
def test_the_steps_the_monitor_does_not_ask_about_would_not_be_recorded(durations, record_cost,
                                                                        every):
    """After a plain step, the monitor lets the steps before ``first_possible_record`` pass
    without asking. Asked step by step instead (each step as long as the current
    estimate of a plain step), the schedule records none of them, and never a judged step."""
    import copy

    from nndebug.monitor.schedule import next_judged_step
    schedule, kind = Schedule(every=every, overhead=0.05), JUDGED
    for step, plain in enumerate(durations):
        kind = schedule.next_record(step + 1, plain + (record_cost if kind else 0.0),
                                    kind is not None)
        if kind is not None:
            continue
        upcoming = step + 1
        first = schedule.first_possible_record(upcoming)
        assert upcoming < first <= next_judged_step(upcoming)
        asked, estimate = copy.deepcopy(schedule), schedule.plain_estimate()
        for later in range(upcoming + 1, min(first, upcoming + 400)):
            assert asked.next_record(later, estimate, False) is None


def test_plain_steps_accounted_together_earn_the_credit_of_each():
    one_by_one, together = Schedule(overhead=0.05), Schedule(overhead=0.05)
    for schedule in (one_by_one, together):
        schedule.next_record(1, 1.0, True)
        schedule.next_record(2, 1.0, False)          # a first plain-step estimate
    for upcoming in range(3, 13):
        one_by_one.next_record(upcoming, 1.0, False)
    together.next_record(12, 10.0, False, steps=10)
    assert together.credit == pytest.approx(one_by_one.credit)
    assert together.plain_estimate() == one_by_one.plain_estimate() == 1.0
