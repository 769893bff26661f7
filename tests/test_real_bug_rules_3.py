"""Rules added for the third batch of reproduced public bug reports
(``benchmarks/real_bugs/``): each with the bug planted and its healthy twin."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

PROBLEMS = ("warning", "error")


def _digits_batches(steps, seed=0):
    generator = torch.Generator().manual_seed(seed)
    centres = torch.randn(4, 16, generator=generator) * 2
    for _ in range(steps):
        y = torch.randint(0, 4, (32,), generator=generator)
        yield centres[y] + torch.randn(32, 16, generator=generator), y


def _train(backpropagate, steps=60):
    """An ordinary loop whose backward and optimizer step run only when asked: the
    training step of a trainer that skips batches whose step returned no loss."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in _digits_batches(steps):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            if backpropagate:
                loss.backward()
                optimizer.step()
            mon.step(loss.detach())                  # logged either way
    return mon


def test_loss_never_backpropagated_is_no_gradient():
    found = {f.code: f for f in _train(backpropagate=False).findings()}
    assert "NO_GRADIENT" in found
    assert found["NO_GRADIENT"].severity == "error"
    assert "never backpropagated" in found["NO_GRADIENT"].message


def test_healthy_twin_that_backpropagates_stays_silent():
    problems = [f.code for f in _train(backpropagate=True).findings()
                if f.severity in PROBLEMS]
    assert problems == []


def test_frozen_model_without_parameters_to_train_is_not_called_unbackpropagated():
    """Nothing trainable: no parameter to receive a gradient, so nothing to name here."""
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 4)
    model.requires_grad_(False)
    with nd.watch(model) as mon:
        for xb, yb in _digits_batches(40):
            mon.step(torch.nn.functional.cross_entropy(model(xb), yb))
    messages = [f.message for f in mon.findings() if f.code == "NO_GRADIENT"]
    assert not any("never backpropagated" in m for m in messages)


def test_a_loop_stepping_only_between_records_is_not_called_unbackpropagated():
    """Backward and step on every 7th step only: none of the judged steps (0, 1, 2, 4, 8,
    16, 32, 64) sees a backward, but the weights change between them, so it trains."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(_digits_batches(70)):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            if step % 7 == 6:
                loss.backward()
                optimizer.step()
            mon.step(loss.detach())
    messages = [f.message for f in mon.findings() if f.code == "NO_GRADIENT"]
    assert not any("never backpropagated" in m for m in messages)
