"""The optimizer's settings and the dropout rates, read once at watch start
(``nndebug/monitor/settings.py``), and the two rules that judge them
(``nndebug/rules/settings.py``): COUPLED_WEIGHT_DECAY_TOO_LARGE and DROPOUT_RATE_TOO_HIGH.

Each rule is tested on a planted run (the reported bug: Adam with a TensorFlow-sized decay,
Dropout(keep_prob)) and on healthy twins that must not get a warning, in torch and in
minigrad; the observation on both frameworks, saved and restored."""
import warnings

import numpy as np
import pytest

import nndebug as nd
from nndebug.observed import DropoutSetting, Observed, OptimizerSetting
from nndebug.rules.settings import COUPLED_DECAY_LIMIT, DROPOUT_LIMIT, coupled_decays
from nndebug.runfile import _encode_observed, decode_observed

torch = pytest.importorskip("torch")

from benchmarks.real_bugs._common import classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


class Framework:
    """The digits MLP (64 -> 64 -> [dropout] -> 10), its optimizers and its data, in torch
    or in minigrad."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            self.nn, self.optim, self.tensor = torch.nn, torch.optim, torch.tensor
            torch.manual_seed(0)
        else:
            import minigrad as mg
            import minigrad.nn as mnn
            mg.manual_seed(0)
            self.nn, self.optim, self.tensor = mnn, mg.optim, mg.tensor

    def model(self, dropout=None):
        nn = self.nn
        middle = [] if dropout is None else [nn.Dropout(dropout)]
        return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), *middle, nn.Linear(64, 10))


def train(framework, steps, optimizer=("Adam", {}), dropout=None, lr=1e-3, eval_mode=False):
    """The digits MLP trained for ``steps`` shuffled batches of 64 under nd.watch at its
    defaults; the closed monitor."""
    fw = Framework(framework)
    model = fw.model(dropout)
    kind, options = optimizer
    opt = getattr(fw.optim, kind)(model.parameters(), lr=lr, **options)
    x, y = classification()
    x, y = fw.tensor(x.numpy()), fw.tensor(y.numpy())
    loss_fn = fw.nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    if eval_mode:
        model.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, opt) as mon:
            for _ in range(steps):
                rows = rng.choice(len(x), 64, replace=False).tolist()
                opt.zero_grad()
                loss = loss_fn(model(x[rows]), y[rows])
                loss.backward()
                opt.step()
                mon.step(loss)
    return mon


def finding(mon, code):
    return next((f for f in mon.findings() if f.code == code), None)


def problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- what is observed ----------------------------------------------------------------------
def test_torch_optimizer_groups_and_dropout_layers_are_read_once():
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.3), nn.Dropout2d(0.2),
                          nn.AlphaDropout(0.1), nn.Linear(4, 2))
    optimizer = torch.optim.Adam([{"params": model[0].parameters(), "weight_decay": 0.05},
                                  {"params": model[4].parameters(), "lr": 1e-2}],
                                 lr=1e-3, betas=(0.8, 0.99), eps=1e-6)
    mon = nd.watch(model, optimizer)
    optimizer.param_groups[0]["lr"] = 0.5        # changed after the start: not read again
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # Dropout2d on a 2-D input: deprecated
        loss = model(torch.randn(3, 4)).sum()
    loss.backward()
    optimizer.step()
    mon.step(loss)
    mon.close()
    observed = mon.run.observed
    assert observed.optimizer_settings == [
        OptimizerSetting(group=0, type="Adam", lr=1e-3, weight_decay=0.05, decoupled=False,
                         eps=1e-6, momentum=None, betas=(0.8, 0.99), parameters=2,
                         built_with_lr=1e-3, held_state=False),
        OptimizerSetting(group=1, type="Adam", lr=1e-2, weight_decay=0.0, decoupled=False,
                         eps=1e-6, momentum=None, betas=(0.8, 0.99), parameters=2,
                         built_with_lr=1e-3, held_state=False)]
    assert observed.dropout_settings == [DropoutSetting("1", "Dropout", 0.3),
                                         DropoutSetting("2", "Dropout2d", 0.2),
                                         DropoutSetting("3", "AlphaDropout", 0.1)]


@pytest.mark.parametrize("kind, options, decoupled, momentum", [
    ("AdamW", {}, True, None), ("Adam", {"weight_decay": 0.1}, False, None),
    ("SGD", {"momentum": 0.9}, False, 0.9)])
def test_minigrad_optimizers_are_read(kind, options, decoupled, momentum):
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    model = mnn.Sequential(mnn.Linear(4, 4), mnn.Dropout(0.9), mnn.Linear(4, 2))
    mon = nd.watch(model, getattr(moptim, kind)(model.parameters(), lr=1e-3, **options))
    mon.close()
    (setting,) = mon.run.observed.optimizer_settings
    assert (setting.type, setting.decoupled, setting.momentum) == (kind, decoupled, momentum)
    assert setting.weight_decay == options.get("weight_decay", 1e-2 if kind == "AdamW" else 0)
    assert mon.run.observed.dropout_settings == [DropoutSetting("1", "Dropout", 0.9)]


def test_torch_adam_with_decoupled_weight_decay_counts_as_decoupled():
    model = torch.nn.Linear(4, 2)
    for optimizer in (torch.optim.AdamW(model.parameters(), weight_decay=0.05),
                      torch.optim.Adam(model.parameters(), weight_decay=0.05,
                                       decoupled_weight_decay=True)):
        mon = nd.watch(model, optimizer)
        mon.close()
        assert [s.decoupled for s in mon.run.observed.optimizer_settings] == [True]


def test_settings_survive_a_saved_run_and_a_state_dict(tmp_path):
    mon = train("torch", 5, ("Adam", {"weight_decay": 0.05}), dropout=0.9)
    observed = mon.run.observed
    assert observed.optimizer_settings and observed.dropout_settings
    back = decode_observed(_encode_observed(observed))
    assert back.optimizer_settings == observed.optimizer_settings
    assert back.dropout_settings == observed.dropout_settings
    mon.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(tmp_path / "run.nndebug").run.observed
    assert loaded.optimizer_settings == observed.optimizer_settings
    assert loaded.dropout_settings == observed.dropout_settings
    state = mon.state_dict()
    fw = Framework("torch")
    model = fw.model(0.9)
    again = nd.watch(model, torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.05))
    again.load_state_dict(state)
    again.close()
    assert again.run.observed.optimizer_settings == observed.optimizer_settings
    assert again.run.observed.dropout_settings == observed.dropout_settings


# --- COUPLED_WEIGHT_DECAY_TOO_LARGE -------------------------------------------------------
def test_only_coupled_adam_family_decays_from_the_limit_count():
    def group(kind, decay, decoupled=False):
        return OptimizerSetting(group=0, type=kind, weight_decay=decay, decoupled=decoupled)
    settings = [group("Adam", COUPLED_DECAY_LIMIT), group("NAdam", 0.05),
                group("Adam", 5e-4), group("AdamW", 0.05, decoupled=True),
                group("Adam", 0.05, decoupled=True), group("SGD", 0.05), group("Adam", None)]
    assert [s.type for s in coupled_decays(settings)] == ["Adam", "NAdam"]


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_adam_with_a_tensorflow_sized_decay_is_named(framework):
    mon = train(framework, 300, ("Adam", {"weight_decay": 0.05}))
    found = finding(mon, "COUPLED_WEIGHT_DECAY_TOO_LARGE")
    assert found is not None and found.severity == "warning"
    assert found.evidence["weight_decay"] == 0.05 and found.evidence["shrunk_weights"]
    assert "AdamW" in found.fix


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("optimizer", [("Adam", {"weight_decay": 1e-4}),
                                       ("AdamW", {"weight_decay": 0.05})])
def test_small_or_decoupled_decay_is_silent(framework, optimizer):
    mon = train(framework, 300, optimizer)
    assert finding(mon, "COUPLED_WEIGHT_DECAY_TOO_LARGE") is None
    assert problems(mon) == set()


# --- DROPOUT_RATE_TOO_HIGH ----------------------------------------------------------------
@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_keep_probability_as_the_dropout_rate_is_named(framework):
    mon = train(framework, 150, dropout=0.9)
    found = finding(mon, "DROPOUT_RATE_TOO_HIGH")
    assert found is not None and found.severity == "warning"
    assert found.where == "2" and found.evidence["layers"] == {"2": 0.9}
    assert "p=0.1" in found.fix


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_usual_dropout_is_silent(framework):
    mon = train(framework, 150, dropout=0.5)
    assert finding(mon, "DROPOUT_RATE_TOO_HIGH") is None
    assert problems(mon) == set()


def test_a_high_rate_that_still_learns_is_only_a_note():
    mon = train("torch", 300, dropout=DROPOUT_LIMIT, lr=1e-2)
    found = finding(mon, "DROPOUT_RATE_TOO_HIGH")
    assert found is not None and found.severity == "info"
    assert problems(mon) == set()


def test_a_high_rate_in_eval_mode_drops_nothing_and_is_silent():
    mon = train("torch", 150, dropout=0.9, eval_mode=True)
    assert finding(mon, "DROPOUT_RATE_TOO_HIGH") is None


def test_no_settings_no_findings():
    from nndebug.rules import diagnose
    run = train("torch", 5).run
    run.observed = Observed()
    assert not {f.code for f in diagnose(run)} & {"DROPOUT_RATE_TOO_HIGH",
                                                  "COUPLED_WEIGHT_DECAY_TOO_LARGE"}
