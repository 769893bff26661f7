"""Real-bug batch 30 (text-classification pipelines): a vocabulary looked up with text
normalised otherwise than when it was built, so most words come out as the unknown id
(UNKNOWN_ID_DOMINATES_INPUTS). Healthy text - words, characters, batches padded with an
undeclared padding id - stays silent."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import vocabulary_lowercased_inputs_not as lowercased  # noqa: E402
from benchmarks.real_bugs._common import padded_lines  # noqa: E402
from nndebug.monitor.token_id_shares import commonest_id_share  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "UNKNOWN_ID_DOMINATES_INPUTS"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train_on_ids(ids, labels, vocabulary, steps=12, padding_idx=None):
    """Embedding, mean pooling and a linear head on rows of ``ids``."""
    torch.manual_seed(0)
    model = nn.Sequential()
    embed = nn.Embedding(vocabulary, 16, padding_idx=padding_idx)
    head = nn.Linear(16, int(labels.max()) + 1)
    model.add_module("embed", embed)
    model.add_module("head", head)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            index = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(head(embed(ids[index]).mean(1)), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_cased_words_read_against_a_lower_cased_vocabulary_are_named():
    assert CODE in _problems(lowercased.run(steps=20))


def test_the_same_words_lower_cased_first_are_silent():
    assert not _problems(lowercased.run(fixed=True, steps=20)) & {CODE}


def test_characters_padded_without_a_declared_padding_id_are_silent():
    """The sonnets' lines padded with id 0 at their ends (nearly half the ids of a batch),
    no padding_idx declared: padding sits at the rows' ends, not between words."""
    ids, vocabulary = padded_lines()
    labels = (ids[:, 0] % 2).long()
    mon = _train_on_ids(ids, labels, vocabulary)
    assert mon.run.observed.token_id_shares                     # the lookups were read
    assert not _problems(mon) & {CODE}


def test_left_padded_words_are_silent():
    """Pre-padding (Keras' default) puts the padding at the rows' starts: still padding."""
    ids, vocabulary = padded_lines()
    lengths = (ids != 0).sum(1)
    left = torch.zeros_like(ids)
    for row, n in enumerate(lengths.tolist()):
        left[row, ids.shape[1] - n:] = ids[row, :n]
    labels = (left[:, -1] % 2).long()
    assert not _problems(_train_on_ids(left, labels, vocabulary)) & {CODE}


def test_an_unknown_id_between_words_is_told_from_padding_at_the_ends():
    unknown = np.array([[5, 1, 1, 7, 1, 1, 1, 9]] * 4)
    padded = np.array([[5, 6, 7, 0, 0, 0, 0, 0]] * 4)
    common, share, inner, counted = commonest_id_share(unknown)
    assert common == 1 and share == 5 / 8 and inner == 1.0 and counted == 32
    common, share, inner, _ = commonest_id_share(padded)
    assert common == 0 and share == 5 / 8 and inner == 0.0
    assert commonest_id_share(padded, padding_idx=0) is None     # declared: not counted
