"""Real-bug batch 264 (bag-of-words and EmbeddingBag text classifiers): an nn.EmbeddingBag
given padded 2-D rows without a padding_idx pools the padding into every bag
(PADDING_NOT_MASKED, read from the bag's first training lookups). The planted case is the
benchmark's; the same rows with padding_idx declared, the unpadded ids as a flat stream
with offsets, an nn.Embedding over padded rows (masked elsewhere, by the loss or a mean
over the real positions), and a flat stream made entirely of one id stay silent of it.
Torch only: minigrad has no EmbeddingBag."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import embeddingbag_mean_over_padded_rows_counts_padding as padded_bag  # noqa: E402,E501
from benchmarks.real_bugs._bow import BagClassifier, documents, flat, padded  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(model, batch, steps=12):
    """Adam on cross-entropy; ``batch(index)`` gives the model's input arguments."""
    torch.manual_seed(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            index = torch.randint(0, 400, (32,))
            optimizer.zero_grad()
            args, labels = batch(index)
            loss = nn.functional.cross_entropy(model(*args), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _bag_run(padding_idx=None, as_stream=False, mode="mean"):
    torch.manual_seed(0)
    docs, y = documents(400, topical=0.2, min_len=2)
    ids = padded(docs, 120)
    model = BagClassifier(padding_idx=padding_idx)
    model.embedding.mode = mode

    def batch(index):
        if as_stream:
            return flat([docs[i] for i in index.tolist()]), y[index]
        return (ids[index],), y[index]
    return _train(model, batch)


class MeanOverPositions(nn.Module):
    """nn.Embedding over padded rows, averaged over the real positions only."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(400, 16)
        self.fc = nn.Linear(16, 4)

    def forward(self, ids):
        mask = (ids != 0).float()[..., None]
        return self.fc((self.embedding(ids) * mask).sum(1) / mask.sum(1).clamp(min=1))


def test_planted_padded_bag_is_named():
    mon = padded_bag.run(steps=30)
    assert "PADDING_NOT_MASKED" in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == "PADDING_NOT_MASKED")
    assert finding.evidence["pad_id"] == 0 and finding.where == "embedding"


def test_padded_bag_in_sum_mode_is_named():
    assert "PADDING_NOT_MASKED" in _problems(_bag_run(mode="sum"))


def test_fixed_twin_is_silent():
    assert "PADDING_NOT_MASKED" not in _problems(padded_bag.run(fixed=True, steps=30))


def test_declared_padding_idx_is_silent():
    assert "PADDING_NOT_MASKED" not in _problems(_bag_run(padding_idx=0))


def test_flat_stream_with_offsets_is_silent():
    assert "PADDING_NOT_MASKED" not in _problems(_bag_run(as_stream=True))


def test_embedding_over_padded_rows_is_left_to_the_loss_side():
    torch.manual_seed(0)
    docs, y = documents(400, topical=0.2, min_len=2)
    ids = padded(docs, 120)
    mon = _train(MeanOverPositions(), lambda index: ((ids[index],), y[index]))
    assert "PADDING_NOT_MASKED" not in _problems(mon)


def test_stream_of_one_id_is_no_padding():
    torch.manual_seed(0)
    _, y = documents(400, topical=0.2, min_len=2)
    model = BagClassifier()

    def batch(index):
        text = torch.ones(32 * 20, dtype=torch.int64)        # every word the unknown id 1
        return (text, torch.arange(0, 32 * 20, 20)), y[index]
    assert "PADDING_NOT_MASKED" not in _problems(_train(model, batch))
