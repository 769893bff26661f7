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
from nndebug.monitor import DEFAULT_OVERHEAD, schedule

torch = pytest.importorskip("torch")

REPETITIONS = 5


class JitteryClock:
    """The monitor reads its clock when ``step()`` starts and when it ends. Between those
    readings lie, alternately, the user's step (about 10 ms; at random one in 20 is ten
    times slower: another process took the machine) and the monitor's own work (1 us to
    100 us). Each seed gives other slow moments, so the time budget allows other records."""

    def __init__(self, seed):
        self.random, self.time, self.readings = random.Random(seed), 0.0, 0

    def __call__(self):
        self.readings += 1
        if self.readings % 2 == 0:      # the first reading ends the monitor's set-up
            slow = 10 if self.random.random() < 0.05 else 1
            self.time += 0.01 * self.random.uniform(0.9, 1.1) * slow
        else:
            self.time += 10 ** self.random.uniform(-6, -4)
        return self.time


def verdict(monitor):
    return [(f.code, f.severity, f.where, f.step) for f in monitor.findings()]


def verdicts(monkeypatch, run):
    """The findings of ``run()`` under REPETITIONS different clocks."""
    seen = []
    for seed in range(REPETITIONS):
        monkeypatch.setattr(schedule, "now", JitteryClock(seed))
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
