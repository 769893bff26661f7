"""Same run, same findings: watch's verdict must not depend on how busy the machine was.

watch's default schedule spends a time budget, so WHICH steps it records depends on the
clock. The verdict must not: every zoo case (both frameworks, broken and healthy) and the
healthy digits set-ups run several times under watch's default settings, each time with
a different artificial clock (steps look slow or fast at random), and must give the same
findings: codes, severities, where, and the step they were first seen.
"""
import random

import pytest

import nndebug as nd
from nndebug import zoo
from nndebug.monitor import DEFAULT_OVERHEAD, Monitor, schedule

torch = pytest.importorskip("torch")

REPETITIONS = 5


class JitteryClock:
    """A fake clock for the monitor. Each reading moves it on by 1 to 100 us (the monitor's
    own work); each call to ``Monitor.step`` first moves it on by the user's training step:
    about 10 ms, and at random one step in 20 ten times slower (another process took the
    machine). Each seed gives other slow moments, so the time budget allows other records."""

    def __init__(self, seed):
        self.random, self.time = random.Random(seed), 0.0

    def __call__(self):
        self.time += 10 ** self.random.uniform(-6, -4)
        return self.time

    def user_step(self):
        slow = 10 if self.random.random() < 0.05 else 1
        self.time += 0.01 * self.random.uniform(0.9, 1.1) * slow


UNWATCHED_STEP = Monitor.step


def jitter(monkeypatch, seed):
    """Put a JitteryClock into the monitor (its reads and the user's steps)."""
    clock = JitteryClock(seed)

    def step(self, *args, **kwargs):
        clock.user_step()
        return UNWATCHED_STEP(self, *args, **kwargs)
    monkeypatch.setattr(schedule, "now", clock)
    monkeypatch.setattr(Monitor, "step", step)


def verdict(monitor):
    return [(f.code, f.severity, f.where, f.step) for f in monitor.findings()]


def verdicts(monkeypatch, run):
    """The findings of ``run()`` under REPETITIONS different clocks."""
    seen = []
    for seed in range(REPETITIONS):
        jitter(monkeypatch, seed)
        seen.append(verdict(run()))
    return seen


@pytest.mark.parametrize("case", zoo.cases(), ids=lambda c: c.name)
def test_every_zoo_case_gives_the_same_findings_under_any_timing(monkeypatch, case):
    seen = verdicts(monkeypatch, lambda: case.run(overhead=DEFAULT_OVERHEAD))
    assert all(v == seen[0] for v in seen), "\n".join(map(str, seen))


@pytest.mark.parametrize("optimizer,lr,batch", [("adam", 1e-2, 16), ("adam", 1e-3, 256),
                                                ("sgd", 0.2, 16), ("sgd", 0.05, 256),
                                                ("momentum", 0.1, 64), ("momentum", 0.02, 16)])
def test_healthy_digits_runs_give_the_same_findings_under_any_timing(monkeypatch, one_torch_thread,
                                                                    optimizer, lr, batch):
    from nndebug.zoo.common import batches, digits
    x, y = digits()

    def run():
        torch.manual_seed(1)
        model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 10))
        opt = {"adam": lambda: torch.optim.Adam(model.parameters(), lr=lr),
               "sgd": lambda: torch.optim.SGD(model.parameters(), lr=lr),
               "momentum": lambda: torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
               }[optimizer]()
        with nd.watch(model, opt) as mon:
            for xb, yb in batches(x, y, 200, batch_size=batch, seed=1):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(xb), yb)
                loss.backward()
                opt.step()
                mon.step(loss)
        return mon

    seen = verdicts(monkeypatch, run)
    assert all(v == seen[0] for v in seen), "\n".join(map(str, seen))
    assert not [f for f in seen[0] if f[1] != "info"], seen[0]     # and healthy: silent


def test_extra_records_feed_plots_and_sinks_but_not_the_rules(monkeypatch):
    from nndebug.monitor.schedule import is_judged_step
    jitter(monkeypatch, 0)
    case = zoo.get("torch/healthy-mlp")
    mon = case.run(overhead=DEFAULT_OVERHEAD)
    judged = [r.step for r in mon.run.records if r.judged]
    extra = [r.step for r in mon.run.records if not r.judged]
    assert extra, "this clock leaves the budget room for extra records"
    assert judged == [s for s in range(case.steps) if is_judged_step(s)]
    assert [r.step for r in mon.run.judged_view().records] == judged
    assert len(mon.run.records) == len(judged) + len(extra)      # the run keeps them all
