"""Batch 25, reinforcement-learning loops: the product log_prob(actions) * weight that a
policy gradient minimises, read from the loss's graph at backward
(monitor/policy_gradient_terms.py, rules/policy_gradients.py).

Each planted case is named; its fixed twin is silent; and healthy runs that build the same
pieces for other reasons stay silent: a hand-written soft-target cross-entropy (a product of
a constant and a log-softmax, no pick), entropy minimisation on unlabelled data (a
supervised method, no policy gradient), a PPO clipped surrogate with an entropy bonus and a
separate critic, and several samples drawn per state (log-probabilities of k x B actions).
A policy-gradient loss's rise is no divergence (LOSS_DIVERGING stands down on it).
"""
import json
import warnings

import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from nndebug import runfile  # noqa: E402
from benchmarks.real_bugs import (actor_critic_advantage_not_detached,  # noqa: E402
                                  entropy_bonus_added_to_loss,
                                  policy_log_prob_broadcast_over_batch)
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS = 120


def problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def quiet(run, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(**kwargs)


@pytest.mark.parametrize("case, code", [
    (actor_critic_advantage_not_detached, "POLICY_WEIGHT_NOT_DETACHED"),
    (policy_log_prob_broadcast_over_batch, "LOG_PROB_BROADCAST"),
    (entropy_bonus_added_to_loss, "ENTROPY_BONUS_MINIMISED"),
])
def test_planted_case_named_and_fixed_twin_silent(case, code):
    assert code in problems(quiet(case.run, steps=STEPS))
    assert not problems(quiet(case.run, fixed=True, steps=STEPS))


def test_observations_survive_the_run_file():
    mon = quiet(entropy_bonus_added_to_loss.run, steps=30)
    text = json.dumps(runfile._encode_observed(mon.run.observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.policy_gradient_terms == mon.run.observed.policy_gradient_terms
    assert back.entropy_terms == mon.run.observed.entropy_terms
    assert back.entropy_terms and back.policy_gradient_terms


def _digit_loop(loss_of, model=None, steps=STEPS, lr=3e-3):
    torch.manual_seed(0)
    x, y = classification()
    model = model or mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for inputs, labels in batches(x, y, steps):
                loss = loss_of(model, inputs, labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


def test_soft_target_cross_entropy_is_no_policy_term():
    def smoothed(model, inputs, labels):
        targets = torch.nn.functional.one_hot(labels, 10).float() * 0.9 + 0.01
        return -(targets * torch.log_softmax(model(inputs), 1)).sum(1).mean()
    mon = _digit_loop(smoothed)
    assert not mon.run.observed.policy_gradient_terms
    assert not problems(mon)


def test_entropy_minimisation_without_policy_gradient_is_silent():
    def entmin(model, inputs, labels):
        logits = model(inputs)
        labelled, unlabelled = logits[:32], logits[32:]
        probs = torch.softmax(unlabelled, 1)
        entropy = -(probs * torch.log_softmax(unlabelled, 1)).sum(1).mean()
        return torch.nn.functional.cross_entropy(labelled, labels[:32]) + 0.1 * entropy
    mon = _digit_loop(entmin)
    assert not mon.run.observed.policy_gradient_terms      # no policy term: never measured
    assert not problems(mon)


def test_ppo_with_separate_critic_and_entropy_bonus_is_silent():
    torch.manual_seed(0)
    critic = mlp(outputs=1)
    critic_optimizer = torch.optim.Adam(critic.parameters(), lr=3e-3)

    def ppo(model, inputs, labels):
        logits = model(inputs)
        with torch.no_grad():
            old = torch.distributions.Categorical(logits=logits)
            actions = old.sample()
            old_log_probs = old.log_prob(actions)
        rewards = (actions == labels).float()
        values = critic(inputs).squeeze(1)
        critic_loss = (rewards - values).pow(2).mean()
        critic_optimizer.zero_grad()
        critic_loss.backward()
        critic_optimizer.step()
        advantages = rewards - values.detach()
        dist = torch.distributions.Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
        surrogate = torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages)
        return -surrogate.mean() - 0.01 * dist.entropy().mean()
    mon = _digit_loop(ppo)
    assert mon.run.observed.policy_gradient_terms
    assert all(row[1] == "constant" for row in mon.run.observed.policy_gradient_terms)
    assert all(v == "maximised" for _, v in mon.run.observed.entropy_terms)
    assert not problems(mon)


def test_several_samples_per_state_are_no_broadcast():
    def k_samples(model, inputs, labels):
        dist = torch.distributions.Categorical(logits=model(inputs))
        actions = dist.sample((4,))                                   # (4, B)
        rewards = (actions == labels).float()
        return -(dist.log_prob(actions) * (rewards - rewards.mean())).mean()
    mon = _digit_loop(k_samples)
    rows = mon.run.observed.policy_gradient_terms
    assert rows and all(row[3] == 4 * row[4] for row in rows)
    assert not problems(mon)


def test_the_backward_mode_leaves_the_mode_stack_as_found():
    depth = torch._C._len_torch_function_stack()
    mon = quiet(entropy_bonus_added_to_loss.run, steps=20)
    assert mon.run.observed.policy_gradient_terms         # the mode was pushed and read
    assert torch._C._len_torch_function_stack() == depth
