"""BATCH_MIXING when the labels settle which axis is the batch (real-bug batch 289,
jojonki/BiDAF#1): a recurrent layer built without ``batch_first=True`` and fed (batch, time)
rows runs along the batch with its time axis independent - the very look of sequence-first
data, which the mixing probe excuses. One label per row of dimension 0 says dimension 0 is
the batch, so the mix is reported; sequence-first data, whose labels pair with dimension 1,
are still excused, and a batch-first model is silent.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.probes.dependencies import one_label_per_row_of_dim0  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
BATCH, TIME, VOCAB = 12, 7, 30


class Tagger(nn.Module):
    """Token ids -> one score per position (a span-start head), through an LSTM."""

    def __init__(self, batch_first):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8)
        self.lstm = nn.LSTM(8, 8, batch_first=batch_first)
        self.head = nn.Linear(8, 1)

    def forward(self, ids):
        states, _ = self.lstm(self.embed(ids))
        return self.head(states).squeeze(-1)


def _ids(*shape):
    return torch.randint(1, VOCAB, shape, generator=torch.Generator().manual_seed(0))


def _mixing(result):
    return [f for f in result.findings if f.code == "BATCH_MIXING" and f.severity != "info"]


def test_an_lstm_without_batch_first_fed_batch_major_rows_is_named_with_per_row_labels():
    torch.manual_seed(0)
    starts = torch.randint(0, TIME, (BATCH,))
    result = nd.check_dependencies(Tagger(batch_first=False), _ids(BATCH, TIME),
                                   targets=starts)
    found = _mixing(result)
    assert found and "lstm" in found[0].where


def test_without_labels_the_same_model_is_read_as_sequence_first_data():
    torch.manual_seed(0)
    result = nd.check_dependencies(Tagger(batch_first=False), _ids(BATCH, TIME))
    assert not _mixing(result)
    assert any("sequence-first" in note for note in result.notes)


def test_sequence_first_data_with_one_label_per_sample_stay_excused():
    torch.manual_seed(0)
    labels = torch.randint(0, 2, (BATCH,))          # pairs with dimension 1 of (T, B)
    result = nd.check_dependencies(Tagger(batch_first=False), _ids(TIME, BATCH),
                                   targets=labels)
    assert not _mixing(result)


def test_a_batch_first_model_is_silent():
    torch.manual_seed(0)
    starts = torch.randint(0, TIME, (BATCH,))
    result = nd.check_dependencies(Tagger(batch_first=True), _ids(BATCH, TIME),
                                   targets=starts)
    assert not _mixing(result)


class _Batch:
    def __init__(self, x):
        self.x = x


@pytest.mark.parametrize("x_shape, y_shape, expected", [
    ((12, 7), (12,), True),          # (B, T) with a label per row of dim 0
    ((7, 12), (12,), False),         # (T, B) with a label per sample: dim 1
    ((12, 12), (12,), False),        # square: nothing settles it
    ((12, 7), (12, 7), False),       # per-position labels: ambiguous
    ((12,), (12,), False),           # no second axis
])
def test_which_label_shapes_settle_it(x_shape, y_shape, expected):
    assert one_label_per_row_of_dim0(_Batch(np.zeros(x_shape)), np.zeros(y_shape)) == expected
    assert one_label_per_row_of_dim0(_Batch(np.zeros(x_shape)), None) is False
