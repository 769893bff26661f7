"""Real-bug batch 87 (adversarial training and input-gradient methods): an attack whose
``loss.backward()`` calls leave the weights' gradient in ``.grad`` under the training one
(GRADIENTS_ACCUMULATING, widened), and an attack object that restores the eval mode it saved
at construction (TRAINING_IN_EVAL_MODE). The fixed twins stay silent, and so do the healthy
look-alikes a careless rule would flag: an attack run in eval mode before a training forward
in train mode (the standard recipe: TRAINING_IN_EVAL_MODE must judge the training forward,
not the attack's), an attack taking the input's gradient with torch.autograd.grad followed
by two training backward passes summed on purpose, free adversarial training (one backward
per step feeds both the perturbation and the weights), and an input-gradient penalty built
with create_graph=True."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import attack_restores_model_to_eval_mode as restores  # noqa: E402
from benchmarks.real_bugs import input_gradient_penalty_without_create_graph as penalty  # noqa: E402
from benchmarks.real_bugs import pgd_attack_gradients_left_in_weight_grads as kept  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
EPS = 0.1


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _bn_mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(128, 10))


def _fgsm_backward(model, x, y):
    """FGSM whose input gradient comes from loss.backward() (which fills the weights' .grad
    too)."""
    x = x.clone().requires_grad_(True)
    nn.functional.cross_entropy(model(x), y).backward()
    return (x + EPS * x.grad.sign()).clamp(0, 1).detach()


def _fgsm_autograd(model, x, y):
    x = x.clone().requires_grad_(True)
    grad, = torch.autograd.grad(nn.functional.cross_entropy(model(x), y), x)
    return (x + EPS * grad.sign()).clamp(0, 1).detach()


def _adversarial_run(step, model=None, steps=150, lr=0.05):
    """``step(model, optimizer, x, y)`` does one training step and returns the loss."""
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = model or nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            mon.step(step(model, optimizer, xb, yb))
    return mon


# --- GRADIENTS_ACCUMULATING: the attack's backward passes left in .grad --------------------

def test_pgd_backward_passes_left_in_grad_are_named():
    found = [f for f in kept.run().findings() if f.code == "GRADIENTS_ACCUMULATING"]
    assert found and found[0].severity == "error"
    assert found[0].evidence["attack_passes"] == kept.ATTACK_STEPS
    assert found[0].evidence["passes"] == kept.ATTACK_STEPS + 1


def test_the_pgd_twin_that_zeroes_after_the_attack_is_silent():
    assert _problems(kept.run(fixed=True)) == set()


def test_one_step_fgsm_with_backward_and_a_clean_term_is_named():
    def step(model, optimizer, x, y):
        optimizer.zero_grad()                       # before the attack: the bug
        x_adv = _fgsm_backward(model, x, y)
        loss = 0.5 * (nn.functional.cross_entropy(model(x), y)
                      + nn.functional.cross_entropy(model(x_adv), y))
        loss.backward()
        optimizer.step()
        return loss
    assert "GRADIENTS_ACCUMULATING" in _problems(_adversarial_run(step))


def test_fgsm_zeroed_after_the_attack_is_silent():
    def step(model, optimizer, x, y):
        x_adv = _fgsm_backward(model, x, y)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x_adv), y)
        loss.backward()
        optimizer.step()
        return loss
    assert "GRADIENTS_ACCUMULATING" not in _problems(_adversarial_run(step))


def test_autograd_attack_and_two_summed_training_passes_are_silent():
    # the look-alike by counts: a forward on an input requiring grad and two backward passes
    # into .grad, both kept on purpose (clean and adversarial losses summed by backward)
    def step(model, optimizer, x, y):
        optimizer.zero_grad()
        x_adv = _fgsm_autograd(model, x, y)
        clean = nn.functional.cross_entropy(model(x), y)
        clean.backward()
        adv = nn.functional.cross_entropy(model(x_adv), y)
        adv.backward()
        optimizer.step()
        return clean + adv
    assert "GRADIENTS_ACCUMULATING" not in _problems(_adversarial_run(step))


def test_free_adversarial_training_is_silent():
    # one backward per step feeds both the perturbation and the weights (Shafahi et al.)
    delta = {}

    def step(model, optimizer, x, y):
        d = delta.get("d")
        d = torch.zeros_like(x) if d is None or d.shape != x.shape else d
        d.requires_grad_(True)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model((x + d).clamp(0, 1)), y)
        loss.backward()
        optimizer.step()
        delta["d"] = (d + EPS * d.grad.sign()).clamp(-EPS, EPS).detach()
        return loss
    assert _problems(_adversarial_run(step, lr=0.02)) == set()


def test_input_gradient_penalty_with_create_graph_is_silent():
    mon = penalty.run(fixed=True)
    assert _problems(mon) == set()
    # one backward pass into .grad per step (autograd.grad's never reaches it): nothing kept
    assert all(passes == 1 for _, _, passes in mon.run.observed.input_gradient_passes)


# --- TRAINING_IN_EVAL_MODE: judged on the training forward, not the attack's --------------

def test_attack_restoring_a_saved_eval_mode_is_named():
    assert "TRAINING_IN_EVAL_MODE" in _problems(restores.run(steps=150))


def test_the_attack_that_reads_the_mode_when_it_runs_is_silent():
    assert _problems(restores.run(fixed=True, steps=150)) == set()


def test_eval_mode_attack_before_a_train_mode_forward_is_silent():
    def step(model, optimizer, x, y):
        model.eval()
        x_adv = _fgsm_autograd(model, x, y)
        model.train()
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x_adv), y)
        loss.backward()
        optimizer.step()
        return loss
    assert "TRAINING_IN_EVAL_MODE" not in _problems(_adversarial_run(step, _bn_mlp()))


def test_eval_mode_attack_and_an_eval_mode_training_forward_are_named():
    # the same loop without the model.train(): every forward with a graph runs in eval mode
    def step(model, optimizer, x, y):
        model.eval()
        x_adv = _fgsm_autograd(model, x, y)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x_adv), y)
        loss.backward()
        optimizer.step()
        return loss
    assert "TRAINING_IN_EVAL_MODE" in _problems(_adversarial_run(step, _bn_mlp()))


def test_plain_training_in_eval_mode_is_still_named():
    from nndebug import zoo
    assert "TRAINING_IN_EVAL_MODE" in _problems(zoo.get("torch/eval-mode-dropout").run())


# --- the observation --------------------------------------------------------------------

def test_rows_saved_and_loaded_read_back(tmp_path):
    import nndebug as nd
    mon = kept.run(steps=12)
    rows = [list(r) for r in mon.run.observed.input_gradient_passes]
    assert rows and all(attack == kept.ATTACK_STEPS for _, attack, _ in rows)
    path = tmp_path / "run.nddebug"
    mon.save(path)
    assert [list(r) for r in nd.load_run(path).run.observed.input_gradient_passes] == rows


def test_a_plain_run_notes_nothing():
    def step(model, optimizer, x, y):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    mon = _adversarial_run(step, steps=30)
    assert mon.run.observed.input_gradient_passes == []


def test_a_gan_generator_pass_through_the_watched_discriminator_is_silent():
    # the generator's loss flows back through the discriminator on an input (the fakes)
    # that requires grad, after the discriminator's own step: .grad holds both at step()
    # time, but the discriminator's update used its own gradient only
    import nndebug as nd
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
    disc = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(gen.parameters(), 1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(disc.parameters(), 1e-3, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    with nd.watch(disc, opt_d) as mon:
        for _ in range(150):
            real = torch.randn(64, 2) * 0.3 + 1.0
            fake = gen(torch.randn(64, 4))
            opt_d.zero_grad()
            d_loss = bce(disc(real), torch.ones(64, 1)) + \
                bce(disc(fake.detach()), torch.zeros(64, 1))
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            bce(disc(fake), torch.ones(64, 1)).backward()
            opt_g.step()
            mon.step(d_loss)
    assert "GRADIENTS_ACCUMULATING" not in _problems(mon)
    assert all(attack == 0 for _, attack, _ in mon.run.observed.input_gradient_passes)
