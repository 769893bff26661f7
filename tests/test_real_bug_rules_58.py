"""Real-bug batch 58 (model copies, parameter sharing, optimizer wiring): weights copied INTO
the trained model between optimizer steps and back toward older values
(WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER: an EMA copied in at each checkpoint and never
restored, an online network loaded from its target), a loss term whose reference is the
trained model itself (REFERENCE_IS_THE_TRAINED_MODEL: the policy passed as its own KL
reference, saved weights kept as ``p.detach()``, a consistency target that is the output
itself), and a zero penalty summed from detached copies (LOSS_TERM_ZERO_WITHOUT_GRADIENT:
an EWC penalty comparing the saved copy with itself). The fixed twins stay silent, and so
do the loops that write weights on purpose (clipping, Lookahead, max-norm, pruning masks),
references that are real copies, PPO-style ratios, and zero terms that are constants
(an accumulator, a disabled term)."""
import copy

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from benchmarks.real_bugs import ema_weights_left_in_model_after_checkpoint as ema_case  # noqa: E402
from benchmarks.real_bugs import evolved_weight_rewrapped_as_parameter as evolve_case  # noqa: E402
from benchmarks.real_bugs import ewc_penalty_compares_saved_copy_with_itself as ewc_case  # noqa: E402
from benchmarks.real_bugs import kl_reference_policy_is_the_policy as kl_case  # noqa: E402
from benchmarks.real_bugs import relative_position_parameters_created_in_forward as rel_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
import nndebug as nd  # noqa: E402
from nndebug.monitor.rewritten_weights import weight_writes  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
REWRITTEN = "WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER"
SELF = "REFERENCE_IS_THE_TRAINED_MODEL"
ZERO = "LOSS_TERM_ZERO_WITHOUT_GRADIENT"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


def _digits_loop(after_step=None, loss_of=None, steps=120, seed=0):
    """A digits MLP with Adam; ``after_step(model, k, state)`` runs between the optimizer's
    step and watch's; ``loss_of(model, xb, yb, state)`` replaces the cross-entropy."""
    torch.manual_seed(seed)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    state = {}
    with nd.watch(model, optimizer) as mon:
        for k, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_of(model, xb, yb, state) if loss_of else F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if after_step is not None:
                after_step(model, k, state)
            mon.step(loss)
    return mon


# --- WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER ----------------------------------------------------
def test_an_ema_copied_in_at_each_checkpoint_is_named():
    found = _found(ema_case.run(), REWRITTEN)
    assert found
    evidence = found[0].evidence
    assert len(evidence["steps"]) >= 6 and evidence["steps"][0] == 24
    assert min(evidence["jump_in_updates"]) >= 5
    assert max(evidence["distance_left_share"]) <= 0.35


def _sync_online_from_target(model, k, state):
    """policy.load_state_dict(target.state_dict()) every 20 steps: the wrong direction."""
    if "target" not in state:
        state["target"] = copy.deepcopy(model)
    if (k + 1) % 20 == 0:
        model.load_state_dict(state["target"].state_dict())
        with torch.no_grad():         # the target then drifts a little toward the online net
            for t, p in zip(state["target"].parameters(), model.parameters()):
                t.mul_(0.9).add_(p, alpha=0.1)


def test_an_online_network_loaded_from_its_target_is_named():
    assert _found(_digits_loop(_sync_online_from_target), REWRITTEN)


def _clip(model, k, state):
    with torch.no_grad():
        for p in model.parameters():
            p.clamp_(-0.05, 0.05)


def _lookahead(model, k, state):
    with torch.no_grad():
        if "slow" not in state:
            state["slow"] = [p.detach().clone() for p in model.parameters()]
        if (k + 1) % 5 == 0:
            for slow, p in zip(state["slow"], model.parameters()):
                slow.add_(p - slow, alpha=0.5)
                p.copy_(slow)


def _max_norm(model, k, state):
    with torch.no_grad():
        model[0].weight.copy_(torch.renorm(model[0].weight, 2, 0, 0.5))


def _prune(model, k, state):
    with torch.no_grad():
        if "mask" not in state:
            state["mask"] = (torch.rand_like(model[0].weight) > 0.5).float()
        model[0].weight.mul_(state["mask"])


def _ema_teacher(model, k, state):
    """A separate EMA copy updated from the model: the model itself is never written."""
    with torch.no_grad():
        if "teacher" not in state:
            state["teacher"] = copy.deepcopy(model)
        for t, p in zip(state["teacher"].parameters(), model.parameters()):
            t.mul_(0.99).add_(p, alpha=0.01)


@pytest.mark.parametrize("after_step", [_clip, _lookahead, _max_norm, _prune, _ema_teacher])
def test_writes_made_on_purpose_are_silent(after_step):
    assert REWRITTEN not in _problems(_digits_loop(after_step))


def test_weight_writes_measure_jump_and_distance_left():
    import numpy as np
    before = np.array([[0.0], [1.0], [2.0], [0.5], [1.5]])
    after = np.array([[1.0], [2.0], [3.0], [1.5], [2.5]])
    # step k=3 starts at 0.5 where step 2 left 3.0: a write of 2.5 updates back toward 0
    rows = weight_writes(before, after, [10, 11, 12, 13, 14])
    assert [row[:3] for row in rows] == [(12, 2.5, 0.5 / 3.0)]
    assert np.isnan(rows[0][3])        # the written size against the first step's (zero)
    rows = weight_writes(before + 1.0, after + 1.0, [10, 11, 12, 13, 14])
    assert rows[0][3] == 1.5           # 1.5 written where the first step held 1.0


# --- REFERENCE_IS_THE_TRAINED_MODEL -------------------------------------------------------
def test_the_policy_passed_as_its_own_reference_is_named():
    found = _found(kl_case.run(), SELF)
    assert found and found[0].step >= 1
    assert all(equal >= 1 for equal in found[0].evidence["equal_differences"])


def _l2_sp(saved_by):
    def loss_of(model, xb, yb, state):
        if "saved" not in state:
            state["saved"] = [saved_by(p) for p in model.parameters()]
        pull = sum(((p - s) ** 2).sum() for p, s in zip(model.parameters(), state["saved"]))
        return F.cross_entropy(model(xb), yb) + 0.1 * pull
    return loss_of


def test_saved_weights_that_share_the_parameters_storage_are_named():
    assert _found(_digits_loop(loss_of=_l2_sp(lambda p: p.detach())), SELF)


def test_saved_weights_copied_are_silent():
    assert SELF not in _problems(_digits_loop(loss_of=_l2_sp(lambda p: p.detach().clone())))


def _consistency(teacher_is_model, loss_name):
    def loss_of(model, xb, yb, state):
        if "teacher" not in state:
            state["teacher"] = model if teacher_is_model else copy.deepcopy(model)
        logits = model(xb)
        with torch.no_grad():
            target = state["teacher"](xb)
        if loss_name == "kl_div":
            term = F.kl_div(F.log_softmax(logits, 1), F.softmax(target, 1),
                            reduction="batchmean")
        else:
            term = F.mse_loss(logits.softmax(1), target.softmax(1))
        if not teacher_is_model:
            with torch.no_grad():
                for t, p in zip(state["teacher"].parameters(), model.parameters()):
                    t.mul_(0.99).add_(p, alpha=0.01)
        return F.cross_entropy(logits, yb) + term
    return loss_of


@pytest.mark.parametrize("loss_name", ["mse_loss", "kl_div"])
def test_a_teacher_that_is_the_student_is_named(loss_name):
    assert _found(_digits_loop(loss_of=_consistency(True, loss_name)), SELF)


@pytest.mark.parametrize("loss_name", ["mse_loss", "kl_div"])
def test_an_ema_teacher_is_silent(loss_name):
    assert SELF not in _problems(_digits_loop(loss_of=_consistency(False, loss_name)))


def _surrogate_ratio(model, xb, yb, state):
    """exp(logp - logp.detach()) weighted by a reward: a ratio of 1 on purpose."""
    logp = F.log_softmax(model(xb), 1).gather(1, yb[:, None])[:, 0]
    reward = torch.rand(len(yb), generator=torch.Generator().manual_seed(len(state)))
    state[len(state)] = None
    return -(torch.exp(logp - logp.detach()) * (reward - reward.mean())).mean() + \
        F.cross_entropy(model(xb), yb)


def test_a_ratio_against_its_own_detached_copy_is_left_to_ppo():
    assert SELF not in _problems(_digits_loop(loss_of=_surrogate_ratio))


def test_regression_against_fixed_targets_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    target = (y.float() - 4.5) / 3
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, target, 80):
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb)[:, 0], yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert SELF not in _problems(mon)


# --- LOSS_TERM_ZERO_WITHOUT_GRADIENT, a penalty summed from copies ------------------------
def test_an_ewc_penalty_comparing_the_saved_copy_with_itself_is_named():
    found = _found(ewc_case.run(), ZERO)
    assert found and found[0].evidence.get("computed")


def _with_constant_term(term):
    def loss_of(model, xb, yb, state):
        total = torch.zeros(())                 # an accumulator started at zero
        total = total + F.cross_entropy(model(xb), yb)
        return total + 0.5 * term()
    return loss_of


@pytest.mark.parametrize("term", [lambda: torch.tensor(0.0), lambda: torch.zeros(())])
def test_zero_terms_that_are_constants_are_silent(term):
    assert ZERO not in _problems(_digits_loop(loss_of=_with_constant_term(term)))


# --- the batch's cases -----------------------------------------------------------------
@pytest.mark.parametrize("case", [ema_case, evolve_case, ewc_case, kl_case, rel_case])
def test_the_cases_are_named_and_their_twins_silent(case):
    assert set(case.EXPECTED) & _problems(case.run())
    assert not _problems(case.run(fixed=True))
