"""Real-bug batch 117 (federated learning written by hand): a loop that trains one client
model after another, each starting from the round's global weights, writes the watched
model's weights between optimizer steps on a fixed period, and most of those writes land
exactly where the previous one put them (``curve.saved_state_restores``). All five healthy
FedAvg twins drew WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER for those writes, and four drew
LOSS_OSCILLATING and LR_TOO_HIGH for the loss jumping at each switch to a client holding
other digits. Saved states restored on a period are now neither rewrites nor spikes; the
writes that undo training (an EMA copied in and never swapped back, an online network
loaded from its drifting target) are still named."""
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from benchmarks.real_bugs import ema_weights_left_in_model_after_checkpoint as ema_case  # noqa: E402
from benchmarks.real_bugs._common import mlp  # noqa: E402
from benchmarks.real_bugs._federated import federated_digits, local_batches  # noqa: E402
import nndebug as nd  # noqa: E402
from nndebug.rules.curve import after_restores, saved_state_restores  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CURVE_CODES = {"WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER", "LOSS_OSCILLATING", "LR_TOO_HIGH"}


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _fedavg(rounds=8, clients=4, local_steps=8, optimizer_class=torch.optim.SGD, lr=0.1,
            seed=0):
    """A healthy FedAvg loop watching the one client model it trains for every client."""
    torch.manual_seed(seed)
    parts, _ = federated_digits(clients, seed=seed)
    rng = np.random.default_rng(seed)
    global_model, client = mlp(), mlp()
    optimizer = optimizer_class(client.parameters(), lr=lr)
    with nd.watch(client, optimizer) as mon:
        for _ in range(rounds):
            states = []
            for x, y in parts:
                client.load_state_dict(global_model.state_dict())
                for xb, yb in local_batches(x, y, local_steps, 32, rng):
                    optimizer.zero_grad()
                    loss = F.cross_entropy(client(xb), yb)
                    loss.backward()
                    optimizer.step()
                    mon.step(loss)
                states.append({k: v.clone() for k, v in client.state_dict().items()})
            global_model.load_state_dict({k: sum(s[k] for s in states) / len(states)
                                          for k in states[0]})
    return mon


def test_a_healthy_fedavg_loop_is_silent():
    assert not _problems(_fedavg()) & CURVE_CODES


def test_a_healthy_fedavg_loop_with_adam_clients_is_silent():
    assert not _problems(_fedavg(optimizer_class=torch.optim.Adam, lr=3e-3)) & CURVE_CODES


def test_restores_are_read_with_their_period():
    mon = _fedavg()
    mon.findings()                    # the sampled weights come to the host for findings
    ctx = SimpleNamespace(run=mon.run, _once=lambda key, compute: compute())
    period, steps = saved_state_restores(ctx)
    assert period == 8 and all(step % 8 == 7 for step in steps)   # each client's last step
    mask = after_restores(ctx, np.arange(64))
    # right after each write, from the run's first period boundary on (the monitor keeps the
    # largest writes only, so the first kept one may come after earlier restores; real-bug
    # batch 183); a fifth of a period of 8 is one step
    assert list(np.flatnonzero(mask)) == list(range(steps[0] % 8 + 1, 64, 8))


def test_an_ema_copied_in_is_no_restore_and_still_named():
    mon = ema_case.run()
    ctx = SimpleNamespace(run=mon.run, _once=lambda key, compute: compute())
    assert saved_state_restores(ctx) is None
    assert "WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER" in _problems(mon)


def _ctx(rows):
    return SimpleNamespace(run=SimpleNamespace(observed=SimpleNamespace(rewritten_weights=rows)),
                           _once=lambda key, compute: compute())


def test_restores_need_several_exact_landings_on_one_period():
    exact = [(9 + 10 * k, 12.0, 0.0) for k in range(4)]
    assert saved_state_restores(_ctx(exact)) == (10, [9, 19, 29, 39])
    assert saved_state_restores(_ctx(exact[:2])) is None            # two: a rollback or so
    ema = [(24 + 25 * k, 20.0, 0.15) for k in range(6)]             # an EMA copied in
    assert saved_state_restores(_ctx(ema)) is None
    assert saved_state_restores(_ctx(exact[:3] + ema)) is None     # a minority exact
    irregular = [(s, 12.0, 0.0) for s in (9, 20, 32, 45)]            # no common period
    assert saved_state_restores(_ctx(irregular)) is None
    small = [(9 + 10 * k, 1.0, 0.0) for k in range(4)]               # clipping-sized writes
    assert saved_state_restores(_ctx(small)) is None
