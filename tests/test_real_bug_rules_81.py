"""Real-bug batch 81 (graph breaks: places where the autograd graph is cut silently). The
four planted cases the existing rules name (a filterbank's constraint under torch.no_grad, an
MoE balance loss rebuilt with torch.tensor, a learnable threshold through torch.sign,
outputs.data with the loss rewrapped by Variable) and variants of them written other ways
(a NumPy round trip, torch.tensor re-wrapping an activation, a comparison gate, float() of a
parameter, writes into a torch.zeros buffer under no_grad, an auxiliary term made of
.item(), half the forward under no_grad); their fixed twins silent.

REQUIRES_GRAD_TURNED_OFF (new): parameters trainable at watch start whose requires_grad a
helper turned off mid-run and never turned back on - a warning when learning is poor, an
info note otherwise (a planned freeze part-way through looks the same). Its healthy
look-alikes stay silent: a backbone frozen before training (a linear probe), a GAN's
discriminator toggled off and on inside every step, an evaluation helper that restores the
flags, a freeze in the last few steps, a branch left unused but still trainable.
set_trainable_cannot_unfreeze is a known miss (tests/test_real_bugs.py)."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from benchmarks.real_bugs import filter_constraint_under_no_grad as filterbank  # noqa: E402
from benchmarks.real_bugs import finetune_output_returned_as_data as output_data  # noqa: E402
from benchmarks.real_bugs import learnable_threshold_through_sign as sign_gate  # noqa: E402
from benchmarks.real_bugs import moe_balance_loss_rebuilt_with_torch_tensor as moe  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "REQUIRES_GRAD_TURNED_OFF"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _ours(mon, severities=("info", "warning", "error")):
    return [f for f in mon.findings() if f.code == CODE and f.severity in severities]


def _train(model, steps=150, lr=1e-3, loss_fn=None, before_step=None, params=None):
    """Digits classification under watch; ``before_step(i, model)`` runs before step i."""
    import nndebug as nd
    torch.manual_seed(1)
    x, y = classification()
    optimizer = torch.optim.Adam(model.parameters() if params is None else params, lr=lr)
    with nd.watch(model, optimizer) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps, seed=3)):
            if before_step is not None:
                before_step(i, model)
            optimizer.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb) if loss_fn is None else loss_fn(out, yb, model)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class Lambda(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, h):
        return self.f(h)


def _mlp(*middle):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), *middle, nn.Linear(64, 10))


# --- the planted cases and their twins ------------------------------------------------------

@pytest.mark.parametrize("case", [filterbank, output_data, sign_gate, moe],
                         ids=lambda case: case.__name__.rsplit(".", 1)[-1])
def test_planted_case_named_and_twin_silent(case):
    assert _problems(case.run()) & set(case.EXPECTED)
    assert not _problems(case.run(fixed=True))


# --- the same cuts written other ways -------------------------------------------------------

def test_a_numpy_round_trip_inside_forward_is_named():
    model = _mlp(Lambda(lambda h: torch.from_numpy(np.tanh(h.detach().numpy()))))
    assert "NO_GRADIENT" in _problems(_train(model))


def test_an_activation_rewrapped_by_torch_tensor_is_named():
    model = _mlp(Lambda(lambda h: torch.tensor(h)), nn.Linear(64, 64), nn.ReLU())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # torch's "To copy construct from a tensor"
        mon = _train(model)
    assert "NO_GRADIENT" in _problems(mon)


class ComparisonGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.threshold = nn.Parameter(torch.full((64,), 0.3))

    def forward(self, d):
        return d * (d > self.threshold).float()      # no gradient reaches the threshold


def test_a_threshold_through_a_comparison_is_named():
    found = [f for f in _train(_mlp(ComparisonGate()), lr=1e-2).findings()
             if f.code == "NO_GRADIENT" and f.severity in PROBLEMS]
    assert found and "threshold" in " ".join(found[0].evidence["parameters"])


class FloatScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
        self.scale = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return self.body(x) * float(self.scale)      # a Python number: scale never learns


def test_float_of_a_parameter_inside_forward_is_named():
    torch.manual_seed(0)
    assert "NO_GRADIENT" in _problems(_train(FloatScale()))


class ZerosBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        out = torch.zeros(x.shape[0], 10)
        with torch.no_grad():
            out[:] = self.body(x)                    # written into the buffer without a graph
        return out


def _forced(out, yb, model):
    loss = F.cross_entropy(out, yb)
    return loss.requires_grad_(True) if not loss.requires_grad else loss


def test_a_zeros_buffer_filled_under_no_grad_with_the_loss_forced_is_named():
    torch.manual_seed(0)
    assert "NO_GRADIENT" in _problems(_train(ZerosBuffer(), loss_fn=_forced))


def test_an_auxiliary_term_made_of_item_is_named():
    def loss_fn(out, yb, model):
        penalty = sum(p.pow(2).sum().item() for p in model.parameters()) * 1e-3
        return F.cross_entropy(out, yb) + penalty
    assert "LOSS_TERM_WITHOUT_GRADIENT" in _problems(_train(_mlp(), loss_fn=loss_fn))


class HalfUnderNoGrad(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.head = nn.Linear(64, 64), nn.Linear(64, 64), nn.Linear(128, 10)

    def forward(self, x):
        with torch.no_grad():
            ha = torch.relu(self.a(x))               # one branch computed without a graph
        return self.head(torch.cat([ha, torch.relu(self.b(x))], 1))


def test_one_branch_under_no_grad_is_named():
    torch.manual_seed(0)
    found = [f for f in _train(HalfUnderNoGrad()).findings()
             if f.code == "NO_GRADIENT" and f.severity in PROBLEMS]
    assert found and set(found[0].evidence["parameters"]) == {"a.weight", "a.bias"}


# --- REQUIRES_GRAD_TURNED_OFF ---------------------------------------------------------------

def _deep():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def _turn_off_at(step, restore_at=None):
    def before_step(i, model):
        if i == step:            # an evaluate() that freezes "to save memory"
            for p in model[:4].parameters():
                p.requires_grad = False
        if i == restore_at:
            for p in model[:4].parameters():
                p.requires_grad = True
    return before_step


def test_a_body_turned_off_early_and_left_off_is_a_warning():
    found = _ours(_train(_deep(), steps=300, before_step=_turn_off_at(10)), PROBLEMS)
    assert found
    assert set(found[0].evidence["parameters"]) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert found[0].step <= 10


def test_a_body_turned_off_later_while_learning_goes_on_is_an_info_note():
    mon = _train(_deep(), steps=300, before_step=_turn_off_at(40))
    assert _ours(mon, ("info",)) and not _ours(mon, PROBLEMS)


def test_flags_restored_by_the_helper_are_not_named():
    assert not _ours(_train(_deep(), steps=300, before_step=_turn_off_at(40, restore_at=41)))


def test_a_freeze_in_the_last_steps_is_not_named():
    assert not _ours(_train(_deep(), steps=300, before_step=_turn_off_at(290)))


def test_a_backbone_frozen_before_training_is_not_named():
    model = _deep()
    for p in model[:4].parameters():
        p.requires_grad = False
    mon = _train(model, params=[p for p in model.parameters() if p.requires_grad])
    assert not _ours(mon)


class TwoNets(nn.Module):
    """A generator and a discriminator in one module, as a GAN wrapper holds them."""

    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64))
        self.discriminator = nn.Sequential(nn.Linear(64, 32), nn.LeakyReLU(0.2),
                                           nn.Linear(32, 1))


def test_a_discriminator_toggled_off_and_on_inside_every_step_is_not_named():
    import nndebug as nd
    torch.manual_seed(0)
    x, _ = classification()
    nets = TwoNets()
    opt_d = torch.optim.Adam(nets.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(nets.generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_label, fake_label = torch.ones(64, 1), torch.zeros(64, 1)
    with nd.watch(nets, opt_d) as mon:
        for step in range(150):
            real = x[torch.randint(0, len(x), (64,))]
            fake = nets.generator(torch.randn(64, 8))
            for p in nets.discriminator.parameters():
                p.requires_grad = True               # set_requires_grad(D, True)
            opt_d.zero_grad()
            loss_d = (F.binary_cross_entropy_with_logits(nets.discriminator(real), real_label) +
                      F.binary_cross_entropy_with_logits(nets.discriminator(fake.detach()),
                                                         fake_label))
            loss_d.backward()
            opt_d.step()
            for p in nets.discriminator.parameters():
                p.requires_grad = False              # set_requires_grad(D, False): G's turn
            opt_g.zero_grad()
            F.binary_cross_entropy_with_logits(nets.discriminator(fake), real_label).backward()
            opt_g.step()
            mon.step(loss_d)
    assert not _ours(mon)


class UnusedBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.aux = nn.Linear(64, 10)
        self.head = nn.Linear(64, 10)
        self.use_aux = True

    def forward(self, x):
        h = self.body(x)
        return self.head(h) + (self.aux(h) if self.use_aux else 0)


def test_a_branch_dropped_but_still_trainable_is_not_named():
    def before_step(i, model):
        model.use_aux = i < 40
    torch.manual_seed(0)
    assert not _ours(_train(UnusedBranch(), steps=300, before_step=before_step))


# --- the observer ---------------------------------------------------------------------------

def test_turned_off_rows_survive_save_and_load(tmp_path):
    import nndebug as nd
    mon = _train(_deep(), steps=60, before_step=_turn_off_at(5))
    mon.findings()
    rows = mon.run.observed.turned_off_parameters
    assert [r[0] for r in rows] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    path = str(tmp_path / "run.nndebug")
    mon.save(path)
    loaded = nd.load_run(path).run.observed.turned_off_parameters
    assert [list(map(str, r)) for r in loaded] == [list(map(str, r)) for r in rows]
