"""Real-bug batch 36 (training loops with several losses, optimizers or phases): L2
regularisation written into the loss by hand on top of the optimizer's weight_decay
(WEIGHT_DECAY_APPLIED_TWICE), and a discriminator stepped with the gradient the generator's
loss left in it (GRADIENT_CARRIED_FROM_OTHER_TURN). Either regulariser alone, a hand-written
MSE, a weight normalised inside the forward under weight decay and a penalty on activations
stay silent; so do a GAN that clears each network's gradients at the start of its turn
(in place or to None), its generator watched, and an actor-critic whose summed loss is
backpropagated once before both optimizers step."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import discriminator_steps_with_generator_loss_gradient as d_carried  # noqa: E402,E501
from benchmarks.real_bugs import l2_penalty_added_to_decayed_optimizer as l2_twice  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.parameter_penalties import (combining_nodes,  # noqa: E402
                                                 squared_parameters)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
TWICE = "WEIGHT_DECAY_APPLIED_TWICE"
CARRIED = "GRADIENT_CARRIED_FROM_OTHER_TURN"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(model, optimizer, loss_of, steps=12):
    """A short digits loop under watch; ``loss_of(model, xb, yb)`` builds the loss."""
    x, y = classification()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_of(model, xb, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _l2(model):
    return sum((p ** 2).sum() for p in model.parameters())


# --- the graph pattern -------------------------------------------------------------------

def test_every_way_of_squaring_a_parameter_is_a_penalty():
    w = nn.Parameter(torch.randn(4, 3))
    for penalty in (w ** 2, w.pow(2), torch.square(w), w * w):
        loss = torch.tensor(1.0, requires_grad=True) + 0.1 * penalty.sum()
        assert squared_parameters(combining_nodes(loss.grad_fn)) == [w]
    for penalty in (w.norm(), torch.linalg.vector_norm(w), w.norm() ** 2):
        loss = torch.tensor(1.0, requires_grad=True) + 0.1 * penalty
        assert squared_parameters(combining_nodes(loss.grad_fn)) == [w]


def test_an_l1_penalty_and_a_squared_error_are_not_l2_penalties():
    w = nn.Parameter(torch.randn(4, 3))
    x = torch.randn(5, 4)
    assert squared_parameters(combining_nodes((0.1 * w.abs().sum()).grad_fn)) == []
    assert squared_parameters(combining_nodes(((x @ w) ** 2).mean().grad_fn)) == []
    assert squared_parameters(combining_nodes((w ** 3).sum().grad_fn)) == []


# --- the planted case and its twin -------------------------------------------------------

def test_l2_by_hand_on_top_of_weight_decay_is_named():
    mon = l2_twice.run(steps=12)
    assert TWICE in _problems(mon)
    step, penalised, decayed, decay, decoupled = mon.run.observed.parameter_penalties[0]
    assert penalised == decayed == 4 and decay == l2_twice.L2 and not decoupled


def test_weight_decay_alone_is_silent():
    mon = l2_twice.run(fixed=True, steps=12)
    assert mon.run.observed.parameter_penalties == []
    assert TWICE not in _problems(mon)


# --- healthy setups that look alike ------------------------------------------------------

def test_l2_by_hand_without_weight_decay_is_silent():
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = _train(model, optimizer, lambda m, xb, yb: F.cross_entropy(m(xb), yb) + 1e-3 * _l2(m))
    assert mon.run.observed.parameter_penalties[0][1:3] == (4, 0)   # seen, and not decayed
    assert TWICE not in _problems(mon)


def test_l2_on_a_group_without_decay_is_silent():
    """The penalty covers the weights; the decay only the biases (its own param group)."""
    torch.manual_seed(0)
    model = mlp()
    weights = [p for p in model.parameters() if p.dim() > 1]
    biases = [p for p in model.parameters() if p.dim() == 1]
    optimizer = torch.optim.SGD([{"params": weights, "weight_decay": 0.0},
                                 {"params": biases, "weight_decay": 1e-4}], lr=0.05)
    mon = _train(model, optimizer, lambda m, xb, yb: F.cross_entropy(m(xb), yb) +
                 1e-4 * sum((w ** 2).sum() for w in weights))
    assert TWICE not in _problems(mon)


def test_squared_error_and_activation_penalty_under_weight_decay_are_silent():
    """A hand-written MSE and an L2 penalty on the hidden activations square tensors the
    forward made, not parameters."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)

    def loss_of(m, xb, yb):
        hidden = m[1](m[0](xb))
        out = m[2](hidden)
        squared_error = ((out - F.one_hot(yb, 10).float()) ** 2).mean()
        return squared_error + 1e-4 * (hidden ** 2).sum(1).mean()

    mon = _train(model, optimizer, loss_of)
    assert mon.run.observed.parameter_penalties == []
    assert TWICE not in _problems(mon)


def test_weight_normalised_inside_the_forward_under_decay_is_silent():
    """w / w.norm() inside a layer squares a parameter too, below the loss function's node,
    where the walk never goes."""

    class NormalisedLinear(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.v = nn.Parameter(torch.randn(n_out, n_in) * 0.1)
            self.g = nn.Parameter(torch.ones(n_out, 1))

        def forward(self, x):
            return x @ (self.g * self.v / self.v.norm(dim=1, keepdim=True)).t()

    torch.manual_seed(0)
    model = nn.Sequential(NormalisedLinear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    mon = _train(model, optimizer, lambda m, xb, yb: F.cross_entropy(m(xb), yb))
    assert mon.run.observed.parameter_penalties == []
    assert TWICE not in _problems(mon)


def test_only_the_first_recorded_steps_are_walked():
    mon = l2_twice.run(steps=40)
    from nndebug.monitor.parameter_penalties import STEPS_MEASURED
    assert len(mon.run.observed.parameter_penalties) == STEPS_MEASURED


# --- GRADIENT_CARRIED_FROM_OTHER_TURN -------------------------------------------------------

def test_discriminator_stepped_with_the_generators_gradient_is_named():
    mon = d_carried.run(steps=12)
    assert [row[1] for row in mon.run.observed.other_turn_gradients] == ["carried"] * 3
    assert CARRIED in _problems(mon)


def test_discriminator_cleared_at_the_start_of_its_turn_is_silent():
    mon = d_carried.run(fixed=True, steps=12)
    assert [row[1] for row in mon.run.observed.other_turn_gradients] == ["cleared"] * 3
    assert CARRIED not in _problems(mon)


def _gan(watch_generator=False, set_to_none=True, steps=12):
    """A conditional digits GAN whose turns each start by clearing their own gradients."""
    torch.manual_seed(0)
    x, y = classification()
    generator = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Sigmoid())
    discriminator = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
    watched = (generator, opt_g) if watch_generator else (discriminator, opt_d)
    with nd.watch(*watched) as mon:
        for real, _ in batches(x, y, steps):
            fake = torch.cat([real[:, :32], generator(real[:, :32])], dim=1)
            opt_d.zero_grad(set_to_none=set_to_none)
            d_loss = F.binary_cross_entropy_with_logits(discriminator(real), ones) + \
                F.binary_cross_entropy_with_logits(discriminator(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad(set_to_none=set_to_none)
            g_loss = F.binary_cross_entropy_with_logits(discriminator(fake), ones)
            g_loss.backward()          # leaves a gradient in the discriminator
            opt_g.step()
            mon.step(g_loss if watch_generator else d_loss)
    return mon


def test_gan_zeroing_in_place_is_silent():
    """zero_grad(set_to_none=False) keeps the same .grad tensor: the values tell."""
    mon = _gan(set_to_none=False)
    # the discriminator's turn comes first: on step 0 it held no gradient of the other turn
    assert [row[1] for row in mon.run.observed.other_turn_gradients] == ["cleared"] * 2
    assert CARRIED not in _problems(mon)


def test_gan_with_its_generator_watched_is_silent():
    mon = _gan(watch_generator=True)
    assert "carried" not in [row[1] for row in mon.run.observed.other_turn_gradients]
    assert CARRIED not in _problems(mon)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_which_side_of_the_game_goes_through_its_rival(set_to_none):
    """The generator's loss reaches the discriminator's parameters (through_rival); the
    discriminator, fed detached fakes, leaves the generator's gradients alone."""
    generator_side = _gan(watch_generator=True, set_to_none=set_to_none)
    discriminator_side = _gan(set_to_none=set_to_none)
    assert [row[2] for row in generator_side.run.observed.other_turn_gradients] == [True] * 2
    assert [row[2] for row in discriminator_side.run.observed.other_turn_gradients] == \
        [False] * 2


def test_actor_critic_stepping_both_after_one_backward_is_silent():
    """One backward of the summed loss, then the critic's and the actor's steps: the
    actor's gradient at the critic's step is its own step's, no backward came after."""
    torch.manual_seed(0)
    x, y = classification()
    actor, critic = mlp(), mlp(outputs=1)
    opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
    opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with nd.watch(actor, opt_actor) as mon:
        for xb, yb in batches(x, y, 12):
            opt_actor.zero_grad()
            opt_critic.zero_grad()
            value = critic(xb).squeeze(1)
            advantage = (yb.float() / 9 - value).detach()
            log_prob = F.log_softmax(actor(xb), 1).gather(1, yb[:, None]).squeeze(1)
            loss = -(log_prob * advantage).mean() + F.mse_loss(value, yb.float() / 9)
            loss.backward()
            opt_critic.step()
            opt_actor.step()
            mon.step(loss)
    assert mon.run.observed.other_turn_gradients == []
    assert CARRIED not in _problems(mon)


def test_the_global_hook_leaves_after_the_measured_steps():
    from nndebug.monitor.other_turn_gradients import STEPS_MEASURED
    mon = d_carried.run(steps=12)
    assert mon.other_turns._handle is None
    assert len(mon.run.observed.other_turn_gradients) == STEPS_MEASURED


def test_measuring_ends_inside_a_step_without_breaking_the_hook_loop():
    """The hook finishes inside torch's loop over the global hooks, where removing it would
    break the loop for a hook registered after it: it only stops, and the next recorded
    step removes it."""
    from torch.optim.optimizer import register_optimizer_step_pre_hook
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    called = []
    with nd.watch(model, optimizer) as mon:
        later = register_optimizer_step_pre_hook(lambda *args: called.append(1))   # after ours
        try:
            for xb, yb in batches(x, y, 12):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
        finally:
            later.remove()
    assert len(called) == 12
    assert mon.other_turns.done and mon.other_turns._handle is None
