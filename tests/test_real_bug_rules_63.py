"""Real-bug batch 63 (embeddings and categorical inputs): CATEGORY_CODES_AS_ONE_NUMBER,
CATEGORICAL_FIELDS_SHARE_ROWS, EMBEDDING_ROWS_MISALIGNED_WITH_IDS (``rules/
categorical_inputs.py``) and FROZEN_PARAMETERS widened to frozen tables that hide what
their ids tell (``rules/structure.py``), all read from ``monitor/categorical_inputs.py``.

Each is named on its planted case (datascience.stackexchange.com/questions/3811,
Prayforhanluo/CTR_Algorithm#2, fchollet/deep-learning-with-python-notebooks#145,
roypan/CS224n#1) and on a variant, and silent on the fixed twins and on set-ups that look
alike and are fine: an ordinal code whose effect is monotone, a code column without effect,
digit pixels as numbers; fields with correct offsets, token sequences, a shared vocabulary
over several columns; a frozen table written at the right ids; a frozen random table
(FROZEN_PARAMETERS' own, fresh-looking case: not a misalignment).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import field_offsets_from_max_ids_overlap as fields_case  # noqa: E402
from benchmarks.real_bugs import glove_rows_ignore_reserved_id_offset as glove_case  # noqa: E402
from benchmarks.real_bugs import pretrained_word_vectors_never_fine_tuned as frozen_case  # noqa: E402,E501
from benchmarks.real_bugs import weekday_code_scaled_as_one_input as weekday_case  # noqa: E402
from benchmarks.real_bugs._common import batches, regression  # noqa: E402
from nndebug.monitor.categorical_inputs import (code_columns, field_ranges,  # noqa: E402
                                                probe_table)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODES, FIELDS, ROWS, FROZEN = ("CATEGORY_CODES_AS_ONE_NUMBER", "CATEGORICAL_FIELDS_SHARE_ROWS",
                               "EMBEDDING_ROWS_MISALIGNED_WITH_IDS", "FROZEN_PARAMETERS")
OURS = {CODES, FIELDS, ROWS}


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


# --- the planted cases and their twins -----------------------------------------------------

@pytest.mark.parametrize("case, code", [(weekday_case, CODES), (fields_case, FIELDS),
                                        (glove_case, ROWS), (frozen_case, FROZEN)])
def test_planted_case_named_and_twin_silent(case, code):
    assert code in _codes(case.run())
    assert not _codes(case.run(fixed=True))


# --- category codes as one number ----------------------------------------------------------

def _tabular(code_column, effect, steps=150, one_hot=False, seed=0):
    """Digits' value (standardised) + effect[code] as the target; the inputs the pixels and
    the code column (scaled to [0, 1], or one-hot)."""
    torch.manual_seed(seed)
    x, y = regression()
    k = len(effect)
    effect = torch.tensor(effect)
    generator = torch.Generator().manual_seed(seed)
    width = 64 + (k if one_hot else 1)
    model = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            code = torch.randint(0, k, (len(xb),), generator=generator)
            column = F.one_hot(code, k).float() if one_hot else \
                code_column(code.float() / (k - 1)).unsqueeze(1)
            optimizer.zero_grad()
            loss = F.mse_loss(model(torch.cat([xb, column], 1)).squeeze(1), yb + effect[code])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_month_code_in_no_order_named():
    months = [0.8, -1.1, 1.4, 0.2, -1.3, 1.0, -0.4, 1.2, -0.9, 0.3, -1.2, 0.6]
    assert CODES in _codes(_tabular(lambda c: c, months))


def test_code_column_centred_to_minus_one_one_named():
    week = [1.2, -1.0, 0.9, -1.2, 0.1, 1.3, -0.8]
    assert CODES in _codes(_tabular(lambda c: 2 * c - 1, week))


def test_monotone_ordinal_code_silent():
    assert CODES not in _codes(_tabular(lambda c: c, [-1.5, -0.8, 0.0, 0.7, 1.6]))


def test_code_without_effect_silent():
    assert CODES not in _codes(_tabular(lambda c: c, [0.0] * 5))


def test_same_codes_one_hot_silent():
    assert CODES not in _codes(_tabular(None, [1.2, -1.0, 0.9, -1.2, 0.1], one_hot=True))


def test_code_columns_unit():
    rng = np.random.default_rng(0)
    code = rng.integers(0, 5, 400)
    x = np.stack([code / 4.0, rng.normal(size=400), (rng.random(400) < 0.1) * 1.0], 1)
    effect = np.array([1.0, -1.0, 1.0, -1.0, 0.0])
    rows = code_columns(x, effect[code] + 0.1 * rng.normal(size=400))
    assert [r[0] for r in rows] == [0] and rows[0][1] == 5 and rows[0][6] > 0.8
    # a column whose values have a gap (0, 1, 3, 4) is not a code column
    gapped = np.where(code == 2, 3, code) / 4.0
    assert code_columns(np.stack([gapped], 1), effect[code]) == []
    # pixel-like intensities: 0 in most rows, a few rare values
    pixels = np.where(rng.random(400) < 0.8, 0, rng.integers(1, 6, 400)) / 16.0
    assert code_columns(np.stack([pixels], 1), rng.normal(size=400)) == []


# --- categorical fields sharing rows -------------------------------------------------------

def test_field_ranges_unit():
    rng = np.random.default_rng(0)
    sizes = [3, 2, 4]
    fields = np.stack([rng.integers(n, size=64) for n in sizes], 1)
    right = fields + np.array([0, 3, 5])
    wrong = fields + np.array([0, 2, 3])          # offsets from the largest ids
    assert field_ranges(right)[3] == 0
    assert field_ranges(wrong)[3] == 2 and field_ranges(wrong)[4] == 0
    tokens = rng.integers(1, 500, size=(64, 12))  # a shared vocabulary: overlapping columns
    assert field_ranges(tokens) is None or field_ranges(tokens)[3] == 0
    assert field_ranges(np.tile(np.arange(12), (64, 1))) is None   # position ids


class DeepFields(nn.Module):
    """Field embeddings concatenated into an MLP (a DeepFM's deep part)."""

    def __init__(self, rows, offsets, fields):
        super().__init__()
        self.register_buffer("offsets", torch.as_tensor(offsets))
        self.table = nn.Embedding(rows, 8)
        self.mlp = nn.Sequential(nn.Linear(8 * fields, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, ids):
        return self.mlp(self.table(ids + self.offsets).flatten(1)).squeeze(1)


def _fields_run(offsets_from_max, steps=60):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    fields, clicked = fields_case.clicks(2000, rng)
    sizes = fields.max(0).values.numpy() + (0 if offsets_from_max else 1)
    offsets = np.array((0, *np.cumsum(sizes)[:-1]))
    model = DeepFields(int(sizes.sum()) + 1, offsets, fields.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(len(fields), size=64))
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(fields[rows]), clicked[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_deep_fields_with_overlapping_offsets_named_and_right_ones_silent():
    assert FIELDS in _codes(_fields_run(True))
    assert FIELDS not in _codes(_fields_run(False))


class RecentItems(nn.Module):
    """The last 6 items a user saw, one shared item table (a shared vocabulary)."""

    def __init__(self):
        super().__init__()
        self.items = nn.Embedding(200, 16)
        self.head = nn.Linear(16, 1)

    def forward(self, ids):
        return self.head(self.items(ids).mean(1)).squeeze(1)


def test_shared_vocabulary_columns_silent():
    torch.manual_seed(0)
    ids = torch.randint(0, 200, (1000, 6))
    target = (ids % 2).float().mean(1)
    model = RecentItems()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(40):
            rows = torch.randint(0, 1000, (64,))
            optimizer.zero_grad()
            loss = F.mse_loss(model(ids[rows]), target[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _codes(mon) & OURS


# --- frozen tables: misaligned rows, hidden ids --------------------------------------------

def test_probe_table_unit_shift():
    """Rows of three kinds at random places; each sample pools 5 rows of its label's kind.
    Rolled by two rows, the table fits the ids only once they move by -2."""
    rng = np.random.default_rng(0)
    kinds = rng.integers(0, 3, 60)
    table = rng.normal(size=(3, 8))[kinds] * 2 + 0.3 * rng.normal(size=(60, 8))
    labels = rng.integers(0, 3, 200)
    members = [np.nonzero(kinds[8:52] == k)[0] + 8 for k in range(3)]
    ids = np.stack([rng.choice(members[y], 5) for y in labels])
    aligned = probe_table(table, [(ids, labels, -100)], None)
    assert aligned[2] > 0.9 and aligned[4] < aligned[2] + 0.3
    moved = probe_table(np.roll(table, -2, axis=0), [(ids, labels, -100)], None)
    assert moved[3] == -2 and moved[4] > moved[2] + 0.3


class Tagger(nn.Module):
    def __init__(self, matrix):
        super().__init__()
        self.embed = nn.Embedding.from_pretrained(matrix, freeze=True, padding_idx=0)
        self.out = nn.Sequential(nn.Linear(matrix.shape[1], 32), nn.ReLU(),
                                 nn.Linear(32, glove_case.CLASSES))

    def forward(self, ids):
        return self.out(self.embed(ids))


def _tagging_run(shift, steps=60):
    """Per-word tags (the topic of each topic word; the other words ignored, -100) over
    the topic corpus, GloVe-like vectors written ``shift`` rows away from the ids (0:
    aligned)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, _, topics = glove_case.topic_corpus(800, rng)
    index = glove_case.word_index(texts)                 # ranks from 1; 0 is padding
    vectors = glove_case.glove_like(topics, index, rng)
    tag = {w: c for c, words in enumerate(topics) for w in words}
    ids = torch.tensor([[index[w] for w in text] for text in texts])
    tags = torch.tensor([[tag.get(w, -100) for w in text] for text in texts])
    matrix = torch.zeros(len(index) + 2, glove_case.DIM)
    for word, rank in index.items():
        matrix[rank - shift] = torch.from_numpy(vectors[word])
    model = Tagger(matrix)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows]).transpose(1, 2), tags[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_tagger_rows_written_one_early_named_and_aligned_silent():
    assert ROWS in _codes(_tagging_run(1))
    assert not _codes(_tagging_run(0)) & OURS


def test_frozen_by_requires_grad_flag_named():
    """The variant: a table loaded with copy_ and frozen by hand, the same vectors."""
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    texts, labels, _ = glove_case.topic_corpus(2000, rng)
    index = glove_case.word_index(texts)
    ids = torch.tensor([[index[w] for w in text] for text in texts])
    vectors = frozen_case.pretrained_vectors(index)
    embed = nn.Embedding(len(vectors), vectors.shape[1], padding_idx=0)
    with torch.no_grad():
        embed.weight.copy_(vectors)
    embed.weight.requires_grad = False
    model = nn.Sequential(embed, nn.Flatten(), nn.Linear(12 * vectors.shape[1], 32), nn.ReLU(),
                          nn.Linear(32, glove_case.CLASSES))
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(150):
            rows = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    codes = _codes(mon)
    assert FROZEN in codes and ROWS not in codes


def test_frozen_random_table_not_read_as_misaligned():
    """A table frozen before its vectors were loaded (fresh N(0, 1) rows): FROZEN_PARAMETERS'
    own case; no shift helps a random table."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels, _ = glove_case.topic_corpus(1000, rng)
    index = glove_case.word_index(texts)
    ids = torch.tensor([[index[w] for w in text] for text in texts])
    embed = nn.Embedding(len(index) + 1, 16)
    embed.weight.requires_grad = False
    model = nn.Sequential(embed, nn.Flatten(), nn.Linear(12 * 16, glove_case.CLASSES))
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(60):
            rows = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert ROWS not in _codes(mon)


def test_large_frozen_table_probed_from_the_rows_reached():
    """A frozen table too large to copy whole (70,000 x 64 values): only the rows the
    (shifted) ids reach come to the host, and the probe reads the same as on a small one."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels, topics = glove_case.topic_corpus(1000, rng)
    index = glove_case.word_index(texts)
    vectors = glove_case.glove_like(topics, index, rng)
    matrix = torch.zeros(70000, glove_case.DIM)
    for word, rank in index.items():
        matrix[rank + 60000] = torch.from_numpy(vectors[word])   # ids far into the table
    ids = torch.tensor([[index[w] + 60000 for w in text] for text in texts])
    model = glove_case.Classifier(matrix)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(20):
            rows = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.findings()
    (probe,) = mon.run.observed.frozen_table_probes
    assert probe[0] == "embed" and probe[3] > 0.9 and probe[5] < probe[3]


def test_lookup_hooks_gone_after_the_first_lookups():
    """The observer keeps 4 lookups per embedding, then the next recorded step removes its
    hook: the forward runs without it for the rest of training."""
    mon = fields_case.run(steps=40)
    assert mon.around.categorical._handles == {}
    assert all(len(kept) == 4 for kept in mon.around.categorical.kept.values())
