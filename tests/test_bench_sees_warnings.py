"""The real-bug benchmark scores cases with the warnings a user's console would show.

watch reads warnings where Python shows them (``monitor/raised_warnings.py``). The benchmark
and tests/test_real_bugs.py used to silence the cases' console noise with an "ignore"
filter, which also hid every warning from watch: a softmax without dim, a loss's broadcast
shapes or a KL divergence averaged over classes were named in a user's run and missed in
the table. ``warnings_unprinted`` keeps Python's "default" action (each line warns once) and
prints nothing. These tests hold both halves: watch sees the warning, the console does not,
and a second run (the fixed twin) sees the warnings of its own lines again.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import warnings_unprinted  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


class Routing(nn.Module):
    """Scores over (batch, inputs, parents) turned into weights with a softmax whose dim is
    left to torch (dim 0 for 3-D: across the batch) when ``implicit``."""

    def __init__(self, implicit):
        super().__init__()
        self.implicit = implicit
        self.score = nn.Linear(4, 5)
        self.head = nn.Linear(5, 3)

    def forward(self, x):
        scores = self.score(x)                                   # (batch, inputs, parents)
        weights = F.softmax(scores) if self.implicit else F.softmax(scores, dim=-1)
        return self.head((weights * scores).sum(1))


def _run(implicit, steps=6):
    torch.manual_seed(0)
    x, y = torch.randn(32, 7, 4), torch.randint(0, 3, (32,))
    model = Routing(implicit)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_a_warning_reaches_watch_and_not_the_console(capsys):
    with warnings_unprinted():
        assert "FRAMEWORK_WARNING" in _run(implicit=True)
    captured = capsys.readouterr()
    assert "softmax" not in captured.err + captured.out


def test_an_ignore_filter_would_hide_it_from_watch():
    """Why the benchmark no longer ignores warnings: the same run is silent under one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert "FRAMEWORK_WARNING" not in _run(implicit=True)


def test_each_run_sees_its_own_lines_warn_again():
    """Python shows a line's warning once; each block starts that record afresh, so the
    second of two runs through the same line (a case's twin) is told too."""
    for _ in range(2):
        with warnings_unprinted():
            assert "FRAMEWORK_WARNING" in _run(implicit=True)


def test_the_healthy_routing_is_silent():
    with warnings_unprinted():
        assert "FRAMEWORK_WARNING" not in _run(implicit=False)


def test_the_callers_filters_and_display_are_put_back():
    before_filters, before_show = list(warnings.filters), warnings.showwarning
    with warnings_unprinted():
        pass
    assert warnings.filters == before_filters and warnings.showwarning is before_show
