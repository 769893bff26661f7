"""Real-bug batch 23 (how a model is built and initialised): one module object listed at
several positions of a container (MODULE_REPEATED_IN_CONTAINER), two Linear layers with no
activation between them (LINEAR_LAYERS_STACKED), weights drawn far wider than their fan-in
allows (INIT_SCALE_TOO_LARGE). Each planted run is named; its healthy twin and other
healthy setups that look alike stay silent."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug import rules  # noqa: E402
from nndebug.records import RunRecord  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, steps=40, lr=1e-3, images=False):
    """Digits, cross-entropy, Adam: the ordinary loop under watch."""
    x, y = classification(images=images)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- MODULE_REPEATED_IN_CONTAINER (rules/repeated_modules.py, monitor/repeated_modules.py) --
class Residual(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.BatchNorm1d(width)

    def forward(self, x):
        return x + torch.relu(self.norm(self.fc(x)))


def _residual_net(blocks):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Sequential(*blocks),
                         nn.Linear(32, 10))


def repeated_blocks_run():
    """``3 * [Residual()]``: one block listed three times (dlwpt-code#89)."""
    return _train(_residual_net(3 * [Residual()]))


def test_one_block_listed_three_times_is_named():
    mon = repeated_blocks_run()
    assert "MODULE_REPEATED_IN_CONTAINER" in _codes(mon)
    assert mon.run.observed.repeated_modules == [("2", "Residual", [0, 1, 2], 4)]


def test_three_blocks_built_one_by_one_are_silent():
    mon = _train(_residual_net([Residual() for _ in range(3)]))
    assert "MODULE_REPEATED_IN_CONTAINER" not in _codes(mon)
    assert mon.run.observed.repeated_modules == []


def test_one_activation_object_used_twice_shares_nothing():
    torch.manual_seed(0)
    act = nn.ReLU()
    model = nn.Sequential(nn.Linear(64, 32), act, nn.Linear(32, 32), act, nn.Linear(32, 10))
    assert "MODULE_REPEATED_IN_CONTAINER" not in _codes(_train(model))


class LoopedBlock(nn.Module):
    """Weights shared on purpose: one block, called three times in a loop."""

    def __init__(self):
        super().__init__()
        self.stem, self.block, self.head = nn.Linear(64, 32), Residual(), nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        for _ in range(3):
            x = self.block(x)
        return self.head(x)


def test_a_block_called_in_a_loop_on_purpose_is_silent():
    torch.manual_seed(0)
    assert "MODULE_REPEATED_IN_CONTAINER" not in _codes(_train(LoopedBlock()))


# --- LINEAR_LAYERS_STACKED (rules/stacked_linears.py, monitor/stacked_linears.py) ---
def stacked_head_run():
    """``fc2(fc1(x))`` with no activation between (nuscenes-devkit#728)."""
    torch.manual_seed(0)
    return _train(nn.Sequential(nn.Linear(64, 128), nn.Linear(128, 10)))


def test_two_linear_layers_without_activation_are_named():
    mon = stacked_head_run()
    assert "LINEAR_LAYERS_STACKED" in _codes(mon)
    assert mon.run.observed.stacked_linears[0][1:] == ("0", "1", 64, 128, 10, True)


def test_a_relu_between_them_is_silent():
    torch.manual_seed(0)
    mon = _train(nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)))
    assert "LINEAR_LAYERS_STACKED" not in _codes(mon)
    assert mon.run.observed.stacked_linears == []


def test_an_in_place_relu_between_them_is_silent():
    """ReLU(inplace=True) hands the next layer fc1's own tensor, changed in place."""
    torch.manual_seed(0)
    mon = _train(nn.Sequential(nn.Linear(64, 128), nn.ReLU(inplace=True), nn.Linear(128, 10)))
    assert "LINEAR_LAYERS_STACKED" not in _codes(mon)


class LowRankAdapter(nn.Module):
    """LoRA's B(A(x)) beside a base layer: a rank-4 factorisation on purpose."""

    def __init__(self):
        super().__init__()
        self.base = nn.Linear(64, 64)
        self.down, self.up = nn.Linear(64, 4, bias=False), nn.Linear(4, 64, bias=False)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(torch.relu(self.base(x) + self.up(self.down(x))))


def test_a_low_rank_factorisation_is_silent():
    torch.manual_seed(0)
    mon = _train(LowRankAdapter())
    assert mon.run.observed.stacked_linears          # the pair is seen ...
    assert "LINEAR_LAYERS_STACKED" not in _codes(mon)   # ... and left alone (rank 4)


def test_a_linear_probe_on_a_frozen_projection_is_silent():
    torch.manual_seed(0)
    projection = nn.Linear(64, 32)
    projection.requires_grad_(False)
    mon = _train(nn.Sequential(projection, nn.Linear(32, 10)))
    assert "LINEAR_LAYERS_STACKED" not in _codes(mon)


# --- INIT_SCALE_TOO_LARGE (rules/init_scale.py) ---
def _mlp_initialised(init, norm=False):
    torch.manual_seed(0)
    layers = [nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
              nn.Linear(128, 10)]
    if norm:
        layers = [nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 128),
                  nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 10), nn.BatchNorm1d(10)]
    model = nn.Sequential(*layers)
    with torch.no_grad():
        for layer in model:
            if isinstance(layer, nn.Linear):
                init(layer.weight)
    return model


def test_std_passed_as_the_mean_is_named():
    """normal_(w, 0.02): N(mean 0.02, std 1) (aiUIUC/pyAIUtils#25)."""
    mon = _train(_mlp_initialised(lambda w: nn.init.normal_(w, 0.02)))
    assert "INIT_SCALE_TOO_LARGE" in _codes(mon)


def test_std_in_its_place_is_silent():
    mon = _train(_mlp_initialised(lambda w: nn.init.normal_(w, 0.0, 0.02)))
    assert "INIT_SCALE_TOO_LARGE" not in _codes(mon)


def test_he_initialisation_is_silent():
    mon = _train(_mlp_initialised(lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu")))
    assert "INIT_SCALE_TOO_LARGE" not in _codes(mon)


def test_wide_weights_under_batch_norm_start_at_chance_and_are_silent():
    """N(0, 1) weights, each layer followed by a batch norm: the scale never reaches the
    logits (the first loss is near ln(10))."""
    mon = _train(_mlp_initialised(lambda w: nn.init.normal_(w, 0.0, 1.0), norm=True))
    assert "INIT_SCALE_TOO_LARGE" not in _codes(mon)


def test_the_rules_say_nothing_on_an_empty_run():
    codes = {f.code for f in rules.diagnose(RunRecord())}
    assert not codes & {"MODULE_REPEATED_IN_CONTAINER", "LINEAR_LAYERS_STACKED",
                        "INIT_SCALE_TOO_LARGE"}


def test_raw_range_inputs_are_not_taken_for_a_wide_initialisation():
    """Inputs in [-1024, 1024] under the default init (mlmed/torchxrayvision#9's range): the
    first loss is far above chance and the first SGD update blows the classifier's weights
    up, but the weights before it were ordinary (the rule reads the norm less the update):
    UNNORMALIZED_INPUTS's run, not this rule's."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(32 * 4 * 4, 10))
    x, y = classification(images=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x * 2048 - 1024, y, 40):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert mon.run.losses[0] > 3 * 2.303                # the loss did start far above chance
    assert "INIT_SCALE_TOO_LARGE" not in _codes(mon)
