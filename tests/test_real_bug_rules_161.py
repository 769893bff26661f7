"""Real-bug batches 155 and 161: parameters outside the watched model that the loss trains
through but no optimizer holds - a feature-distillation converter built beside the student,
learned task weights kept in the loss module (FairMOT), an auxiliary loss's decoder held in a
plain list. Each gets a gradient every step and never moves: OPTIMIZER_MISSING_PARAMS names
them. Healthy look-alikes stay silent: the fixed twins, a distillation teacher run in eval
mode without no_grad (its gradient unused on purpose), a GAN whose discriminator the
generator's loss reaches (its own optimizer steps it), learned loss weights given to the
optimizer."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import auxiliary_decoder_kept_in_plain_list as aux  # noqa: E402
from benchmarks.real_bugs import \
    feature_distillation_converter_left_out_of_optimizer as converter  # noqa: E402
from benchmarks.real_bugs import uncertainty_weights_never_given_to_optimizer as weights  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


@pytest.mark.parametrize("case", [converter, weights, aux], ids=lambda c: c.__name__[23:])
def test_parts_outside_the_model_that_never_train_are_named(case):
    assert "OPTIMIZER_MISSING_PARAMS" in _codes(case.run())


@pytest.mark.parametrize("case", [converter, weights, aux], ids=lambda c: c.__name__[23:])
def test_their_twins_are_silent(case):
    assert "OPTIMIZER_MISSING_PARAMS" not in _codes(case.run(fixed=True))


def _student_and_teacher(extra_trained):
    """A student trained on labels plus a KL term against a teacher run in eval mode
    without no_grad (so the teacher's parameters get gradients nobody applies); with
    ``extra_trained``, a learned weight of the KL term, given to the optimizer."""
    torch.manual_seed(0)
    x, y = classification()
    teacher = mlp().eval()
    student = mlp()
    balance = nn.Parameter(torch.zeros(()))
    params = list(student.parameters()) + ([balance] if extra_trained else [])
    optimizer = torch.optim.Adam(params, lr=1e-3)
    with nd.watch(student, optimizer) as mon:
        for xb, yb in batches(x, y, 120):
            logits = student(xb)
            soft = teacher(xb).softmax(-1)               # no no_grad, no detach
            kl = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
            weight = torch.sigmoid(balance) if extra_trained else 0.5
            loss = nn.functional.cross_entropy(logits, yb) + weight * kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_teacher_in_eval_mode_without_no_grad_is_left_alone():
    assert "OPTIMIZER_MISSING_PARAMS" not in _codes(_student_and_teacher(False))


def test_learned_loss_weights_in_the_optimizer_are_left_alone():
    assert "OPTIMIZER_MISSING_PARAMS" not in _codes(_student_and_teacher(True))


def test_a_discriminator_with_its_own_optimizer_is_left_alone():
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
    critic = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-3)
    bce = nn.functional.binary_cross_entropy_with_logits
    with nd.watch(generator, opt_g) as mon:
        for _ in range(120):
            real = torch.randn(64, 2) * 0.5 + 2
            fake = generator(torch.randn(64, 8))
            d_loss = bce(critic(real), torch.ones(64, 1)) + \
                bce(critic(fake.detach()), torch.zeros(64, 1))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = bce(critic(fake), torch.ones(64, 1))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    assert "OPTIMIZER_MISSING_PARAMS" not in _codes(mon)
