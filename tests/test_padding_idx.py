"""PADDING_IDX_ON_REAL_IDS: an embedding's padding_idx on ids given one per example (nothing
to pad), on both frameworks; padded sequences, and a padding id that never occurs, stay
silent."""
import numpy as np
import pytest

import nndebug as nd


def _train(framework, ids_shape, padding_idx=0, steps=12, vocab=4):
    rng = np.random.default_rng(0)
    if framework == "torch":
        torch = pytest.importorskip("torch")
        torch.manual_seed(0)
        nn, tensor = torch.nn, torch.from_numpy
        make_opt = torch.optim.SGD
    else:
        import minigrad as mg
        mg.manual_seed(0)
        nn, tensor, make_opt = mg.nn, mg.tensor, mg.optim.SGD

    class Scorer(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Embedding(vocab, 8, padding_idx=padding_idx)
            self.head = nn.Linear(8, 3)

        def forward(self, ids):
            vectors = self.table(ids)
            if len(ids_shape) == 2 and ids_shape[1] > 1:
                vectors = vectors.mean(1)          # a bag of the sequence's tokens
            return self.head(vectors.reshape(ids_shape[0], 8))

    model = Scorer()
    optimizer = make_opt(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            ids = rng.integers(1 if padding_idx == vocab - 1 else 0,
                               vocab - (padding_idx == vocab - 1), ids_shape)
            if len(ids_shape) == 2 and ids_shape[1] > 1:
                ids[:, ids_shape[1] // 2:] = padding_idx       # padded tails
            y = rng.integers(0, 3, ids_shape[0])
            optimizer.zero_grad()
            loss = loss_fn(model(tensor(ids)), tensor(y))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("shape", [(32,), (32, 1)], ids=["(B,)", "(B, 1)"])
def test_a_padding_id_among_one_id_per_example_is_named(framework, shape):
    found = _train(framework, shape)
    assert "PADDING_IDX_ON_REAL_IDS" in found, sorted(found)
    evidence = found["PADDING_IDX_ON_REAL_IDS"].evidence
    assert evidence["padding_idx"] == 0 and evidence["padding_ids"] > 0


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_padded_sequences_and_an_unused_padding_id_stay_silent(framework):
    assert "PADDING_IDX_ON_REAL_IDS" not in _train(framework, (16, 10))
    assert "PADDING_IDX_ON_REAL_IDS" not in _train(framework, (32,), padding_idx=3)
