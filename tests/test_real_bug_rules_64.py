"""Real-bug batch 64 (layers and modules written by hand): a parameter created with
``torch.Tensor``/``torch.empty`` and never initialised (UNINITIALISED_PARAMETERS), a Xavier
bound computed from every weight instead of the fan-in (INIT_SCALE_TOO_SMALL), and a noise
layer adding in place to the tensor it is given, a slice of the training set
(INPUT_MODIFIED_IN_PLACE). The fixed twins stay silent, and so do the healthy look-alikes a
careless rule would flag: a non-trainable parameter holding -inf on purpose, a
zero-initialised head, a small initialisation tamed by batch norm, one narrow layer, a too-low
learning rate at the default initialisation (LR_TOO_LOW, not the initialisation); the same
in-place noise layer fed fresh batches (info only), in-place activations on the model's own
tensors, a model fed slices that it leaves alone."""
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import dense_init_fan_in_counts_every_weight as fan  # noqa: E402
from benchmarks.real_bugs import linear_weight_left_as_uninitialised_tensor as empty  # noqa: E402
from benchmarks.real_bugs import noise_layer_adds_to_batch_in_place as noise  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from nndebug.monitor.in_place_inputs import IN_PLACE_INPUT_STEPS  # noqa: E402
from nndebug.monitor.start_parameters import HUGE_START_VALUE, read_start_values  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code, severities=PROBLEMS):
    return [f for f in mon.findings() if f.code == code and f.severity in severities]


def _digits_run(model, steps, lr=1e-3, optimizer=None, **watch):
    torch.manual_seed(0)
    x, y = classification()
    optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=lr)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps), **watch)


# --- UNINITIALISED_PARAMETERS ----------------------------------------------------------

def test_a_torch_tensor_weight_never_initialised_is_named():
    found = _found(empty.run(steps=20), "UNINITIALISED_PARAMETERS")
    assert found and found[0].severity == "error"
    assert found[0].where == "2.weight"
    assert found[0].evidence["parameters"]["2.weight"]["nonfinite"] == 10 * 128


def test_the_uninitialised_finding_is_the_cause_of_the_nan():
    findings = empty.run(steps=20).findings()
    assert findings[0].code == "UNINITIALISED_PARAMETERS"     # ranked before the NaN's birth


def test_garbage_that_reads_as_huge_numbers_is_named_too():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    with torch.no_grad():                # what torch.empty can hold: bits read as 1e30
        model[0].weight[::7] = 3e30
    found = _found(_digits_run(model, 20), "UNINITIALISED_PARAMETERS")
    assert found and found[0].where == "0.weight"
    assert found[0].evidence["parameters"]["0.weight"]["largest"] > HUGE_START_VALUE


def test_an_empty_hidden_layer_is_named():
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)       # uninitialised memory filled with NaN
    try:
        torch.manual_seed(0)
        hidden = nn.Linear(64, 32)
        hidden.weight = nn.Parameter(torch.empty(32, 64))
    finally:
        torch.use_deterministic_algorithms(was)
    model = nn.Sequential(hidden, nn.Tanh(), nn.Linear(32, 10))
    assert _found(_digits_run(model, 20), "UNINITIALISED_PARAMETERS")


def test_the_initialised_twin_is_silent():
    mon = empty.run(fixed=True, steps=60)
    assert not _problems(mon)
    assert not mon.run.observed.start_parameter_values


def test_a_frozen_minus_inf_mask_parameter_is_left_alone():
    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
            mask = torch.zeros(10)
            mask[9:] = -math.inf         # class 9 never predicted: a deliberate -inf
            self.mask = nn.Parameter(mask, requires_grad=False)

        def forward(self, x):
            return self.body(x) + self.mask.clamp(min=-1e4)

    mon = _digits_run(Masked(), 60)
    assert mon.run.observed.start_parameter_values[0][2] is False   # seen, not trainable
    assert not _found(mon, "UNINITIALISED_PARAMETERS", ("info", *PROBLEMS))


def test_zero_initialised_layers_are_not_uninitialised():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    nn.init.zeros_(model[2].weight)
    mon = _digits_run(model, 60)
    assert not mon.run.observed.start_parameter_values
    assert not {"UNINITIALISED_PARAMETERS", "INIT_SCALE_TOO_SMALL"} & _problems(mon)


def test_start_values_are_read_once_per_parameter():
    model = nn.Linear(3, 2)
    with torch.no_grad():
        model.weight[0, 0] = math.nan
        model.bias[1] = 2e20
    observed = Observed()
    from nndebug.adapters import adapt
    read_start_values(adapt(model), observed, lambda error: (_ for _ in ()).throw(error))
    rows = {r[0]: r for r in observed.start_parameter_values}
    assert rows["weight"][3] == 1 and rows["bias"][3] == 0
    assert rows["bias"][4] == pytest.approx(2e20)


# --- INIT_SCALE_TOO_SMALL ---------------------------------------------------------------

def test_a_xavier_bound_from_every_weight_is_named():
    found = _found(fan.run(steps=150), "INIT_SCALE_TOO_SMALL")
    assert found
    gains = found[0].evidence["gains"]
    assert len(gains) == 4 and max(gains.values()) < 0.2


def test_the_init_finding_explains_the_slow_rate_verdict():
    findings = fan.run(steps=150).findings()
    assert findings[0].code == "INIT_SCALE_TOO_SMALL"


def _tanh_stack(widths, norm=False):
    layers = []
    for i, o in zip(widths, widths[1:]):
        layers += [nn.Linear(i, o)] + ([nn.BatchNorm1d(o)] if norm else []) + [nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(widths[-1], 10))


def test_std_written_as_one_over_fan_in_is_named():
    torch.manual_seed(0)
    model = _tanh_stack([64, 128, 128, 128, 128])
    with torch.no_grad():
        for layer in model:
            if isinstance(layer, nn.Linear):   # the variance's 1 / fan_in taken as the std
                layer.weight.normal_(0.0, 1.0 / layer.weight.shape[1])
                layer.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    assert _found(_digits_run(model, 150, optimizer=opt), "INIT_SCALE_TOO_SMALL")


def test_the_fan_in_twin_is_silent():
    assert not _problems(fan.run(fixed=True, steps=150))


def test_a_small_init_tamed_by_batch_norm_is_left_alone():
    torch.manual_seed(0)
    model = _tanh_stack([64, 128, 128, 128, 128], norm=True)
    with torch.no_grad():
        for layer in model:
            if isinstance(layer, nn.Linear):
                layer.weight.normal_(0.0, 1.0 / layer.weight.shape[1])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mon = _digits_run(model, 150, optimizer=opt)
    assert "INIT_SCALE_TOO_SMALL" not in _problems(mon)
    assert not _problems(mon)


def test_a_too_low_rate_at_the_default_init_is_not_the_init():
    torch.manual_seed(0)
    model = _tanh_stack([64, 128, 128, 128, 128])
    opt = torch.optim.SGD(model.parameters(), lr=1e-5)
    problems = _problems(_digits_run(model, 150, optimizer=opt))
    assert "INIT_SCALE_TOO_SMALL" not in problems
    assert "LR_TOO_LOW" in problems


def test_one_narrow_or_zero_layer_is_not_enough():
    torch.manual_seed(0)
    model = _tanh_stack([64, 128, 128])
    with torch.no_grad():
        model[2].weight.normal_(0.0, 1e-3)     # one narrow hidden layer
        model[4].weight.zero_()                # a zero-initialised head
    opt = torch.optim.SGD(model.parameters(), lr=1e-5)   # and a run that does not learn
    assert "INIT_SCALE_TOO_SMALL" not in _problems(_digits_run(model, 150, optimizer=opt))


# --- INPUT_MODIFIED_IN_PLACE -----------------------------------------------------------

def test_noise_added_in_place_to_slices_of_the_data_is_named():
    found = _found(noise.run(steps=60), "INPUT_MODIFIED_IN_PLACE")
    assert found and found[0].severity == "warning"
    rows = found[0].evidence["rows"]
    assert len(rows) == IN_PLACE_INPUT_STEPS and all(r[2] for r in rows)   # views of the data
    assert rows[0][3] == 1500 * 64                                          # the whole set


def test_the_out_of_place_twin_is_silent():
    mon = noise.run(fixed=True, steps=60)
    assert not _problems(mon)
    assert not mon.run.observed.in_place_inputs


class _Standardise(nn.Module):
    """x.sub_(mean).div_(std): standardisation written in place."""

    def forward(self, x):
        return x.sub_(x.mean(0, keepdim=True)).div_(x.std(0, keepdim=True) + 1e-3)


def test_the_whole_set_standardised_in_place_every_step_is_named():
    torch.manual_seed(0)
    x, y = classification()
    x = x[:512].clone()
    model = nn.Sequential(_Standardise(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, opt, nn.CrossEntropyLoss(), ((x, y[:512]) for _ in range(20)))
    found = _found(mon, "INPUT_MODIFIED_IN_PLACE")
    assert found                                   # the same tensor fed again, not a view
    rows = found[0].evidence["rows"]
    assert not rows[0][2] and rows[1][4]


def test_fresh_batches_written_in_place_are_info_only():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(noise.GaussianNoise(0.3, in_place=True), nn.Linear(64, 64),
                          nn.ReLU(), nn.Linear(64, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, opt, nn.CrossEntropyLoss(), batches(x, y, 60))   # copies
    assert _found(mon, "INPUT_MODIFIED_IN_PLACE", ("info",))
    assert not _problems(mon)


def test_in_place_activations_inside_the_model_are_left_alone():
    torch.manual_seed(0)
    x, y = classification()
    x_train = x[:1024].clone()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(inplace=True), nn.Linear(64, 64),
                          nn.ReLU(inplace=True), nn.Linear(64, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = noise.sliced_batches(x_train, y[:1024], 60)             # views of the data
    mon = train_watched(model, opt, nn.CrossEntropyLoss(), data)
    assert not mon.run.observed.in_place_inputs
    assert not _problems(mon)
    assert torch.equal(x_train, x[:1024])


def test_the_hooks_go_when_the_monitor_closes():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    before = (len(model._forward_hooks), len(model._forward_pre_hooks))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    train_watched(model, opt, nn.CrossEntropyLoss(), noise.sliced_batches(x[:640], y[:640], 5))
    assert (len(model._forward_hooks), len(model._forward_pre_hooks)) == before


def test_saved_and_loaded_rows_read_back(tmp_path):
    import nndebug as nd
    mon = noise.run(steps=12)
    path = tmp_path / "run.nddebug"
    mon.save(path)
    observed = nd.load_run(path).run.observed
    assert [list(r) for r in observed.in_place_inputs] == \
        [list(r) for r in mon.run.observed.in_place_inputs]
    assert all(isinstance(r[2], bool) for r in observed.in_place_inputs)
    mon = empty.run(steps=3)
    mon.save(path)
    assert [list(r) for r in nd.load_run(path).run.observed.start_parameter_values] == \
        [list(r) for r in mon.run.observed.start_parameter_values]


def test_stock_gpt2_residual_projections_are_not_a_narrow_stack():
    """GPT-2 draws its residual projections at 0.02 / sqrt(2 x layers) on purpose: at width 32
    four of its eight depth weights are narrow, the skip path carries the signal past them.
    On tokens that are mostly noise (one in eight repeats the one before it) the loss cannot
    fall far, so learning reads as poor, yet the model learns every repeat."""
    transformers = pytest.importorskip("transformers")
    import nndebug as nd
    transformers.logging.set_verbosity_error()
    vocab, length = 32, 16
    generator = torch.Generator().manual_seed(0)

    def rows(count):
        ids = torch.randint(0, vocab, (count, length), generator=generator)
        ids[:, 7::8] = ids[:, 6::8]
        return ids

    torch.manual_seed(0)
    train, test = rows(1024), rows(256)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=vocab, n_positions=length, n_embd=32, n_layer=2, n_head=2))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    with nd.watch(model, opt) as mon:
        for _ in range(150):
            batch = train[torch.randint(0, len(train), (32,), generator=generator)]
            loss = model(batch, labels=batch).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(test).logits[:, 6::8].argmax(-1)
    assert (predicted == test[:, 7::8]).float().mean() > 0.95      # the repeats are learned
    assert "INIT_SCALE_TOO_SMALL" not in _problems(mon)
