"""Weights written into the model late in a long run (WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER).
The write monitor followed the first 400 optimizer steps only; a copy of an EMA written in
from step 600 on (real-bug batch 175: an EMA whose warm-up kept it close to the live weights
before) went unseen. The latest 400 steps are followed too now, in a ring of bounded size:
the late writes are named, the same loop without them and a Lookahead-style pull every
50 steps stay silent."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import diffusion_ema_copied_into_trained_denoiser_at_sampling as ema  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor import rewritten_weights  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_diffusion_ema_copied_in_late_is_named_and_its_twin_is_not():
    assert CODE in _codes(ema.run())
    assert CODE not in _codes(ema.run(fixed=True))


def _long_loop(write_from=None, pull_every=None, steps=900):
    """A digits MLP with SGD for ``steps`` steps; from step ``write_from`` on, every 100
    steps, the weights of 80 steps before are copied back in (a stale copy saved and
    loaded); or every ``pull_every`` steps the weights move half-way back to a slow copy
    (Lookahead's sync, on purpose)."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    saved = slow = None
    with nd.watch(model, optimizer) as mon:
        for k, (xb, yb) in enumerate(batches(x, y, steps)):
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                if write_from is not None and k % 100 == 20:
                    saved = [p.clone() for p in model.parameters()]
                if write_from is not None and k >= write_from and k % 100 == 0 and saved:
                    for p, s in zip(model.parameters(), saved):
                        p.copy_(s)
                if pull_every is not None and k % pull_every == pull_every - 1:
                    slow = slow or [p.clone() for p in model.parameters()]
                    for p, s in zip(model.parameters(), slow):
                        s.add_(p - s, alpha=0.5)
                        p.copy_(s)
            mon.step(loss)
    return mon


def test_a_stale_copy_loaded_only_after_the_first_window_is_named():
    mon = _long_loop(write_from=rewritten_weights.WINDOW_STEPS + 100)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].step > rewritten_weights.WINDOW_STEPS


@pytest.mark.parametrize("setting", [{}, {"pull_every": 50}], ids=["plain", "lookahead"])
def test_long_runs_without_such_writes_stay_silent(setting):
    assert CODE not in _codes(_long_loop(**setting))


def test_the_ring_keeps_only_the_latest_steps():
    mon = _long_loop(steps=rewritten_weights.WINDOW_STEPS * 3)
    followed = mon.rewritten_weights
    assert len(followed._steps) == rewritten_weights.WINDOW_STEPS
    assert len(followed._ring_steps) == rewritten_weights.WINDOW_STEPS
    assert followed._ring_steps[-1] == rewritten_weights.WINDOW_STEPS * 3 - 1
