"""The recording schedule alone: made-up durations in, "record this step?" out. No model."""
from hypothesis import given, settings, strategies as st

from nndebug.monitor.schedule import ESCALATED_RECORDS, Schedule, is_warmup_step


def drive(schedule, durations, record_cost=0.0, monitor_cost=0.0, nan_at=()):
    """Simulate a training loop: step i takes durations[i] seconds unwatched, plus
    ``record_cost`` when recorded; returns the recorded steps. Step 0 is recorded (the
    monitor arms its hooks when it starts)."""
    recorded, armed = [], True
    for step, plain in enumerate(durations):
        interval = plain + (record_cost if armed else 0.0)
        if armed:
            recorded.append(step)
        if step in nan_at:
            schedule.escalate()
        armed = schedule.next_is_recorded(step + 1, interval, armed)
        schedule.charge(monitor_cost)
    return recorded


def test_without_a_budget_every_nth_step_is_recorded():
    assert drive(Schedule(every=5, overhead=None), [1.0] * 23) == [0, 5, 10, 15, 20]
    assert drive(Schedule(every=1, overhead=None), [1.0] * 4) == [0, 1, 2, 3]


def test_warmup_steps_are_recorded_whatever_the_budget():
    assert [s for s in range(40) if is_warmup_step(s)] == [0, 1, 2, 4, 8, 16, 32]
    # recording costs 100x a plain step: only the warm-up steps fit
    recorded = drive(Schedule(overhead=0.05), [1e-3] * 300, record_cost=0.1)
    assert recorded == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]


def test_cheap_records_are_taken_often_and_stay_within_the_budget():
    durations = [1e-3] * 2000
    recorded = drive(Schedule(overhead=0.05), durations, record_cost=1e-4)
    extra = [s for s in recorded if not is_warmup_step(s)]
    assert len(extra) > 300                       # a record costs 10% of a step: ~every 2nd step
    spent = len(recorded) * 1e-4
    assert spent <= 0.05 * sum(durations) * 1.1   # within the 5% budget (warm-up aside)


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
@given(st.lists(st.floats(1e-4, 1e-1), min_size=5, max_size=200), st.integers(1, 7))
def test_every_is_a_minimum_spacing_under_any_timing(durations, every):
    recorded = drive(Schedule(every=every, overhead=0.05), durations, record_cost=1e-3)
    assert recorded[0] == 0
    assert all(b - a >= every for a, b in zip(recorded, recorded[1:]))
