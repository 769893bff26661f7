"""The rules added for the public bug reports of benchmarks/real_bugs/ (issue #10):
NLL_ON_PROBABILITIES (NLLLoss, and KLDivLoss given probabilities), TARGETS_OUT_OF_RANGE,
NO_GRADIENT for a gradient that is exactly zero, BATCHNORM_MOMENTUM_INVERTED,
OPTIMIZER_MISSING_PARAMS for layers unfrozen after the optimizer was built, and
NO_OPTIMIZER_STEP. Each check is tested alone on plain loss calls, then on a planted training run and its
healthy twin (the twin must not get the code)."""
import math
import warnings

import numpy as np

import pytest

from nndebug.observed import LossCall
from nndebug.rules.loss_side import not_log_probabilities, targets_outside_unit_interval

torch = pytest.importorskip("torch")
nn = torch.nn

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def call(loss, low, high, target_low=0.0, target_high=1.0, step=0):
    return LossCall(step=step, loss=loss, output_shape=(8, 3), target_shape=(8,),
                    output_min=low, output_max=high, target_min=target_low,
                    target_max=target_high)


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def train(model, loss_fn, x, y, steps=40, lr=1e-2):
    """A plain loop under nd.watch at its defaults; the closed monitor."""
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step in range(steps):
                rows = torch.arange(step * 16, step * 16 + 16) % len(x)
                optimizer.zero_grad()
                loss = loss_fn(model(x[rows]), y[rows])
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


def blobs(classes=3, n=320, seed=0):
    """Separable Gaussian blobs: x (n, 8), y class ids."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, classes, (n,), generator=g)
    centres = torch.randn(classes, 8, generator=g) * 3
    return centres[y] + torch.randn(n, 8, generator=g), y


# --- the plain checks -------------------------------------------------------------------------
def test_log_probabilities_are_never_positive():
    assert not_log_probabilities([call("NLLLoss", -5.0, 0.0), call("NLLLoss", -3.0, -0.1)]) \
        is False
    assert not_log_probabilities([call("NLLLoss", 0.01, 0.9), call("NLLLoss", 0.0, 0.95)])
    assert not_log_probabilities([call("NLLLoss", -2.0, 3.0), call("NLLLoss", -1.0, 2.5)])
    assert not_log_probabilities([call("NLLLoss", 0.1, 0.9)]) is None      # too few calls
    assert not_log_probabilities([call("NLLLoss", math.nan, math.nan)] * 3) is None


def test_probability_targets_stay_in_the_unit_interval():
    inside = [call("BCEWithLogitsLoss", -2, 2, 0.0, 1.0), call("BCELoss", 0.1, 0.9, 0.2, 0.7)]
    assert targets_outside_unit_interval(inside) == []
    outside = call("BCEWithLogitsLoss", -2, 2, -1.0, 1.0)
    assert targets_outside_unit_interval(inside + [outside]) == [outside]
    assert targets_outside_unit_interval([call("BCELoss", 0, 1, 0.0, 2.0)])
    assert targets_outside_unit_interval([call("BCELoss", 0, 1, math.nan, math.nan)]) == []


# --- planted runs and their twins -------------------------------------------------------------
@pytest.mark.parametrize("last", ["softmax", "logits"])
def test_nll_loss_on_probabilities_or_logits_is_named(last):
    x, y = blobs()
    head = [nn.Softmax(dim=1)] if last == "softmax" else []
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3), *head)
    found = codes(train(model, nn.NLLLoss(), x, y))
    assert "NLL_ON_PROBABILITIES" in found


def test_nll_loss_on_log_softmax_is_silent():
    x, y = blobs()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3), nn.LogSoftmax(dim=1))
    mon = train(model, nn.NLLLoss(), x, y)
    assert "NLL_ON_PROBABILITIES" not in {f.code for f in mon.findings()}
    assert codes(mon) == set()


def binary_run(targets_from):
    x, y = blobs(classes=2)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    loss = nn.BCEWithLogitsLoss()
    return train(model, lambda out, t: loss(out.squeeze(1), t), x, targets_from(y.float()))


def test_bce_targets_in_minus_one_to_one_are_named():
    found = codes(binary_run(lambda y: 2 * y - 1))
    assert "TARGETS_OUT_OF_RANGE" in found


def test_bce_targets_in_zero_one_are_silent():
    mon = binary_run(lambda y: y)
    assert "TARGETS_OUT_OF_RANGE" not in {f.code for f in mon.findings()}
    assert codes(mon) == set()


def dropout_run(p):
    x, y = blobs()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(p), nn.Linear(16, 3))
    return train(model, nn.CrossEntropyLoss(), x, y)


def test_dropout_that_drops_everything_leaves_no_gradient():
    mon = dropout_run(1.0)
    found = [f for f in mon.findings() if f.code == "NO_GRADIENT"]
    assert found and found[0].evidence.get("exactly_zero")
    assert "0" in found[0].where


def test_ordinary_dropout_keeps_its_gradients():
    mon = dropout_run(0.5)
    assert "NO_GRADIENT" not in {f.code for f in mon.findings()}
    assert codes(mon) == set()


# --- one batch on every step (DATA_ORDER_REPEATS, info) ----------------------------------------
def fingerprint_context(fingerprints):
    import types
    return types.SimpleNamespace(run=types.SimpleNamespace(fingerprints=fingerprints,
                                                           ranks=None))


def test_one_batch_on_every_step_is_noted_as_info():
    from nndebug.rules.data_order import MIN_SAME_BATCH_STEPS, data_order_repeats
    found = data_order_repeats(fingerprint_context([0.37] * MIN_SAME_BATCH_STEPS))
    assert found.code == "DATA_ORDER_REPEATS" and found.severity == "info"
    assert found.evidence["batches_per_epoch"] == 1 and "__getitem__" in found.fix
    # too few steps to say, or one batch that differs: nothing
    assert data_order_repeats(fingerprint_context([0.37] * (MIN_SAME_BATCH_STEPS - 1))) is None
    assert data_order_repeats(fingerprint_context([0.37] * 9 + [0.5])) is None


def test_reshuffled_batches_are_not_noted():
    import numpy as np
    from nndebug.rules.data_order import data_order_repeats
    shuffled = list(np.random.default_rng(0).normal(size=40))
    assert data_order_repeats(fingerprint_context(shuffled)) is None


# --- some parameter groups' learning rate collapses (LR_TOO_LOW) -------------------------------
def test_layer_decay_compounded_every_step_names_the_stalled_layers():
    from benchmarks.real_bugs import layer_decay_applied_every_step as case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = [f for f in case.run(fixed=False).findings() if f.code == "LR_TOO_LOW"]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["collapsed_groups"] == [0, 1]
    assert set(found[0].evidence["stalled_layers"]) >= {"0.weight"}
    assert 2 not in found[0].evidence["collapsed_groups"]      # the head keeps its rate


def test_layer_decay_applied_once_is_silent():
    from benchmarks.real_bugs import layer_decay_applied_every_step as case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert codes(case.run(fixed=True)) == set()


def test_a_schedule_that_decays_after_learning_is_not_blamed():
    """Group learning rates that fall by 1e-4 once the task is learned: no LR_TOO_LOW (the
    loss improved; a collapse only matters when learning is poor)."""
    x, y = blobs()
    torch.manual_seed(0)
    layers = [nn.Linear(8, 16), nn.Linear(16, 3)]
    model = nn.Sequential(layers[0], nn.ReLU(), layers[1])
    optimizer = torch.optim.SGD([{"params": layer.parameters()} for layer in layers], lr=0.05,
                                momentum=0.9)
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.01)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for step in range(60):
            rows = torch.arange(step * 16, step * 16 + 16) % len(x)
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            schedule.step()
            mon.step(loss)
    assert "LR_TOO_LOW" not in {f.code for f in mon.findings()}


# --- updates too small to leave chance level (LR_TOO_LOW) ----------------------------------------
def findings_of(case_name, fixed):
    import importlib
    case = importlib.import_module(f"benchmarks.real_bugs.{case_name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return case.run(fixed=fixed).findings()


def test_updates_below_healthy_at_chance_name_the_learning_rate():
    found = {f.code: f for f in findings_of("weight_decay_passed_as_learning_rate", False)}
    assert "LR_TOO_LOW" in found and found["LR_TOO_LOW"].evidence.get("at_chance")
    assert found["LR_TOO_LOW"].evidence["update_to_weight_max_layer"] < 1e-3
    assert "LR_TOO_LOW" in found["LOSS_AT_CHANCE"].message      # named as its cause


def test_healthy_updates_at_chance_still_blame_the_labels():
    found = {f.code: f for f in findings_of("labels_shuffled_separately", False)}
    assert "LR_TOO_LOW" not in found and "LOSS_AT_CHANCE" in found


def test_the_right_learning_rate_is_silent():
    problems = [f for f in findings_of("weight_decay_passed_as_learning_rate", True)
                if f.severity in PROBLEMS]
    assert problems == []


def test_smoothed_log_probabilities_are_still_log_probabilities():
    """log(p + 1e-5) reaches about +1e-5 for a confident row: still a log-probability."""
    assert not_log_probabilities([call("NLLLoss", -9.0, 1e-5), call("NLLLoss", -8.0, 9e-6)]) \
        is False


# --- batch norm with TensorFlow's momentum (BATCHNORM_MOMENTUM_INVERTED) -------------------------
def test_momentum_at_or_above_one_half_is_inverted():
    from nndebug.observed import NormSetting
    from nndebug.rules.structure import INVERTED_MOMENTUM, inverted_momenta
    settings = [NormSetting("tf", "BatchNorm1d", 0.99), NormSetting("edge", "BatchNorm2d",
                                                                    INVERTED_MOMENTUM),
                NormSetting("default", "BatchNorm1d", 0.1), NormSetting("port", "BatchNorm1d", 0.01),
                NormSetting("cumulative", "BatchNorm1d", None),
                NormSetting("untracked", "BatchNorm1d", 0.99, tracks_running_stats=False),
                NormSetting("eval_only", "BatchNorm1d", 0.99)]
    trained = {"tf", "edge", "default", "port", "cumulative", "untracked"}
    assert inverted_momenta(settings, trained) == {"tf": 0.99, "edge": INVERTED_MOMENTUM}


def bn_run(momentum, framework="torch", steps=30):
    """An MLP with a batch norm of this momentum on the blobs, under nd.watch."""
    x, y = blobs()
    if framework == "torch":
        model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16, momentum=momentum), nn.ReLU(),
                              nn.Linear(16, 3))
        return train(model, nn.CrossEntropyLoss(), x, y, steps=steps)
    import minigrad as mg
    import minigrad.nn as mnn
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(8, 16), mnn.BatchNorm1d(16, momentum=momentum), mnn.ReLU(),
                           mnn.Linear(16, 3))
    optimizer = mg.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn, xs, ys = mnn.CrossEntropyLoss(), mg.tensor(x.numpy()), mg.tensor(y.numpy())
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = [(step * 16 + i) % len(x) for i in range(16)]
            optimizer.zero_grad()
            loss = loss_fn(model(xs[rows]), ys[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_tensorflow_momentum_in_batch_norm_is_named(framework):
    found = {f.code: f for f in bn_run(0.99, framework).findings()}
    finding = found["BATCHNORM_MOMENTUM_INVERTED"]
    assert finding.severity == "warning" and finding.where == "1"
    assert finding.evidence["layers"] == {"1": 0.99}
    assert "0.01" in finding.fix and "0.1" in finding.fix


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("momentum", [0.1, 0.01, None])
def test_pytorch_momentum_in_batch_norm_is_silent(framework, momentum):
    mon = bn_run(momentum, framework)
    assert [s.momentum for s in mon.run.observed.norm_settings] == [momentum]
    assert "BATCHNORM_MOMENTUM_INVERTED" not in {f.code for f in mon.findings()}
    assert codes(mon) == set()


def test_batch_norm_momentum_survives_a_saved_run():
    from nndebug.runfile import _encode_observed, decode_observed
    observed = bn_run(0.99, steps=3).run.observed
    assert decode_observed(_encode_observed(observed)).norm_settings == observed.norm_settings


# --- the second batch of reports: KL on probabilities, unfrozen layers, no optimizer step ---
class Framework:
    """The few calls the planted runs below need, in torch or in minigrad."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            self.nn, self.optim = nn, torch.optim
            self.tensor = lambda a: torch.tensor(a)
        else:
            import minigrad as mg
            import minigrad.nn as mnn
            mg.manual_seed(0)
            self.nn, self.optim, self.tensor = mnn, mg.optim, mg.tensor

    def mlp(self):
        torch.manual_seed(0)
        return self.nn.Sequential(self.nn.Linear(8, 16), self.nn.ReLU(),
                                  self.nn.Linear(16, 3))

    def data(self):
        x, y = blobs()
        return self.tensor(x.numpy()), self.tensor(y.numpy()), len(x)


def rows(step, n, size=16):
    return [(step * size + i) % n for i in range(size)]


def kl_run(framework, log_input, steps=30):
    """A student MLP fitted by KLDivLoss to one-hot-ish soft targets; its input is the
    student's log-probabilities (right) or probabilities (the reported bug)."""
    fw = Framework(framework)
    x, y, n = fw.data()
    model = fw.mlp()
    optimizer = fw.optim.Adam(model.parameters(), lr=1e-2)
    kl = fw.nn.KLDivLoss(reduction="batchmean")
    soft = np.full((n, 3), 0.05, np.float32)
    soft[np.arange(n), y.numpy() if framework == "minigrad" else y.numpy()] = 0.9
    soft = fw.tensor(soft)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step in range(steps):
                batch = rows(step, n)
                optimizer.zero_grad()
                scores = model(x[batch])
                inputs = scores.log_softmax(dim=-1) if log_input else scores.softmax(dim=-1)
                loss = kl(inputs, soft[batch])
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_kl_divergence_given_probabilities_is_named(framework):
    found = {f.code: f for f in kl_run(framework, log_input=False).findings()}
    finding = found["NLL_ON_PROBABILITIES"]
    assert finding.severity == "error" and finding.evidence["loss"] == "KLDivLoss"
    assert finding.evidence["rows_sum_to_one"] and "log_softmax" in finding.fix


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_kl_divergence_given_log_probabilities_is_silent(framework):
    mon = kl_run(framework, log_input=True)
    assert {c.loss for c in mon.run.observed.loss_calls} == {"KLDivLoss"}
    assert codes(mon) == set()


def unfreeze_run(framework, hand_over, steps=30, unfreeze_at=5):
    """An MLP whose first layer starts frozen, with an optimizer over the trainable
    parameters; the layer is unfrozen at ``unfreeze_at`` and handed to the optimizer
    (add_param_group) only when ``hand_over``."""
    fw = Framework(framework)
    x, y, n = fw.data()
    model = fw.mlp()
    model[0].requires_grad_(False)
    optimizer = fw.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    loss_fn = fw.nn.CrossEntropyLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step in range(steps):
                if step == unfreeze_at:
                    model[0].requires_grad_(True)
                    if hand_over:
                        optimizer.add_param_group({"params": list(model[0].parameters())})
                batch = rows(step, n)
                optimizer.zero_grad()
                loss = loss_fn(model(x[batch]), y[batch])
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_layers_unfrozen_outside_the_optimizer_are_named(framework):
    found = {f.code: f for f in unfreeze_run(framework, hand_over=False).findings()}
    finding = found["OPTIMIZER_MISSING_PARAMS"]
    assert finding.severity == "warning" and finding.evidence["unfrozen"] is True
    assert finding.evidence["missing"] == ["0.weight", "0.bias"]
    assert "add_param_group" in finding.fix
    assert "FROZEN_PARAMETERS" not in found        # they are not frozen any more


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_layers_unfrozen_and_handed_to_the_optimizer_are_silent(framework):
    mon = unfreeze_run(framework, hand_over=True)
    assert codes(mon) == set()             # findings() looks at the frozen tensors again
    assert [(t.unfrozen, t.in_optimizer, t.changed) for t in mon.run.observed.frozen] == \
        [(True, True, True)] * 2


def test_unfrozen_layers_survive_a_saved_run():
    from nndebug.runfile import _encode_observed, decode_observed
    mon = unfreeze_run("torch", hand_over=False, steps=8)
    mon.findings()
    observed = mon.run.observed
    assert observed.frozen[0].unfrozen is True and observed.frozen[0].in_optimizer is False
    assert decode_observed(_encode_observed(observed)).frozen == observed.frozen


def accumulation_run(framework, batches_per_epoch, accumulate=4, batches=24):
    """Gradient accumulation that steps when (i + 1) % accumulate == 0, i counting the
    batches of an epoch, and calls mon.step after optimizer.step() as documented: with
    fewer batches per epoch than ``accumulate`` the optimizer never steps."""
    fw = Framework(framework)
    x, y, n = fw.data()
    model = fw.mlp()
    optimizer = fw.optim.SGD(model.parameters(), lr=1e-2)
    loss_fn = fw.nn.CrossEntropyLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for b in range(batches):
                batch = rows(b, n)
                loss = loss_fn(model(x[batch]), y[batch])
                (loss / accumulate).backward()
                if (b % batches_per_epoch + 1) % accumulate == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                    mon.step(loss)
    return mon


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_backward_without_any_optimizer_step_is_named(framework):
    mon = accumulation_run(framework, batches_per_epoch=3)
    found = {f.code: f for f in mon.findings()}
    assert len(mon.run.records) == 0
    finding = found["NO_OPTIMIZER_STEP"]
    assert finding.severity == "warning"
    assert finding.evidence["parameters_with_gradients"] == 4    # two weights, two biases
    assert codes(mon) == {"NO_OPTIMIZER_STEP"}


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_accumulation_that_steps_is_silent(framework):
    mon = accumulation_run(framework, batches_per_epoch=8)
    assert codes(mon) == set()
    assert mon.run.observed.unstepped_gradients == 0


def test_a_watch_without_backward_is_not_blamed():
    fw = Framework("torch")
    model = fw.mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        model(torch.zeros(4, 8))                   # a forward, no backward, no step
    assert "NO_OPTIMIZER_STEP" not in {f.code for f in mon.findings()}
    assert mon.run.observed.unstepped_gradients == 0


# --- keyword-only forward calls (the Hugging Face convention) reach the dependency probes ---
def test_keyword_inputs_keep_tensors_and_leave_out_the_labels():
    from nndebug.adapters import adapt
    from nndebug.monitor.keyword_inputs import model_inputs
    adapter = adapt(nn.Linear(2, 2))
    ids = torch.zeros(2, 3, dtype=torch.long)
    kept = model_inputs(adapter, {"input_ids": ids, "attention_mask": ids, "labels": ids,
                                  "return_dict": True})
    assert set(kept) == {"input_ids", "attention_mask"}
    assert model_inputs(adapter, {"labels": ids}) is None


class KeywordLM(nn.Module):
    """forward(input_ids, labels=None) -> {"loss", "logits"}: labels shifted inside."""

    def __init__(self, causal, vocab=12, dim=16, length=10):
        super().__init__()
        self.causal = causal
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(length, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.body = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels=None):
        t = input_ids.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t) if self.causal else None
        logits = self.head(self.body(self.embed(input_ids) + self.position(torch.arange(t)),
                                     mask=mask))
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                               labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


def train_lm(model, loss_of_batch, batch_shape, steps=20):
    """``steps`` Adam steps of ``model`` under watch on random ids of ``batch_shape``;
    ``loss_of_batch(model, ids)`` makes the call the case is about."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for _ in range(steps):
                ids = torch.randint(0, 12, batch_shape, generator=g)
                optimizer.zero_grad()
                loss = loss_of_batch(model, ids)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


def keyword_run(causal, steps=20):
    torch.manual_seed(0)
    model = KeywordLM(causal)
    mon = train_lm(model, lambda m, ids: m(input_ids=ids, labels=ids)["loss"], (8, 10), steps)
    return mon, model


def test_a_model_called_by_keyword_only_is_probed_for_future_leaks():
    mon, model = keyword_run(causal=False)
    found = {f.code: f for f in mon.findings()}
    assert found["FUTURE_LEAK"].severity == "error"
    assert not model._forward_pre_hooks            # the keyword hook went with the probe


def test_a_causal_model_called_by_keyword_only_is_silent():
    mon, model = keyword_run(causal=True)
    from nndebug.probes.dependencies.watching import DependencyWatch
    watch = next(s for s in mon.sinks if isinstance(s, DependencyWatch))
    assert watch.ran == "full check"               # it was probed, and passed
    assert codes(mon) == set()
    assert not model._forward_pre_hooks


# --- nanoGPT's convention, logits, loss = model(x, y): the targets are not probed as inputs ---
class TargetsLM(KeywordLM):
    """forward(idx, targets=None) -> (logits, loss), the targets already shifted."""

    def forward(self, idx, targets=None):
        t = idx.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t) if self.causal else None
        logits = self.head(self.body(self.embed(idx) + self.position(torch.arange(t)),
                                     mask=mask))
        loss = None if targets is None else nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return logits, loss


def targets_run(causal, steps=20):
    torch.manual_seed(0)
    # as many rows as positions (nanoGPT's batch_size == block_size): the (B, T) targets are
    # square, and an input of shape (B, B) is what an adjacency matrix looks like, so the
    # probes stood down
    return train_lm(TargetsLM(causal), lambda m, w: m(w[:, :-1], w[:, 1:])[1], (10, 11), steps)


def test_inputs_that_are_the_loss_targets_are_left_out():
    from nndebug.adapters import adapt
    from nndebug.probes.dependencies.watching import _without_targets
    adapter = adapt(nn.Linear(2, 2))
    x, y = torch.arange(6).view(2, 3), torch.arange(1, 7).view(2, 3)
    assert _without_targets(adapter, (x, y), y.reshape(-1)) == (x, None)
    assert _without_targets(adapter, (x, y), x + 5) == (x, y)          # not the targets
    assert list(_without_targets(adapter, {"idx": x, "y": y}, y)) == ["idx"]
    assert _without_targets(adapter, x, x) is x                        # the only input stays


def test_a_model_given_its_targets_positionally_is_probed_for_future_leaks():
    found = {f.code: f for f in targets_run(causal=False).findings()}
    assert found["FUTURE_LEAK"].severity == "error"


def test_a_causal_model_given_its_targets_positionally_is_silent():
    assert codes(targets_run(causal=True)) == set()


def test_an_input_that_is_the_targets_and_is_read_is_still_probed():
    """A decoder fed its own labels: dropping the input equal to the targets leaves a model
    that cannot run, so the probes take the inputs as given and name the copy."""
    bug = {f.code for f in findings_of("seq2seq_decoder_reads_labels", fixed=False)
           if f.severity in PROBLEMS}
    assert "TARGETS_IN_INPUTS" in bug
    assert not [f for f in findings_of("seq2seq_decoder_reads_labels", fixed=True)
                if f.severity in PROBLEMS]
