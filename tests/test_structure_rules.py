"""How the model is put together: UNREGISTERED_PARAMETERS, FROZEN_PARAMETERS,
BATCHNORM_TINY_BATCH. The checks alone on plain data, then planted training runs and their
healthy twins on both frameworks (a frozen pretrained backbone must stay silent)."""
import math

import numpy as np
import pytest

import nndebug as nd
from nndebug.observed import FrozenTensor, NormBatch
from nndebug.rules.structure import TINY_BATCH, looks_freshly_initialised, tiny_batches

torch = pytest.importorskip("torch")
nn = torch.nn

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def problems(mon):
    return [f for f in mon.findings() if f.severity in ("warning", "error")]


def found(mon):
    return {f.code: f for f in mon.findings()}


# --- the plain checks -----------------------------------------------------------------------
def frozen_of(values, name="w", fan_in=None, fan_out=None):
    values = np.asarray(values, float)
    std = values.std()
    centred = (values - values.mean()) / (std if std > 0 else 1)
    shape = values.shape
    if fan_in is None and len(shape) >= 2:
        fan_in, fan_out = shape[1] * math.prod(shape[2:]), shape[0] * math.prod(shape[2:])
    spread, rows = None, 0
    if len(shape) >= 2 and shape[0] >= 2:
        squares = (values.reshape(shape[0], -1) ** 2).sum(axis=1)
        spread, rows = float(squares.std() / squares.mean()), shape[0]
    return FrozenTensor(name, shape, fan_in or 0, fan_out or 0, float(values.mean()), float(std),
                        float(np.abs(values).max()), float((centred ** 4).mean()),
                        unit_spread=spread, unit_rows=rows)


@pytest.mark.parametrize("make", [
    lambda: nn.Linear(64, 32).weight, lambda: nn.Conv2d(8, 16, 3).weight,
    lambda: nn.init.kaiming_normal_(torch.empty(32, 64)),
    lambda: nn.init.xavier_uniform_(torch.empty(32, 64)),
    lambda: nn.init.normal_(torch.empty(128, 64), std=0.02),
    lambda: nn.Embedding(500, 32).weight])
def test_fresh_initialisations_are_recognised(make):
    torch.manual_seed(0)
    assert looks_freshly_initialised(frozen_of(make().detach().numpy())) is not None


def test_trained_looking_and_tiny_tensors_are_not_called_fresh():
    rng = np.random.default_rng(0)
    heavy = rng.standard_t(3, size=(32, 64)) * 0.1         # heavy tails, as trained weights
    assert looks_freshly_initialised(frozen_of(heavy)) is None
    shifted = rng.uniform(-0.125, 0.125, size=(32, 64)) + 0.2   # not centred
    assert looks_freshly_initialised(frozen_of(shifted)) is None
    scaled = rng.uniform(-1, 1, size=(32, 64)) * 3          # far wider than any initialiser
    assert looks_freshly_initialised(frozen_of(scaled)) is None
    assert looks_freshly_initialised(frozen_of(rng.normal(size=(4, 4)))) is None   # too few
    assert looks_freshly_initialised(frozen_of(np.ones(8))) == "constant 1"
    assert looks_freshly_initialised(frozen_of(np.full(8, 0.5))) is None


def test_units_of_unequal_size_are_not_called_fresh():
    """A kaiming-normal draw whose output units were then scaled apart (factors 0.8-1.2,
    the whole rescaled to kaiming's std): its std and kurtosis still look fresh, but the
    rows' squared norms spread about twice as far as a draw's can."""
    rng = np.random.default_rng(0)
    std = math.sqrt(2 / 144)
    draw = rng.normal(0, std, (32, 16, 3, 3))
    assert looks_freshly_initialised(frozen_of(draw)) == "kaiming (He) normal"
    scaled = draw * rng.uniform(0.8, 1.2, (32, 1, 1, 1))
    scaled *= std / scaled.std()
    tensor = frozen_of(scaled)
    assert abs(tensor.std - std) < 0.01 * std and abs(tensor.kurtosis - 3) < 3 * math.sqrt(24 / 4608)
    assert looks_freshly_initialised(tensor) is None


def test_rows_of_one_length_are_not_called_fresh():
    """Word vectors normalised to one norm, as the twin of from_pretrained_called_on_layer_
    instance loads them frozen (seed 4000: its seeds shifted by 4000, where the table drew a
    false alarm): the std and kurtosis of nn.Embedding's normal(0, 1), but rows far more
    alike in length than a draw's. A fresh draw of the same size (padding row zeroed) is
    still named."""
    from benchmarks.real_bugs.glove_rows_ignore_reserved_id_offset import (glove_like,
                                                                         topic_corpus,
                                                                         word_index)
    rng = np.random.default_rng(4000)
    texts, _, topics = topic_corpus(560, rng, keywords=40)
    index = word_index(texts)
    vectors = glove_like(topics, index, rng)
    table = np.zeros((len(index) + 1, 32))
    for word, i in index.items():
        table[i] = vectors[word]
    tensor = frozen_of(table)
    assert abs(tensor.std - 1) < 0.01 and \
        abs(tensor.kurtosis - 3) < 3 * math.sqrt(24 / table.size)    # moments of a draw
    assert looks_freshly_initialised(tensor) is None
    draw = rng.normal(size=table.shape)
    draw[0] = 0
    assert looks_freshly_initialised(frozen_of(draw)) == "normal(0, 1) (nn.Embedding's default)"


def test_the_unit_spread_of_a_pretrained_conv_is_measured_by_the_monitor():
    """A conv weight trained with Adam (the backbone of the real-bug case
    pretrained_weights_reinitialised_after_loading, seeds shifted by 3000: std 0.119, the
    kaiming-normal 0.118 of its fan-in) fine-tuned at a small rate beside a new head: not
    taken for weights that were never loaded; the same backbone re-initialised is."""
    from benchmarks.bench_real_bugs import shifted_seeds
    from benchmarks.real_bugs import pretrained_weights_reinitialised_after_loading as case
    for fixed in (True, False):
        with shifted_seeds(3000):
            mon = case.run(fixed=fixed, steps=3)
        rows = mon.run.observed.slow_group_weights
        fresh = [row[3] for row in rows if row[4]]
        assert ("0.3.weight" in fresh) == (not fixed), (fixed, rows)


def test_a_trained_small_stem_is_too_small_to_judge():
    """A 16 x 1 x 3 x 3 stem trained 300 steps (the statistics measured on the pretrained
    stem of benchmarks/real_bugs/checkpoint_keys_prefixed_loaded_not_strict, with its seeds
    shifted): its std and kurtosis lie within three standard errors of a kaiming-normal draw
    of 144 values, and so few values cannot tell them apart: the tensor is not judged."""
    stem = FrozenTensor("0.0.weight", (16, 1, 3, 3), 9, 144, 0.0, 0.4156, 0.858, 1.992)
    assert looks_freshly_initialised(stem) is None


def test_tiny_batches_need_most_calls_tiny():
    calls = [NormBatch(s, "bn", 2, 2) for s in range(4)]
    assert tiny_batches(calls) == {"bn": (2, 2, 0)}
    # a last, short batch of an epoch among full ones is no bug
    mixed = [NormBatch(s, "bn", 32, 32) for s in range(5)] + [NormBatch(5, "bn", 3, 3)]
    assert tiny_batches(mixed) == {}
    assert tiny_batches([NormBatch(0, "bn", TINY_BATCH + 1, 40)]) == {}


# --- planted runs: torch ----------------------------------------------------------------------
def data(n=512, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    return x, y


def train(model, steps=60, batch=32, lr=0.05, optimizer=None, x=None, y=None):
    if x is None:
        x, y = data()
    optimizer = optimizer or torch.optim.SGD(
        [p for p in model.parameters() if p.requires_grad], lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, overhead=None) as mon:
        for i in range(steps):
            j = (i * batch) % (len(x) - batch)
            optimizer.zero_grad()
            loss = loss_fn(model(x[j:j + batch]), y[j:j + batch])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class ListNet(nn.Module):
    def __init__(self, registered):
        super().__init__()
        hidden = [nn.Linear(16, 16), nn.Linear(16, 16)]
        self.hidden = nn.ModuleList(hidden) if registered else hidden
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        for layer in self.hidden:
            x = torch.relu(layer(x))
        return self.head(x)


def test_layers_in_a_python_list_and_their_module_list_twin():
    torch.manual_seed(0)
    finding = found(train(ListNet(registered=False)))["UNREGISTERED_PARAMETERS"]
    assert finding.severity == "warning" and finding.step == 0
    (use,) = finding.evidence["unregistered"]
    assert use["type"] == "Linear" and use["count"] == 2
    assert use["shapes"] == [[16, 16], [16]] and not use["new_each_step"]
    torch.manual_seed(0)
    assert not problems(train(ListNet(registered=True)))


class BuiltInForward(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body, self.head = nn.Linear(16, 32), nn.Linear(32, 3)
        self.dropout = nn.Dropout(0.3)

    def forward(self, x):
        h = torch.relu(self.body(x))
        h = self.dropout(h) if self.fixed else nn.Dropout(0.3)(h)
        return self.head(h)


def test_dropout_built_in_forward_and_its_twin():
    torch.manual_seed(0)
    finding = found(train(BuiltInForward(fixed=False)))["UNREGISTERED_PARAMETERS"]
    use = finding.evidence["unregistered"][0]
    assert use["type"] == "Dropout" and use["new_each_step"] and use["called_from"] == ""
    assert "eval()" in finding.message
    torch.manual_seed(0)
    assert not problems(train(BuiltInForward(fixed=True)))


def test_a_parameter_free_module_built_in_forward_is_harmless():
    class ReluInForward(nn.Module):
        def __init__(self):
            super().__init__()
            self.body, self.head = nn.Linear(16, 32), nn.Linear(32, 3)

        def forward(self, x):
            return self.head(nn.ReLU()(self.body(x)))
    torch.manual_seed(0)
    assert "UNREGISTERED_PARAMETERS" not in found(train(ReluInForward()))


def backbone_and_head():
    return nn.Sequential(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU()),
                         nn.Linear(64, 3))


def test_a_frozen_random_backbone_is_named_and_a_pretrained_one_is_silent():
    x, y = data()
    # random labels: the head on random features cannot learn them -> learning is poor
    y_random = y[torch.randperm(len(y), generator=torch.Generator().manual_seed(1))]
    torch.manual_seed(0)
    model = backbone_and_head()
    model[0].requires_grad_(False)
    finding = found(train(model, x=x, y=y_random))["FROZEN_PARAMETERS"]
    assert finding.severity == "warning" and finding.evidence["learning_poor"]
    assert "0.0.weight" in finding.evidence["frozen"]
    # the same frozen random backbone while the head still learns well: a warning too, since
    # the trained head is built on random features (pytorch/vision#2164)
    torch.manual_seed(0)
    model = backbone_and_head()
    model[0].requires_grad_(False)
    mon = train(model, x=x, y=y, lr=0.5, steps=100)
    finding = found(mon)["FROZEN_PARAMETERS"]
    assert finding.severity == "warning" and not finding.evidence["learning_poor"]
    assert finding.evidence["in_front_of_trained_layers"] == ["0.0.weight", "0.2.weight"]
    # a fixed random last layer in front of nothing trained (a deliberate design) while
    # learning goes well: info only (a head of 128 x 3 values: smaller tensors are not judged)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Sequential(nn.Linear(16, 128), nn.ReLU()), nn.Linear(128, 3))
    model[1].requires_grad_(False)
    mon = train(model, x=x, y=y, lr=0.5, steps=100)
    assert found(mon)["FROZEN_PARAMETERS"].severity == "info" and not problems(mon)
    # a pretrained backbone (trained on the task first), then frozen: silent
    torch.manual_seed(0)
    model = backbone_and_head()
    pretrain = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(500):
        pretrain.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        pretrain.step()
    model[0].requires_grad_(False)
    model[1].reset_parameters()
    mon = train(model, x=x, y=y)
    assert "FROZEN_PARAMETERS" not in found(mon) and not problems(mon)


def bn_model():
    return nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 3))


def test_batch_norm_on_batches_of_two_and_its_twin():
    torch.manual_seed(0)
    finding = found(train(bn_model(), batch=2))["BATCHNORM_TINY_BATCH"]
    assert finding.where == "1" and finding.severity == "warning"
    assert finding.evidence["layers"]["1"] == {"samples": 2, "values_per_channel": 2}
    torch.manual_seed(0)
    assert not problems(train(bn_model(), batch=32))


def test_conv_bias_before_batch_norm_is_not_a_parameter_that_fails_to_update():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(256, 1, 8, 8, generator=g)
    y = (x.mean(dim=(1, 2, 3)) > 0).long()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Flatten(), nn.Linear(512, 2))
    mon = train(model, x=x, y=y, lr=0.01)
    assert "PARAMS_NOT_UPDATING" not in found(mon)


def test_the_model_is_left_unchanged_by_the_structure_watch():
    torch.manual_seed(0)
    model = ListNet(registered=False)
    hooks = (len(model._forward_hooks), len(model.head._forward_hooks))
    modules = torch.nn.modules.module
    # as found: an unclosed monitor of an earlier test may still hold global hooks until
    # the garbage collector frees it; this watch must add none and leave none behind
    before = set(modules._global_forward_hooks) | set(modules._global_forward_pre_hooks)
    train(model, steps=5)
    assert (len(model._forward_hooks), len(model.head._forward_hooks)) == hooks
    after = set(modules._global_forward_hooks) | set(modules._global_forward_pre_hooks)
    assert after <= before


# --- minigrad ---------------------------------------------------------------------------------
def train_minigrad(model, steps=60, batch=32):
    xt, yt = data()
    x, y = mg.tensor(xt.numpy()), mg.tensor(yt.numpy())
    optimizer = mg.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1,
                             momentum=0.9)
    loss_fn = mnn.CrossEntropyLoss()
    with nd.watch(model, optimizer, overhead=None) as mon:
        for i in range(steps):
            j = (i * batch) % (len(xt) - batch)
            optimizer.zero_grad()
            loss = loss_fn(model(x[j:j + batch]), y[j:j + batch])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class MgListNet(mnn.Module):
    def __init__(self, registered):
        super().__init__()
        hidden = [mnn.Linear(16, 16), mnn.Linear(16, 16)]
        self.hidden = mnn.ModuleList(hidden) if registered else hidden
        self.head = mnn.Linear(16, 3)

    def forward(self, x):
        for layer in self.hidden:
            x = layer(x).relu()
        return self.head(x)


def test_minigrad_layers_in_a_python_list_and_the_twin():
    mg.manual_seed(0)
    finding = found(train_minigrad(MgListNet(registered=False)))["UNREGISTERED_PARAMETERS"]
    (use,) = finding.evidence["unregistered"]       # the modules, seen as torch's are
    assert use["type"] == "Linear" and use["count"] == 2
    assert use["shapes"] == [[16, 16], [16]] and not use["new_each_step"]
    mg.manual_seed(0)
    assert not problems(train_minigrad(MgListNet(registered=True)))


def test_minigrad_batch_norm_tiny_batches_and_frozen_layers():
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(16, 32), mnn.BatchNorm1d(32), mnn.ReLU(), mnn.Linear(32, 3))
    assert "BATCHNORM_TINY_BATCH" in found(train_minigrad(model, batch=2))
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(16, 64), mnn.ReLU(), mnn.Linear(64, 3))
    for p in model[0].parameters():
        p.requires_grad = False
    finding = found(train_minigrad(model))["FROZEN_PARAMETERS"]
    assert finding.severity == "warning" and finding.evidence["in_front_of_trained_layers"]
    mg.manual_seed(0)                  # a fixed random last layer: info only, no warning
    model = mnn.Sequential(mnn.Linear(16, 128), mnn.ReLU(), mnn.Linear(128, 3))
    for p in model[2].parameters():
        p.requires_grad = False
    mon = train_minigrad(model)
    assert found(mon)["FROZEN_PARAMETERS"].severity == "info" and not problems(mon)


class MgBuiltInForward(mnn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body, self.head = mnn.Linear(16, 32), mnn.Linear(32, 3)
        self.dropout = mnn.Dropout(0.3)

    def forward(self, x):
        h = self.body(x).relu()
        h = self.dropout(h) if self.fixed else mnn.Dropout(0.3)(h)
        return self.head(h)


def test_minigrad_dropout_built_in_forward_and_its_twin():
    """A parameter-free module built in forward is seen through minigrad's global module
    hooks (as torch's), and they are all removed again when watching ends."""
    from minigrad.nn import module as registry
    mg.manual_seed(0)
    finding = found(train_minigrad(MgBuiltInForward(fixed=False)))["UNREGISTERED_PARAMETERS"]
    use = finding.evidence["unregistered"][0]
    assert use["type"] == "Dropout" and use["new_each_step"] and use["called_from"] == ""
    assert "eval()" in finding.message
    assert not registry.global_forward_hooks and not registry.global_forward_pre_hooks
    mg.manual_seed(0)
    assert not problems(train_minigrad(MgBuiltInForward(fixed=True)))


def test_minigrad_global_module_hooks_run_like_torchs():
    """Global hooks run before the module's own, on every module call (also modules no model
    registers), may replace inputs and output, and are gone after ``remove()``."""
    from minigrad.nn import module as registry
    seen = []
    layer = mnn.Linear(2, 2)
    layer.register_forward_hook(lambda m, i, o: seen.append("own"))
    pre = registry.register_module_forward_pre_hook(lambda m, i: seen.append("global pre"))
    post = registry.register_module_forward_hook(lambda m, i, o: o * 0)
    try:
        out = layer(mg.ones(1, 2))
        assert seen == ["global pre", "own"] and np.all(out.numpy() == 0)
        torch_seen = []
        handle = torch.nn.modules.module.register_module_forward_pre_hook(
            lambda m, i: torch_seen.append(type(m).__name__))
        try:
            torch.nn.Linear(2, 2)(torch.ones(1, 2))
        finally:
            handle.remove()
        mnn.ReLU()(mg.ones(1, 2))            # a module nothing registers: seen too
        assert seen[-1] == "global pre" and torch_seen == ["Linear"]
    finally:
        pre.remove()
        post.remove()
    assert not registry.global_forward_hooks and not registry.global_forward_pre_hooks
    assert np.all(layer(mg.ones(1, 2)).numpy() != 0)
