"""Real-bug batch 171: hand-written Adams whose bias correction breaks Adam's bound on its
step (each entry moves about lr or less). Corrections divided into the moment in place,
and a "one minus" taken twice, make the steps grow geometrically at a constant rate; the
second was named only by its symptoms as it came (DEAD_RELU, LOSS_DIVERGING). Both are
named ADAM_STEP_EXCEEDS_RATE now; torch's Adam family at a high rate, under a warm-up, with
several steps per watched step, and weights re-normalised by hand every step stay silent."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import adam_bias_correction_divided_into_moment_in_place as in_place  # noqa: E402,E501
from benchmarks.real_bugs import adam_bias_correction_one_minus_taken_twice as twice  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "ADAM_STEP_EXCEEDS_RATE"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


@pytest.mark.parametrize("case", [twice, in_place], ids=["one_minus_twice", "in_place"])
def test_broken_bias_corrections_are_named_and_their_twins_are_not(case):
    assert CODE in _codes(case.run())
    assert not _codes(case.run(fixed=True))


class GrowingAdam(torch.optim.Optimizer):
    """Adam whose moments are divided by beta ** t (the correction inverted): the step
    grows by 1 / beta1 a step, from lr."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                state = self.state[p]
                if not state:
                    state.update(t=0, m=torch.zeros_like(p), v=torch.zeros_like(p))
                state["t"] += 1
                t, m, v = state["t"], state["m"], state["v"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                m_hat = m / (1 - beta1) / beta1 ** t
                v_hat = v / (1 - beta2)
                p.add_(-group["lr"] * m_hat / (v_hat.sqrt() + group["eps"]))


def _train(make_optimizer, steps=120, per_watched_step=1, schedule=None, renormalise=False):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = make_optimizer(model.parameters())
    scheduler = None if schedule is None else torch.optim.lr_scheduler.LambdaLR(optimizer,
                                                                                 schedule)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            for _ in range(per_watched_step):
                loss = nn.functional.cross_entropy(model(xb), yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            if renormalise:
                with torch.no_grad():
                    model[0].weight.div_(model[0].weight.norm(dim=1, keepdim=True))
            if scheduler is not None:
                scheduler.step()
            mon.step(loss)
    return mon


def test_a_hand_written_adam_with_its_correction_inverted_is_named():
    mon = _train(lambda p: GrowingAdam(p, lr=1e-3), steps=80)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].severity == "error"
    assert found[0].evidence["step_over_rate"][0] > 10


@pytest.mark.parametrize("make", [
    lambda p: torch.optim.Adam(p, lr=1e-2),
    lambda p: torch.optim.AdamW(p, lr=3e-3, weight_decay=0.1),
    lambda p: torch.optim.NAdam(p, lr=2e-3),
    lambda p: torch.optim.RAdam(p, lr=3e-3),
    lambda p: torch.optim.Adamax(p, lr=2e-3),
    lambda p: torch.optim.Adam(p, lr=1e-3, betas=(0.0, 0.99)),
], ids=["adam", "adamw", "nadam", "radam", "adamax", "rmsprop_like"])
def test_torchs_adam_family_stays_within_its_rate(make):
    assert CODE not in _codes(_train(make))


def test_a_warm_up_from_zero_is_not_taken_for_growing_steps():
    mon = _train(lambda p: torch.optim.Adam(p, lr=3e-3), schedule=lambda s: min(1.0, (s + 1) / 60))
    assert CODE not in _codes(mon)


def test_several_optimizer_steps_per_watched_step_are_not_judged():
    mon = _train(lambda p: torch.optim.Adam(p, lr=1e-3), steps=60, per_watched_step=30)
    assert CODE not in _codes(mon)


def test_weights_renormalised_by_hand_every_step_are_not_taken_for_adam_steps():
    mon = _train(lambda p: torch.optim.Adam(p, lr=1e-3), renormalise=True)
    assert CODE not in _codes(mon)
