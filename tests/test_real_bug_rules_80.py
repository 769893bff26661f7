"""Real-bug batch 80 (weight initialisation in practice): every weight set to one constant
(SYMMETRIC_INIT: units that stay copies), layer-norm gains drawn from N(0, 0.02) by an
``apply(init)`` (NORM_GAIN_INITIALISED_NEAR_ZERO), a token table zeroed whole by
``weight[None]`` (EMBEDDING_INIT_ZERO). The fixed twins stay silent, and so do the healthy
look-alikes a careless rule would flag: a zero-initialised head (equal rows that part at the
first step), a frozen constant layer, exactly-zero norm gains at the end of residual blocks
(zero_init_residual), default layer norms, a zero width-1 bias table beside a random factor
table."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import embedding_zeroed_when_padding_idx_is_none as zero_table  # noqa: E402
from benchmarks.real_bugs import layernorm_gain_drawn_from_init_normal as ln_gain  # noqa: E402
from benchmarks.real_bugs import weights_initialised_to_one_constant as constant  # noqa: E402
from benchmarks.real_bugs._common import batches, characters, classification, \
    next_character_batches, next_id_loss, train_watched  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODES = ("SYMMETRIC_INIT", "NORM_GAIN_INITIALISED_NEAR_ZERO", "EMBEDDING_INIT_ZERO")


def _found(mon, code, severities=PROBLEMS):
    return [f for f in mon.findings() if f.code == code and f.severity in severities]


def _ours(mon):
    return [f.code for f in mon.findings() if f.code in CODES]


def _digits(model, steps, optimizer=None, lr=1e-3):
    torch.manual_seed(1)
    x, y = classification()
    optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=lr)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps))


# --- SYMMETRIC_INIT ---------------------------------------------------------------------

def test_every_weight_one_constant_is_named_on_the_hidden_layer():
    found = _found(constant.run(), "SYMMETRIC_INIT")
    assert found and found[0].where == "0"
    assert list(found[0].evidence["weights"]) == ["0.weight"]   # the head's rows parted


def test_a_constant_relu_mlp_under_adam_is_named_too():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                          nn.Linear(32, 10))
    for m in model:
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.05)
            nn.init.zeros_(m.bias)
    found = _found(_digits(model, 150), "SYMMETRIC_INIT")
    assert found and set(found[0].evidence["weights"]) >= {"0.weight", "2.weight"}


def test_a_zero_initialised_head_is_not_named():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    nn.init.zeros_(model[2].weight)
    nn.init.zeros_(model[2].bias)
    mon = _digits(model, 100)
    assert mon.run.observed.identical_units     # it started with equal rows ...
    assert "SYMMETRIC_INIT" not in _ours(mon)   # ... that parted at once


def test_a_frozen_constant_layer_is_not_named():
    torch.manual_seed(0)
    smooth = nn.Linear(64, 64, bias=False)
    nn.init.constant_(smooth.weight, 1 / 64)
    smooth.weight.requires_grad_(False)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), smooth, nn.Linear(64, 10))
    assert "SYMMETRIC_INIT" not in _ours(_digits(model, 60))


# --- NORM_GAIN_INITIALISED_NEAR_ZERO -----------------------------------------------------

def test_layer_norm_gains_drawn_like_weights_are_named():
    found = _found(ln_gain.run(), "NORM_GAIN_INITIALISED_NEAR_ZERO")
    assert found and found[0].where == "1"
    assert set(found[0].evidence["gain_rms"]) == {"1", "4"}


def test_batch_norm_gains_drawn_from_a_small_normal_are_named():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(),
                          nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 10))
    for m in model:
        if isinstance(m, nn.BatchNorm1d):
            nn.init.normal_(m.weight, 0.0, 0.02)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    assert _found(_digits(model, 80, optimizer=opt), "NORM_GAIN_INITIALISED_NEAR_ZERO")


class _Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1, self.norm1 = nn.Linear(width, width), nn.LayerNorm(width)
        self.fc2, self.norm2 = nn.Linear(width, width), nn.LayerNorm(width)
        nn.init.zeros_(self.norm2.weight)          # zero_init_residual: on purpose

    def forward(self, x):
        return x + self.norm2(self.fc2(torch.relu(self.norm1(self.fc1(x)))))


def test_exactly_zero_gains_closing_residual_blocks_are_not_named():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), _Block(64), _Block(64), nn.Linear(64, 10))
    assert "NORM_GAIN_INITIALISED_NEAR_ZERO" not in _ours(_digits(model, 80))


def test_default_layer_norms_are_not_named():
    assert not _ours(ln_gain.run(fixed=True, steps=60))


# --- EMBEDDING_INIT_ZERO ------------------------------------------------------------------

def test_a_token_table_zeroed_whole_is_named():
    found = _found(zero_table.run(), "EMBEDDING_INIT_ZERO")
    assert found and found[0].where == "embed"


class _LstmLM(nn.Module):
    def __init__(self, vocab, zero):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        if zero:
            nn.init.zeros_(self.embed.weight)
        self.rnn = nn.LSTM(32, 64, batch_first=True)
        self.out = nn.Linear(64, vocab)

    def forward(self, ids):
        return self.out(self.rnn(self.embed(ids))[0])


@pytest.mark.parametrize("zero", [True, False])
def test_an_lstm_language_model_with_a_zero_table(zero):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = _LstmLM(vocab, zero)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, opt, next_id_loss, next_character_batches(ids, 120, length=24))
    assert bool(_found(mon, "EMBEDDING_INIT_ZERO")) == zero


class _Factorisation(nn.Module):
    def __init__(self, users, items):
        super().__init__()
        self.user, self.item = nn.Embedding(users, 8), nn.Embedding(items, 8)
        self.user_bias = nn.Embedding(users, 1)
        nn.init.zeros_(self.user_bias.weight)       # a per-id bias: zero on purpose

    def forward(self, pairs):
        u, i = pairs[:, 0], pairs[:, 1]
        return (self.user(u) * self.item(i)).sum(1) + self.user_bias(u).squeeze(1)


def test_a_zero_bias_table_beside_random_factors_is_not_named():
    torch.manual_seed(0)
    users, items = 50, 40
    true_u, true_i = torch.randn(users, 4), torch.randn(items, 4)
    pairs = torch.stack([torch.randint(0, users, (2000,)), torch.randint(0, items, (2000,))], 1)
    ratings = (true_u[pairs[:, 0]] * true_i[pairs[:, 1]]).sum(1)
    model = _Factorisation(users, items)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = train_watched(model, opt, nn.MSELoss(), batches(pairs, ratings, 100))
    assert "EMBEDDING_INIT_ZERO" not in _ours(mon)


# --- the observer ---------------------------------------------------------------------------

def test_identical_units_rows_survive_save_and_load(tmp_path):
    import nndebug as nd
    mon = constant.run(steps=30)
    mon.findings()
    path = str(tmp_path / "run.nndebug")
    mon.save(path)
    rows = nd.load_run(path).run.observed.identical_units
    assert [list(r) for r in rows] == [list(r) for r in mon.run.observed.identical_units]
    assert rows and rows[0][0] == "0.weight"
