"""Real-bug batch 123 (word embeddings): flat batches of word ids (skip-gram's centre words)
are read for the unknown id too. Sentences split into characters before the vocabulary
look-up send 74% of the centre words to the unknown id (UNKNOWN_ID_DOMINATES_INPUTS); flat
lookups of healthy tables stay silent: Zipf-distributed item ids (a recommender's
popular items), class labels drawn evenly from a table of 100, diffusion timesteps, and a
flat batch too short to read."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import skipgram_sentences_split_into_characters as characters  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "UNKNOWN_ID_DOMINATES_INPUTS"


def _named(mon):
    return [f for f in mon.findings() if f.code == CODE and f.severity in ("warning", "error")]


def test_characters_looked_up_as_words_are_named_and_the_twin_is_silent():
    found = _named(characters.run())
    assert found and found[0].evidence["id"] == 0 and found[0].evidence["share"] > 0.6
    assert not _named(characters.run(fixed=True))


def _flat_lookups(draw_ids, table=1000, steps=12, batch=256):
    """An embedding read with a flat batch of ids and a linear head predicting id % 7."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = nn.Sequential(nn.Embedding(table, 16), nn.Linear(16, 7))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            ids = torch.from_numpy(draw_ids(rng, batch)).long()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids), ids % 7)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("draw_ids", [
    lambda rng, n: np.minimum(rng.zipf(1.2, n) - 1, 999),     # popular items: top ~0.3
    lambda rng, n: rng.integers(0, 100, n),                    # even class labels
    lambda rng, n: rng.integers(0, 1000, n),                   # diffusion timesteps
], ids=["zipf_items", "even_labels", "timesteps"])
def test_healthy_flat_lookups_are_read_and_silent(draw_ids):
    mon = _flat_lookups(draw_ids)
    assert mon.run.observed.token_id_shares                       # the lookups were read
    assert max(row[3] for row in mon.run.observed.token_id_shares) < 0.5
    assert not _named(mon)


def test_a_flat_batch_dominated_by_one_id_is_named():
    mon = _flat_lookups(lambda rng, n: np.where(rng.random(n) < 0.7, 1, rng.integers(2, 1000, n)))
    assert _named(mon)


def test_short_flat_batches_are_not_read():
    # 90% one id, not all of them: a batch where EVERY id is one and the same is a column
    # that reaches the model as one vector, which batch 273's categorical reading names
    # whatever the batch's length (monitor/token_id_shares.py CategoryIdShares)
    mon = _flat_lookups(lambda rng, n: np.where(rng.random(n) < 0.9, 1,
                                                rng.integers(2, 1000, n)), batch=16)
    assert mon.run.observed.token_id_shares == [] and not _named(mon)
