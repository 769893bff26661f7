"""Real-bug batch 44 (reinforcement learning and other non-standard loops).

LOG_PROBS_POOLED_BEFORE_WEIGHTING: a policy-gradient loss that reduces the log-probabilities
to one number before multiplying by the returns. Named on its case; silent on the fixed
twin and on healthy variants: one product per action, a trajectory's summed log-probability
times ONE episode return, a per-sequence sum times per-sequence rewards.

PPO_RATIO_ALWAYS_ONE: PPO's ratio computed against a detached copy of the current policy.
Named on its case; silent on the fixed twin (old log-probabilities kept from the rollout).

Two false alarms on healthy loops are gone: LOSS_OSCILLATING on a policy-gradient surrogate
of both signs, and LOSS_DIVERGING on a DQN's TD loss whose bootstrapped targets grow as the
values propagate (``rules/moving_targets.py``); targets of one fixed spread (a regression
on data) do not count as moving."""
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
from torch.distributions import Categorical  # noqa: E402

from benchmarks.real_bugs import dqn_target_network_synced_from_itself as dqn  # noqa: E402
from benchmarks.real_bugs import ppo_ratio_against_its_own_detached_copy as ppo  # noqa: E402
from benchmarks.real_bugs import reinforce_log_probs_averaged_before_weighting as pooled  # noqa: E402,E501
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.pooled_log_probs import find_pooled_log_probs  # noqa: E402
from nndebug.rules.moving_targets import targets_moved_up  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
POOLED = "LOG_PROBS_POOLED_BEFORE_WEIGHTING"
RATIO = "PPO_RATIO_ALWAYS_ONE"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _log_probs(episodes=3, steps=5, actions=4):
    torch.manual_seed(0)
    logits = torch.randn(episodes, steps, actions, requires_grad=True)
    dist = Categorical(logits=logits)
    return dist.log_prob(dist.sample())            # (episodes, steps)


def _found(loss):
    loss.backward()
    return find_pooled_log_probs(nodes_under([loss.grad_fn]))


# --- LOG_PROBS_POOLED_BEFORE_WEIGHTING ---------------------------------------------------

def test_the_case_is_named_and_its_fixed_twin_is_silent():
    assert POOLED in _problems(pooled.run(steps=12))
    assert POOLED not in _problems(pooled.run(fixed=True, steps=12))


def test_a_mean_of_log_probs_times_a_vector_of_returns_is_found():
    log_probs, returns = _log_probs(), torch.randn(5)
    found = _found(-sum(torch.sum(log_probs[e].mean() * returns) for e in range(3)))
    assert found and found[0] == (5, 5)


def test_a_sum_of_stacked_log_probs_times_returns_is_found():
    log_probs, returns = _log_probs(), torch.randn(5)
    stacked = torch.stack([log_probs[0, t] for t in range(5)])
    assert _found(-(stacked.sum() * returns).sum())


def test_one_product_per_action_is_silent():
    log_probs, returns = _log_probs(), torch.randn(3, 5)
    assert _found(-(log_probs * returns).sum()) == []


def test_a_trajectory_log_prob_times_one_episode_return_is_silent():
    log_probs = _log_probs()
    assert _found(-(log_probs[0].sum() * 2.5)) == []


def test_a_per_sequence_sum_times_per_sequence_rewards_is_silent():
    log_probs, rewards = _log_probs(), torch.randn(3)
    assert _found(-(log_probs.sum(1) * rewards).mean()) == []


# --- PPO_RATIO_ALWAYS_ONE -----------------------------------------------------------------

def test_the_ppo_case_is_named_and_its_fixed_twin_is_silent():
    assert RATIO in _problems(ppo.run(steps=12))
    assert RATIO not in _problems(ppo.run(fixed=True, steps=12))


def test_a_policy_gradient_without_a_ratio_gets_no_ratio_rows():
    mon = pooled.run(fixed=True, steps=8)
    assert mon.run.observed.ppo_ratios == []


# --- false alarms on healthy loops --------------------------------------------------------

def test_a_standardised_policy_surrogate_is_not_called_oscillating():
    assert "LOSS_OSCILLATING" not in _problems(pooled.run(fixed=True))


def test_a_dqn_whose_targets_grow_with_its_values_is_not_called_diverging():
    assert "LOSS_DIVERGING" not in _problems(dqn.run(fixed=True))


class _Context:
    """What ``targets_moved_up`` reads of a diagnosis: the run's kept loss calls."""

    def __init__(self, spreads, loss="mse_loss"):
        calls = [SimpleNamespace(step=2 ** k, loss=loss, target_min=0.0, target_max=spread)
                 for k, spread in enumerate(spreads)]
        self.run = SimpleNamespace(records=[], observed=SimpleNamespace(loss_calls=calls))
        self.cutoff = None

    def _once(self, key, compute):
        return compute()


def test_targets_of_one_fixed_spread_do_not_count_as_moving():
    # a regression on data: every batch's targets spread alike, and a rising loss there
    # is still called diverging
    assert not targets_moved_up(_Context([1.0, 1.1, 0.9, 1.0, 1.2, 0.95, 1.05, 1.1, 1.0]))


def test_targets_that_spread_out_as_the_dqn_twins_did_count_as_moving():
    # the healthy DQN's kept calls (dqn_target_network_synced_from_itself, fixed=True)
    spreads = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.44, 1.56, 1.81, 2.52]
    assert targets_moved_up(_Context(spreads))
    assert not targets_moved_up(_Context(spreads, loss="cross_entropy"))
    assert not targets_moved_up(_Context(spreads[-4:]))     # too few calls to judge


def test_moving_targets_do_not_depend_on_how_many_records_the_run_made():
    """(real-bug batch 136, seeds shifted by 2000) A healthy DQN that made 19 judged records:
    its first half reached into the grown targets (median 1.43 against 1.80 late, 1.26x),
    and it was called diverging. The first three calls (steps 0-2, before the values grew)
    are the early spread, however many calls follow."""
    spreads = [1.0, 1.0, 1.0, 1.0, 1.535, 1.461, 1.472, 1.502, 1.429, 1.535, 1.442, 1.648,
               1.471, 1.458, 1.45, 1.535, 1.568, 1.798, 2.628]
    assert targets_moved_up(_Context(spreads))
    assert targets_moved_up(_Context(spreads[:4] + spreads[-4:]))
    steady = [1.0, 1.1, 0.9, 1.0, 1.2, 0.95, 1.05, 1.1, 1.0] * 2
    assert not targets_moved_up(_Context(steady))


def test_ppo_ratio_of_one_warns_only_when_a_rollout_is_trained_on_again():
    """A ratio of exactly 1 is what a loop with one update per rollout reads too (healthy:
    the clip has nothing to do); the warning needs a later batch made mostly of rows an
    earlier batch held."""
    from nndebug.rules.ppo_ratios import rollout_reused
    epochs = [(0, 64, 64, 64), (1, 64, 64, 128), (2, 64, 64, 192), (4, 64, 64, 208)]
    fresh = [(0, 64, 64, 64), (1, 64, 64, 127), (2, 64, 64, 190), (4, 64, 64, 249)]
    assert rollout_reused(epochs) and not rollout_reused(fresh) and not rollout_reused([])
    capped = [(0, 4096, 4096, 4096), (1, 4096, 4096, 4096)]     # the count stops at its cap
    assert not rollout_reused(capped)
