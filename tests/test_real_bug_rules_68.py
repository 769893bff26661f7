"""Real-bug batch 68 (metric learning, contrastive, siamese and recommender models): a
negative-sampling loss written as minus a probability (NLL_ON_PROBABILITIES, read off the
loss's graph), cosine similarities given to cross-entropy with no temperature
(SQUASHED_LOGITS, widened to scores in [-1, 1]), a distance's margins read on a cosine
(MARGIN_OUTSIDE_SIMILARITY_RANGE) and sampled negatives drawn from an embedding table's
width (NEGATIVES_FROM_FEW_IDS). The fixed twins stay silent, and so do the look-alikes a
careless rule would flag: a BCE written by hand, a sigmoid gate penalty beside a
cross-entropy, an expected reward, a classifier at a tiny learning rate (logits well inside
[-1, 1]), a margin loss that reaches 0 only after training, a distance-based contrastive
loss, two fields of one shared table, negatives drawn from the full range."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    contrastive_cosine_logits_without_temperature as cosine,
    contrastive_margins_for_distance_on_cosine_similarity as margins,
    lmf_negatives_drawn_from_factor_count as lmf,
    recommender_negative_sampling_loss_without_log as nolog)
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.loss_hinges import LossHinges  # noqa: E402
from nndebug.monitor.maximised_probabilities import probability_reduced_at_root  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


# --- NLL_ON_PROBABILITIES: minus a mean probability ------------------------------------

def test_a_negative_sampling_loss_without_its_log_is_named():
    found = _found(nolog.run(steps=40), "NLL_ON_PROBABILITIES")
    assert found and found[0].evidence["function"] == "sigmoid"
    assert found[0].evidence["reduction"] == "mean"


def test_the_fixed_negative_sampling_loss_is_silent():
    assert "NLL_ON_PROBABILITIES" not in _problems(nolog.run(fixed=True, steps=40))


def _bpr_run(loss_of, steps=30):
    """A factorisation trained on (user, bought, not bought) triples with ``loss_of(u, p, n)``."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    pairs, bought = nolog.purchases(generator)
    model = nolog.Factorisation()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            batch = pairs[torch.randint(0, len(pairs), (64,), generator=generator)]
            user, positive = batch[:, 0], batch[:, 1]
            negative = torch.multinomial((~bought[user]).float(), 1,
                                         generator=generator).squeeze(1)
            optimizer.zero_grad()
            loss = loss_of(model(user, positive), model(user, negative))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_bpr_as_one_minus_sigmoid_is_named():
    # maciejkula/spotlight#185: loss = (1 - sigmoid(positive - negative)).mean()
    mon = _bpr_run(lambda p, n: (1.0 - torch.sigmoid(p - n)).mean())
    assert _found(mon, "NLL_ON_PROBABILITIES")


def test_bpr_with_its_log_is_silent():
    mon = _bpr_run(lambda p, n: -F.logsigmoid(p - n).mean())
    assert "NLL_ON_PROBABILITIES" not in _problems(mon)


def test_a_bce_written_by_hand_is_silent():
    def bce(p, n):
        return -(torch.log(torch.sigmoid(p) + 1e-7) + torch.log(1 - torch.sigmoid(n) + 1e-7)).mean()
    assert "NLL_ON_PROBABILITIES" not in _problems(_bpr_run(bce))


def test_a_sigmoid_gate_penalty_beside_a_cross_entropy_is_silent():
    class Gated(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Parameter(torch.zeros(64))
            self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

        def forward(self, x):
            return self.body(x * torch.sigmoid(self.gate))

    torch.manual_seed(0)
    x, y = classification()
    model = Gated()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 40):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb) + 0.01 * torch.sigmoid(model.gate).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "NLL_ON_PROBABILITIES" not in _problems(mon)


def test_the_graph_walk_tells_a_probability_maximised_from_its_look_alikes():
    s = torch.randn(8, requires_grad=True) * 2
    logits = torch.randn(4, 5, requires_grad=True)
    target = torch.tensor([[0], [1], [2], [3]])
    assert probability_reduced_at_root((-torch.sigmoid(s).mean()).grad_fn) == \
        ("sigmoid", "mean", -1)
    assert probability_reduced_at_root((-torch.sigmoid(s).sum() * 0.5).grad_fn) == \
        ("sigmoid", "sum", -1)
    assert probability_reduced_at_root(
        (-F.softmax(logits, 1).gather(1, target).mean()).grad_fn) == ("softmax", "mean", -1)
    assert probability_reduced_at_root(torch.sigmoid(s).mean().grad_fn)[2] == 1   # minimised
    # not a likelihood: a log on top, a square, a weighted expected reward, a sum of terms
    assert probability_reduced_at_root((-F.logsigmoid(s).mean()).grad_fn) is None
    assert probability_reduced_at_root(((torch.sigmoid(s) - 1) ** 2).mean().grad_fn) is None
    reward = torch.rand(4, 5)
    assert probability_reduced_at_root(
        (-(F.softmax(logits, 1) * reward).sum(1).mean()).grad_fn) is None
    assert probability_reduced_at_root(
        (-torch.sigmoid(s).mean() + (logits ** 2).mean()).grad_fn) is None


# --- SQUASHED_LOGITS: cosines as logits --------------------------------------------------

def test_cosine_logits_without_a_temperature_are_named():
    found = _found(cosine.run(), "SQUASHED_LOGITS")
    assert found and found[0].evidence["input_max"] <= 1.001
    assert found[0].evidence["input_min"] >= -1.001
    assert found[0].evidence["classes"] == 64


def test_cosine_logits_with_a_temperature_are_silent():
    assert "SQUASHED_LOGITS" not in _problems(cosine.run(fixed=True))


class _TwoTowers(nn.Module):
    """A CLIP-like pair of encoders: the digits' top half and bottom half as two modalities."""
    def __init__(self):
        super().__init__()
        self.top = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
        self.bottom = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))

    def forward(self, x):
        return F.normalize(self.top(x[:, :32]), dim=1), F.normalize(self.bottom(x[:, 32:]), dim=1)


def _two_tower_run(temperature, steps=300):
    torch.manual_seed(0)
    x, y = classification()
    model = _TwoTowers()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            top, bottom = model(xb)
            logits = top @ bottom.T / temperature
            loss = (F.cross_entropy(logits, torch.arange(len(xb))) +
                    F.cross_entropy(logits.T, torch.arange(len(xb)))) / 2
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_two_towers_matched_by_raw_cosines_are_named():
    assert _found(_two_tower_run(temperature=1.0), "SQUASHED_LOGITS")


def test_two_towers_with_a_temperature_are_silent():
    assert "SQUASHED_LOGITS" not in _problems(_two_tower_run(temperature=0.05))


def test_a_cosine_classifier_that_still_learns_is_left_alone():
    """A cosine-softmax head with no scale over ten classes: bounded scores, but the digits
    are still learned (0.95 training accuracy here): no poor learning, no warning."""
    class CosineHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))
            self.classes = nn.Parameter(torch.randn(10, 32))

        def forward(self, x):
            return F.normalize(self.body(x), dim=1) @ F.normalize(self.classes, dim=1).T

    torch.manual_seed(0)
    x, y = classification()
    model = CosineHead()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 300))
    assert "SQUASHED_LOGITS" not in _problems(mon)


def test_a_classifier_at_a_tiny_learning_rate_is_not_taken_for_cosines():
    """Logits of a fresh linear layer sit inside [-1, 1] too, but nowhere near its edge."""
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 200))
    assert "SQUASHED_LOGITS" not in _problems(mon)


def test_a_healthy_classifier_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 200))
    assert not _problems(mon)


# --- MARGIN_OUTSIDE_SIMILARITY_RANGE -----------------------------------------------------

def test_distance_margins_on_a_cosine_are_named():
    mon = margins.run(steps=60)
    found = _found(mon, "MARGIN_OUTSIDE_SIMILARITY_RANGE")
    assert found and found[0].evidence["hinges"] >= 2
    assert mon.findings()[0].code == "MARGIN_OUTSIDE_SIMILARITY_RANGE"   # before NO_GRADIENT


def test_similarity_margins_are_silent():
    assert not _problems(margins.run(fixed=True, steps=60))


def _pair_run(loss_of, steps=80, lr=1e-3):
    torch.manual_seed(0)
    x, y = classification()
    model = margins.embedding_net()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_of(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _pairs(labels):
    same = labels[:, None] == labels[None, :]
    upper = torch.triu(torch.ones_like(same), diagonal=1)
    return same & upper, ~same & upper


def test_a_negative_only_hinge_above_one_on_cosines_is_named():
    """Only negatives, hinged at a cosine of 1.2: never active, the loss 0 from the start."""
    def loss_of(z, labels):
        z = F.normalize(z, dim=1)
        _, negative = _pairs(labels)
        return torch.clamp((z @ z.T)[negative] - 1.2, min=0).mean()
    assert _found(_pair_run(loss_of, steps=30), "MARGIN_OUTSIDE_SIMILARITY_RANGE")


def test_a_distance_contrastive_loss_is_silent():
    """Euclidean distances, margin 1: the loss starts above 0 and trains."""
    def loss_of(z, labels):
        positive, negative = _pairs(labels)
        distance = torch.cdist(z, z)
        return (distance[positive] ** 2).mean() + \
            (torch.relu(1.0 - distance[negative]) ** 2).mean()
    mon = _pair_run(loss_of)
    assert "MARGIN_OUTSIDE_SIMILARITY_RANGE" not in _problems(mon)


def test_a_cosine_margin_loss_that_nears_zero_by_learning_is_silent():
    """Margins on a cosine's scale (positives above 0.7, negatives below 0.5): the loss
    starts well above 0 and is nearly 0 once the classes are apart."""
    def loss_of(z, labels):
        z = F.normalize(z, dim=1)
        positive, negative = _pairs(labels)
        s = z @ z.T
        return torch.relu(0.7 - s[positive]).mean() + torch.relu(s[negative] - 0.5).mean()
    mon = _pair_run(loss_of, steps=200, lr=3e-3)
    _, losses = mon.run.loss_array()
    assert losses[0] > 0.1 and losses[-10:].max() < 0.1 * losses[0]
    assert "MARGIN_OUTSIDE_SIMILARITY_RANGE" not in _problems(mon)


def test_the_hinge_reader_counts_hinges_but_not_the_normalisation_floor():
    observed = Observed()
    reader = LossHinges(observed)
    z = torch.randn(6, 4, requires_grad=True)
    s = F.normalize(z, dim=1) @ F.normalize(z, dim=1).T
    reader.read(0, nodes_under([(torch.relu(s - 1.0).mean()).grad_fn]))
    reader.read(1, nodes_under([F.cross_entropy(s / 0.1, torch.arange(6)).grad_fn]))
    reader.read(2, nodes_under([F.triplet_margin_loss(z[:2], z[2:4], z[4:]).grad_fn]))
    assert observed.loss_hinges == [(0, 1, True), (2, 1, False)]
    assert not reader.wants(3)


# --- NEGATIVES_FROM_FEW_IDS --------------------------------------------------------------

def test_negatives_drawn_from_the_factor_count_are_named():
    found = _found(lmf.run(steps=30), "NEGATIVES_FROM_FEW_IDS")
    assert found and found[0].where == "items"
    assert found[0].evidence["range_end"] == lmf.FACTORS
    assert found[0].evidence["rows"] == lmf.ITEMS


def test_negatives_drawn_from_the_row_count_are_silent():
    assert "NEGATIVES_FROM_FEW_IDS" not in _problems(lmf.run(fixed=True, steps=30))


def _two_lookups_run(negatives_of, steps=10):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    pairs, _ = lmf.purchases(generator)
    model = lmf.Factorisation()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            batch = pairs[torch.randint(0, len(pairs), (128,), generator=generator)]
            user, positive = batch[:, 0], batch[:, 1]
            negative = negatives_of(generator)
            optimizer.zero_grad()
            loss = -(F.logsigmoid(model(user, positive)) +
                     F.logsigmoid(-model(user, negative))).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_implicits_factors_plus_two_bias_columns_is_named():
    # benfred/implicit#747: item_vectors.shape[1] == n_factors + 2
    mon = _two_lookups_run(lambda g: torch.randint(0, lmf.FACTORS + 2, (128,), generator=g))
    assert _found(mon, "NEGATIVES_FROM_FEW_IDS")


def test_a_second_field_in_its_own_small_range_is_silent():
    """Ten ids of a second field in one shared table: narrow, but not ending at the width."""
    mon = _two_lookups_run(lambda g: torch.randint(0, 10, (128,), generator=g))
    assert "NEGATIVES_FROM_FEW_IDS" not in _problems(mon)


def test_a_few_special_ids_are_not_a_drawn_range():
    """Only two ids of the first sixteen, again and again: no draw across the range."""
    mon = _two_lookups_run(lambda g: torch.randint(0, 2, (128,), generator=g) * 15)
    assert "NEGATIVES_FROM_FEW_IDS" not in _problems(mon)


# --- saved runs, hooks ------------------------------------------------------------------

def test_saved_and_loaded_rows_read_back(tmp_path):
    path = tmp_path / "run.nddebug"
    for mon, field in ((nolog.run(steps=5), "maximised_probabilities"),
                       (margins.run(steps=8), "loss_hinges"),
                       (lmf.run(steps=5), "narrow_lookups")):
        mon.save(path)
        saved = getattr(mon.run.observed, field)
        loaded = getattr(nd.load_run(path).run.observed, field)
        assert saved and [list(r) for r in loaded] == [list(r) for r in saved], field
        loaded_codes = {f.code for f in nd.load_run(path).findings()}
        assert {f.code for f in mon.findings()} <= loaded_codes | {"FRAMEWORK_WARNING"}


def test_no_hook_is_left_on_the_embeddings():
    torch.manual_seed(0)
    mon = lmf.run(steps=6)
    for table in (mon.model.users, mon.model.items):
        assert not table._forward_hooks and not table._forward_pre_hooks
