"""Real-bug batch 50 (hand-written training loops): a backward after ``optimizer.step()``
(BACKWARD_AFTER_OPTIMIZER_STEP), ``model.zero_grad()`` leaving parameters the optimizer
holds outside the model to sum their gradients (OPTIMIZER_PARAMS_NEVER_ZEROED), and a
consistency term computed on the wrong tensors, 0 and without gradient on every step while
the forward it was meant to read goes unused (LOSS_TERM_ZERO_WITHOUT_GRADIENT).

Planted: the reports' cases (a second head's loss backpropagated after the step; a centre
loss's centres never cleared), and more of each family: the one backward written after the
step, a learnable loss weight (uncertainty weighting) never cleared. Silent: the fixed twins,
and healthy loops that look alike: zero_grad() right after the step, zero_grad(set_to_none=
False), a parameter no loss reaches, a GAN whose generator turn backpropagates into the
watched discriminator after its step, gradient accumulation over micro-batches, and a loss
module's parameters cleared by optimizer.zero_grad() or by their own zero_grad(); for the
zero term, a loss summed from an accumulator started at torch.zeros(()) and a second forward
for a metric written without no_grad (each alone), and a GAN whose critic losses are
summed by sum() from 0 over three forwards of a two-output critic.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import auxiliary_loss_backward_after_step as late_backward  # noqa: E402
from benchmarks.real_bugs import model_zero_grad_misses_loss_parameters as centres  # noqa: E402
from benchmarks.real_bugs import consistency_loss_reads_teacher_logits_twice as mean_teacher  # noqa: E402,E501
from benchmarks.real_bugs import discriminator_listed_twice_other_never_optimized as critics  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
LATE = "BACKWARD_AFTER_OPTIMIZER_STEP"
UNCLEARED = "OPTIMIZER_PARAMS_NEVER_ZEROED"
ZERO_TERM = "LOSS_TERM_ZERO_WITHOUT_GRADIENT"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _digits(steps=STEPS, batch_size=16):
    x, y = classification()
    return batches(x, y, steps, batch_size=batch_size)


# --- BACKWARD_AFTER_OPTIMIZER_STEP ------------------------------------------------------------

def test_the_report_of_a_second_loss_after_the_step_is_named_and_its_twin_is_silent():
    mon = late_backward.run(steps=STEPS)
    assert LATE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == LATE)
    assert any(name.startswith("high.") for name in finding.evidence["names"])
    assert not _problems(late_backward.run(fixed=True, steps=STEPS))


def _loop(order, steps=STEPS, set_to_none=True, unused=False):
    """A digits MLP trained with ``order`` in {"usual", "step_first", "zero_after_step"}."""
    torch.manual_seed(0)
    model = mlp()
    if unused:
        model.register_parameter("spare", nn.Parameter(torch.zeros(4)))   # reached by no loss
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in _digits(steps):
            if order != "zero_after_step":
                optimizer.zero_grad(set_to_none=set_to_none)
            loss = F.cross_entropy(model(xb), yb)
            if order == "step_first":
                optimizer.step()               # the step written before the backward
                loss.backward()
            else:
                loss.backward()
                optimizer.step()
            if order == "zero_after_step":
                optimizer.zero_grad(set_to_none=set_to_none)
            mon.step(loss)
    return mon


def test_a_step_written_before_the_backward_is_named():
    assert LATE in _problems(_loop("step_first"))


@pytest.mark.parametrize("order,set_to_none", [("usual", True), ("usual", False),
                                               ("zero_after_step", True),
                                               ("zero_after_step", False)])
def test_usual_loop_orders_are_silent(order, set_to_none):
    assert LATE not in _problems(_loop(order, set_to_none=set_to_none, unused=True))


def test_a_gan_turn_backpropagating_into_the_watched_discriminator_is_silent():
    """The generator's loss goes through the discriminator after the discriminator stepped:
    its parameters already held their own gradient at their step."""
    torch.manual_seed(0)
    x, _ = classification()
    disc = nn.Sequential(nn.Linear(64, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    gen = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64), nn.Sigmoid())
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)
    with nd.watch(disc, opt_d) as mon:
        for real, _ in batches(x, x, STEPS, batch_size=32):
            fake = gen(torch.randn(32, 8))
            opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(disc(real), ones) + \
                F.binary_cross_entropy_with_logits(disc(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            F.binary_cross_entropy_with_logits(disc(fake), ones).backward()
            opt_g.step()
            mon.step(d_loss)
    assert LATE not in _problems(mon)


def test_accumulated_micro_batches_are_silent():
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        optimizer.zero_grad()
        for i, (xb, yb) in enumerate(_digits(4 * STEPS), start=1):
            loss = F.cross_entropy(model(xb), yb) / 4
            loss.backward()
            if i % 4 == 0:
                optimizer.step()
                optimizer.zero_grad()
                mon.step(loss)
    assert LATE not in _problems(mon)


# --- OPTIMIZER_PARAMS_NEVER_ZEROED ------------------------------------------------------------

def test_the_report_of_model_zero_grad_with_a_centre_loss_is_named_and_its_twin_is_silent():
    mon = centres.run(steps=STEPS)
    assert UNCLEARED in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == UNCLEARED)
    assert finding.evidence["parameters"][0].startswith("optimizer group 0 tensor")
    assert not _problems(centres.run(fixed=True, steps=STEPS))


class Weighted(nn.Module):
    """Two losses weighted by learnable log-variances (uncertainty weighting)."""

    def __init__(self):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(2))

    def forward(self, a, b):
        w = torch.exp(-self.log_vars)
        return w[0] * a + w[1] * b + self.log_vars.sum()


def _weighted(clear):
    torch.manual_seed(0)
    model, criterion = mlp(), Weighted()
    optimizer = torch.optim.Adam(list(model.parameters()) + list(criterion.parameters()),
                                 lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in _digits():
            if clear == "model":
                model.zero_grad()
            elif clear == "optimizer":
                optimizer.zero_grad()
            else:
                model.zero_grad()
                criterion.zero_grad()
            out = model(xb)
            loss = criterion(F.cross_entropy(out, yb), F.mse_loss(out.mean(1), yb.float() / 9))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_learnable_loss_weight_never_cleared_is_named():
    assert UNCLEARED in _problems(_weighted("model"))


@pytest.mark.parametrize("clear", ["optimizer", "both"])
def test_loss_parameters_cleared_are_silent(clear):
    assert UNCLEARED not in _problems(_weighted(clear))


# --- LOSS_TERM_ZERO_WITHOUT_GRADIENT ----------------------------------------------------------

def test_the_report_of_a_consistency_term_on_the_teachers_logits_is_named_and_its_twin_is_silent():
    mon = mean_teacher.run(steps=STEPS)
    assert ZERO_TERM in _problems(mon)
    assert not _problems(mean_teacher.run(fixed=True, steps=STEPS))


def _two_forwards(zero_start, metric_forward, detached_twin=False):
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in _digits():
            optimizer.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            if zero_start:
                loss = torch.zeros(()) + loss          # an accumulator started at zero
            if metric_forward:
                accuracy = (model(xb).argmax(1) == yb).float().mean()   # no no_grad  # noqa
            if detached_twin:                          # a prediction against its own copy
                noisy = model(xb + 0.3 * torch.randn_like(xb))   # the forward meant to train
                same = out.detach()
                loss = loss + 5.0 * F.mse_loss(same.softmax(1), same.softmax(1))
                del noisy
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_term_comparing_a_detached_output_with_itself_is_named():
    assert ZERO_TERM in _problems(_two_forwards(False, False, detached_twin=True))


@pytest.mark.parametrize("zero_start,metric_forward", [(True, False), (False, True)])
def test_an_accumulator_or_a_metric_forward_alone_is_silent(zero_start, metric_forward):
    assert ZERO_TERM not in _problems(_two_forwards(zero_start, metric_forward))


def test_critic_losses_summed_from_zero_over_several_forwards_are_silent():
    assert ZERO_TERM not in _problems(critics.run(fixed=True, steps=STEPS))
