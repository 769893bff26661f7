"""The quick dependency screen inside nd.watch (probes/dependencies/screen.py): it clears healthy
float models with two samples, sends every planted dependence on to the full check (which then
names it), and leaves the user's model exactly as it was although it runs that model in place."""
import pytest

import nndebug as nd
from nndebug.adapters import adapt
from nndebug.adapters.base import nndebug_hook
from nndebug.probes.dependencies.screen import screen_is_clean

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class Residual(nn.Module):
    """A healthy non-Sequential model (the full check would find nothing)."""

    def __init__(self, mix=None):
        super().__init__()
        self.mix = mix
        self.inp, self.norm = nn.Linear(6, 16), nn.LayerNorm(16)
        self.block = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16))
        self.out = nn.Linear(16, 3)
        self.register_buffer("table", torch.randn(64, 16))

    def forward(self, x):
        h = self.inp(x)
        h = h + self.block(self.norm(h))
        if self.mix == "mean over the batch":
            h = h - h.mean(0)
        elif self.mix == "one pair":
            h = torch.cat([h[:1] + 1e-3 * h[1:2], h[1:]])
        elif self.mix == "cumulative over the batch":
            h = torch.cumsum(h, 0)
        elif self.mix == "table by place in batch":
            h = h + self.table[:x.size(0)]
        return self.out(h)


class SequenceFirstLSTM(nn.Module):
    """An LSTM left at batch_first=False fed (batch, time, features): it runs along the batch."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.lstm(x)[0][:, -1])


def data(rows=16, features=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(rows, features, generator=g), torch.randint(0, 3, (rows,), generator=g)


def test_a_healthy_float_model_is_cleared_by_the_screen():
    torch.manual_seed(0)
    x, y = data()
    model = Residual()
    assert screen_is_clean(adapt(model), x, y, False)
    assert nd.check_dependencies(model, x, y).passed       # what the full check says too


@pytest.mark.parametrize("mix", ["mean over the batch", "one pair", "cumulative over the batch",
                                 "table by place in batch"])
def test_every_planted_dependence_goes_on_to_the_full_check_which_names_it(mix):
    torch.manual_seed(0)
    x, y = data()
    model = Residual(mix)
    assert not screen_is_clean(adapt(model), x, y, False)
    found = [f.code for f in nd.check_dependencies(model, x, y).findings if f.severity != "info"]
    assert found == ["BATCH_MIXING"]


def test_a_sequence_first_lstm_fed_batch_first_is_not_cleared():
    torch.manual_seed(0)
    x = torch.randn(8, 5, 4)
    assert not screen_is_clean(adapt(SequenceFirstLSTM()), x, torch.randint(0, 3, (8,)), False)


def test_the_screen_stays_out_of_what_it_cannot_judge():
    torch.manual_seed(0)
    model = Residual()
    x, y = data()
    assert not screen_is_clean(adapt(model), x, y, True)                 # positional tensors
    assert not screen_is_clean(adapt(model), x, y.reshape(4, 4), False)   # sequence targets
    assert screen_is_clean(adapt(model), x, y.reshape(16, 1).float(), False)  # (B, 1) is one
    assert not screen_is_clean(adapt(model), x[:1], y[:1], False)         # one sample
    assert not screen_is_clean(adapt(model.half()), x.half(), y, False)   # half precision
    ids = torch.randint(0, 10, (4, 6))
    embed = nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(24, 3))
    assert not screen_is_clean(adapt(embed), ids, None, False)           # token ids


class Stateful(nn.Module):
    """A forward pass that changes its module: a counter, a kept tensor, a buffer in place,
    a random draw; and a train() that freezes a layer."""

    def __init__(self):
        super().__init__()
        self.body, self.drop = nn.Linear(6, 8), nn.Dropout(0.5)
        self.head = nn.Linear(8, 3)
        self.register_buffer("seen", torch.zeros(()))
        self.calls, self.last, self.shapes = 0, None, []

    def train(self, mode=True):
        super().train(mode)
        self.head.weight.requires_grad_(mode)
        return self

    def forward(self, x):
        self.calls += 1
        self.seen += 1
        self.shapes.append(tuple(x.shape))
        h = torch.relu(self.body(x))
        self.last = h
        return self.head(self.drop(h) + 0.1 * torch.rand_like(h) * 0)


def test_the_screen_runs_the_model_in_place_and_puts_everything_back():
    torch.manual_seed(0)
    model = Stateful().train()
    model.drop.eval()                                       # mixed modes stay mixed
    x, y = data()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    last, calls = model.last, model.calls
    seen_hook = []
    model.register_forward_hook(nndebug_hook(lambda *args: seen_hook.append(1)))
    user_hook = model.body.register_forward_hook(lambda *args: None)
    order = list(model.body._forward_hooks)
    rng = torch.get_rng_state()
    adapter = adapt(model)
    state = adapter.capture_state()

    assert screen_is_clean(adapter, x, y, False)

    assert adapter.state_differences(state) == []          # values, grads, modes, hooks, RNG
    assert torch.equal(torch.get_rng_state(), rng)
    assert model.calls == calls and model.last is last and float(model.seen) == 1.0
    assert model.shapes == [(16, 6)]                        # a list a forward appends to
    assert model.training and not model.drop.training and model.head.weight.requires_grad
    assert all(torch.equal(p.grad, grads[n]) for n, p in model.named_parameters())
    assert seen_hook == []                                  # nndebug's hooks saw nothing
    assert list(model.body._forward_hooks) == order
    user_hook.remove()


def train(model, x, y, watched, steps=6):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = nd.watch(model, opt, overhead=None) if watched else None
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if mon:
            mon.step(loss)
    return mon, [p.detach().clone() for p in model.parameters()]


def test_watch_screens_a_healthy_model_and_trains_it_bit_for_bit_as_unwatched():
    x, y = data()
    torch.manual_seed(0)
    mon, watched = train(Residual(), x, y, True)
    torch.manual_seed(0)
    _, plain = train(Residual(), x, y, False)
    assert all(torch.equal(a, b) for a, b in zip(watched, plain))
    probe = next(p for p in mon.sinks if type(p).__name__ == "DependencyWatch")
    assert probe.ran == "screen"
    assert not [f for f in mon.findings() if f.code == "BATCH_MIXING"], mon.report()


def test_watch_sends_a_mixing_model_to_the_full_check_and_names_it():
    x, y = data()
    torch.manual_seed(0)
    mon, _ = train(Residual("cumulative over the batch"), x, y, True)
    probe = next(p for p in mon.sinks if type(p).__name__ == "DependencyWatch")
    assert probe.ran == "full check"
    assert [f.severity for f in mon.findings() if f.code == "BATCH_MIXING"] == ["error"], \
        mon.report()


def test_the_screen_is_exact_for_float64_models_too():
    torch.manual_seed(0)
    x, y = data()
    model = Residual().double()
    assert screen_is_clean(adapt(model), x.double(), y, False)
    assert not screen_is_clean(adapt(Residual("one pair").double()), x.double(), y, False)


def test_the_screen_imports_nothing_heavy():
    """autograd.grad(grad_outputs=...) imports sympy (tens of MiB, a second of CPU): the
    screen, which runs in every watched run, must not pull it in."""
    import subprocess
    import sys
    code = ("import sys, torch, nndebug as nd\n"
            "from nndebug.probes.dependencies.screen import screen_is_clean\n"
            "m = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))\n"
            "assert screen_is_clean(nd.adapt(m), torch.randn(8, 4), None, False)\n"
            "print('sympy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
