"""Real-bug batches 294 (PPO by hand) and 298 (param groups by hand).

LOG_PROB_BROADCAST after the pick (``rules/policy_gradients.py``, the sixth field of
``observed.policy_gradient_terms``): ``gather(1, actions)`` keeps a (B, 1) column, and the
PPO ratio ``exp(new - old)`` with old log-probabilities of shape (B,) is a (B, B) table. Named
on the batch's case and a planted loop, silent once the column is squeezed.

LR_TOO_LOW for new layers in the pretrained body's param group (``rules/learning_rate.py``,
``context.fresh_beside_trained_in_slow_groups``): a slow group holds freshly initialised
weights beside a majority (in values) of pretrained ones. Named on both batch cases, while a
body re-initialised after its load (a small first conv missing the fresh test by noise) is
still PRETRAINED_WEIGHTS_NOT_LOADED; silent on the twins.
"""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    differential_rates_listed_opposite_to_layer_order as swapped_rates_case)
from benchmarks.real_bugs import fresh_adapter_put_in_backbone_rate_group as adapter_case  # noqa: E402
from benchmarks.real_bugs import ppo_ratio_from_gathered_log_prob_column as ratio_case  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    pretrained_weights_reinitialised_after_loading as reinitialised_case)
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


# --- LOG_PROB_BROADCAST after the pick ----------------------------------------------------

def _ratio_loop(squeeze, steps=40):
    """A PPO-style clipped surrogate on the digits (the label's log-probability under the
    current policy against one frozen copy's), the picked column squeezed or not."""
    x, y = classification()
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    old = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    old.load_state_dict(policy.state_dict())
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    with nd.watch(policy, optimizer) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64):
            with torch.no_grad():
                old_log_probs = F.log_softmax(old(xb), -1).gather(1, yb[:, None]).squeeze(1)
                advantages = torch.randn(len(yb))
            new = F.log_softmax(policy(xb), -1).gather(1, yb[:, None])
            if squeeze:
                new = new.squeeze(1)
            ratio = torch.exp(new - old_log_probs)
            loss = -torch.min(ratio * advantages,
                              ratio.clamp(0.8, 1.2) * advantages).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_ratio_broadcast_after_the_pick_is_named():
    mon = _ratio_loop(squeeze=False)
    found = [f for f in mon.findings() if f.code == "LOG_PROB_BROADCAST"]
    assert found and found[0].evidence["multiplied"] == 64 * 64
    assert found[0].evidence["picked"] == 64
    assert "LOG_PROB_BROADCAST" not in _problems(_ratio_loop(squeeze=True))


def test_the_batch_case_is_named_and_its_twin_is_silent():
    assert "LOG_PROB_BROADCAST" in _problems(ratio_case.run())
    assert not _problems(ratio_case.run(fixed=True))


# --- new layers at the pretrained body's rate ---------------------------------------------

@pytest.mark.parametrize("case", [adapter_case, swapped_rates_case])
def test_new_layers_in_the_slow_group_are_named_and_the_twins_are_silent(case):
    found = [f for f in case.run().findings() if f.code == "LR_TOO_LOW"]
    assert found and found[0].severity == "warning" and found[0].evidence["fresh"]
    assert not _problems(case.run(fixed=True))


def test_a_body_reinitialised_after_loading_is_still_not_loaded():
    codes = _problems(reinitialised_case.run())
    assert "PRETRAINED_WEIGHTS_NOT_LOADED" in codes and "LR_TOO_LOW" not in codes


def test_a_fresh_head_at_the_fast_rate_beside_a_pretrained_body_is_silent():
    x, y = classification()
    torch.manual_seed(0)
    body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
    head = nn.Linear(64, 10)
    pre = torch.optim.Adam([*body.parameters(), *head.parameters()], lr=1e-3)
    for xb, yb in batches(x, y, 150, batch_size=64):       # "pretrained" body
        pre.zero_grad()
        F.cross_entropy(head(body(xb)), yb).backward()
        pre.step()
    model = nn.Sequential(body, nn.Linear(64, 10))          # a new head
    optimizer = torch.optim.Adam([{"params": body.parameters(), "lr": 1e-5},
                                  {"params": model[1].parameters(), "lr": 1e-3}])
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 150, batch_size=64, seed=1):
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LR_TOO_LOW" not in _problems(mon)
    assert "PRETRAINED_WEIGHTS_NOT_LOADED" not in _problems(mon)
