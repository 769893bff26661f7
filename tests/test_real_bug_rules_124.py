"""Real-bug batch 124 (policy-gradient and actor-critic RL written by hand): three healthy
twins drew false alarms as they came, fixed here.

* LOSS_OSCILLATING on two REINFORCE surrogates (returns standardised, so the loss hovers
  around zero): the policy-gradient product was not recognised when the log-probabilities
  are stacked over an episode's steps (``torch.stack``) or come from a Gaussian
  (``Normal.log_prob``); both are policy surrogates now, whose level is no objective.
* (a miss) probabilities read as logits, ``Categorical(logits=softmax(x))``: DOUBLE_SOFTMAX
  as info only, the surrogate's level saying nothing; the policy's graph now shows the
  normalisation of a softmax's output (an error), while ``Categorical(probs=...)`` and raw
  logits stay silent.
* VANISHING_GRADIENTS on a PPO actor-critic whose actor and critic sit side by side in one
  module: the depth profile compared the actor's first layer with the critic's value head.
  The profile now follows one chain (``context.one_chain``); chains of equal widths, and
  an encoder feeding a decoder, stay one chain."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.distributions import Categorical, Normal  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import PROBLEMS  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    gae_carried_across_episode_reset as gae, policy_probabilities_read_as_logits as as_logits,
    gaussian_policy_log_prob_of_reparameterised_action as gaussian,
    reinforce_every_step_weighted_by_episode_return as reinforce)
from nndebug.records import ParamInfo, RunRecord  # noqa: E402
from nndebug.rules.context import one_chain  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("case", [reinforce, gaussian, gae], ids=["reinforce", "gaussian", "gae"])
def test_the_healthy_twins_are_silent(case):
    mon = case.run(fixed=True)
    assert [f.code for f in mon.findings() if f.severity in PROBLEMS] == []


def _surrogate_rows(log_prob_of):
    """policy_gradient_terms rows of ``_reinforce``."""
    return _reinforce(log_prob_of).run.observed.policy_gradient_terms


def _reinforce(log_prob_of):
    """A REINFORCE loop whose log-probabilities come from ``log_prob_of(output)`` stacked
    over 5 steps, weighted by standardised returns; the closed monitor."""
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    with nd.watch(policy, optimizer) as mon:
        for _ in range(8):
            log_probs = torch.stack([log_prob_of(policy(torch.randn(8, 4))) for _ in range(5)])
            returns = torch.randn(5, 8)
            weights = (returns - returns.mean()) / returns.std()
            loss = -(log_probs * weights).sum() / 8
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _categorical(output):
    dist = Categorical(logits=output)
    return dist.log_prob(dist.sample())


def _gaussian(output):
    dist = Normal(output[:, 0], output[:, 1].exp())
    return dist.log_prob(dist.sample())


@pytest.mark.parametrize("log_prob_of", [_categorical, _gaussian], ids=["categorical", "gaussian"])
def test_stacked_and_gaussian_log_probabilities_are_policy_terms(log_prob_of):
    rows = _surrogate_rows(log_prob_of)
    assert rows and all(row[1] == "constant" and row[2] == "both" for row in rows)


def test_a_squared_error_times_a_weight_is_no_policy_term():
    """A product that does not involve a log-probability (a squared error times a
    weight) leaves no row."""
    def squared_error(output):
        return (output[:, 0] - 1.0) ** 2
    assert _surrogate_rows(squared_error) == []


def test_the_probabilities_read_as_logits_report_is_named():
    assert any(f.code == "DOUBLE_SOFTMAX" and f.severity == "error"
               for f in as_logits.run().findings())


def _sampled(dist):
    return dist.log_prob(dist.sample())


@pytest.mark.parametrize("log_prob_of, named", [
    (lambda out: _sampled(Categorical(logits=out.softmax(-1))), True),
    (lambda out: _sampled(Categorical(logits=out.softmax(-1).view(-1, 2))), True),
    (lambda out: _sampled(Categorical(probs=out.softmax(-1))), False),
    (lambda out: _sampled(Categorical(logits=out)), False),
    (lambda out: _sampled(Categorical(logits=out.log_softmax(-1))), False),
], ids=["logits_softmax", "logits_softmax_viewed", "probs_softmax", "raw_logits",
        "logits_log_softmax"])
def test_a_policy_normalising_probabilities_is_named(log_prob_of, named):
    mon = _reinforce(log_prob_of)
    found = [f for f in mon.findings() if f.code == "DOUBLE_SOFTMAX" and f.severity == "error"]
    assert bool(found) == named
    assert bool(mon.run.observed.softmax_read_as_logits) == named


def _run(shapes):
    run = RunRecord(framework="test")
    run.params = [ParamInfo(name, shape, True, True) for name, shape in shapes]
    return run


def test_an_actor_beside_a_critic_is_one_chain_of_its_own():
    run = _run([("actor.0.weight", (64, 4)), ("actor.2.weight", (2, 64)),
                ("critic.0.weight", (64, 4)), ("critic.2.weight", (1, 64))])
    assert one_chain(run, [0, 1, 2, 3]) == [0, 1]
    wrapped = _run([("net.actor.0.weight", (64, 4)), ("net.actor.2.weight", (2, 64)),
                    ("net.critic.0.weight", (64, 4)), ("net.critic.2.weight", (1, 64))])
    assert one_chain(wrapped, [0, 1, 2, 3]) == [0, 1]


@pytest.mark.parametrize("shapes", [
    # a deep MLP of one width, flat: every layer its own top-level child
    [(f"{i}.weight", (64, 64)) for i in range(0, 12, 2)],
    # blocks of one width: the second block reads the first one's output
    [("block1.0.weight", (64, 64)), ("block1.2.weight", (64, 64)),
     ("block2.0.weight", (64, 64)), ("block2.2.weight", (64, 64))],
    # an encoder feeding a decoder
    [("encoder.0.weight", (32, 64)), ("encoder.2.weight", (16, 32)),
     ("decoder.0.weight", (32, 16)), ("decoder.2.weight", (64, 32))],
], ids=["flat_equal_widths", "equal_width_blocks", "encoder_decoder"])
def test_chains_stay_whole(shapes):
    run = _run(shapes)
    everything = list(range(len(shapes)))
    assert one_chain(run, everything) == everything
