"""Real-bug batch 53 (text classifiers): one output per text that most of its tokens never
reach (OUTPUT_READS_FEW_TOKENS) - a causal model pooled at its first token, segment ids
passed positionally into ``attention_mask`` - and a model called ``model(ids,
attention_mask=mask)``, whose mask the dependency probes now call it with (they called it
with the ids alone, and read a well-masked model as one attending to its padding). The
fixed twins stay silent, and so do healthy pooled models of other kinds: a text CNN
max-pooling over time (its gradient reaches few positions; its output still reads them
all), a bidirectional encoder pooled at [CLS], a GRU's last state, and a tagger (an output
per position, not probed)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import cnn_max_pool_over_padding as max_pool  # noqa: E402
from benchmarks.real_bugs import first_token_pooled_from_causal_model as first_token  # noqa: E402
from benchmarks.real_bugs import segment_ids_passed_as_attention_mask as segments  # noqa: E402
from benchmarks.real_bugs._text_snippets import batches, bert_style  # noqa: E402
import nndebug as nd  # noqa: E402
from nndebug.monitor.keyword_inputs import bound_inputs  # noqa: E402
from nndebug.adapters import adapt  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
FEW = "OUTPUT_READS_FEW_TOKENS"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _one_batch():
    ids, labels, vocab = bert_style(256, seed=3)
    return next(batches(ids, labels, 1, pad_id=0)), vocab


def _codes(model, inputs):
    return {f.code for f in nd.check_dependencies(model, inputs).findings
            if f.severity in PROBLEMS}


def test_a_causal_model_pooled_at_its_first_token_is_named():
    found = [f for f in first_token.run(steps=20).findings() if f.code == FEW]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["first_token_only"]
    assert found[0].evidence["unread_groups"] == found[0].evidence["groups"] - 1


def test_segment_ids_passed_as_the_attention_mask_are_named():
    found = [f for f in segments.run(steps=20).findings() if f.code == FEW]
    assert found and not found[0].evidence["first_token_only"]
    assert found[0].evidence["median_unread_share"] >= 0.5


@pytest.mark.parametrize("case", [first_token, segments])
def test_the_fixed_twins_are_silent(case):
    assert not _problems(case.run(fixed=True, steps=20))


@pytest.mark.parametrize("masked", [False, True])
def test_a_text_cnn_max_pooling_over_time_reads_every_token(masked):
    torch.manual_seed(0)
    (ids, _), vocab = _one_batch()
    assert FEW not in _codes(max_pool.TextCNN(vocab, mask_before_max=masked), ids)


class BidirectionalClassifier(nn.Module):
    """An encoder without a causal mask, pooled at its first position ([CLS]): healthy."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim, padding_idx=0), nn.Embedding(64, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 2)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        return self.head(self.encoder(x, src_key_padding_mask=ids == 0)[:, 0])


class GRUClassifier(nn.Module):
    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, 2)

    def forward(self, ids):
        return self.head(self.gru(self.embed(ids))[1][0])


class Tagger(GRUClassifier):
    def forward(self, ids):
        return self.head(self.gru(self.embed(ids))[0])


@pytest.mark.parametrize("kind", [BidirectionalClassifier, GRUClassifier, Tagger])
def test_healthy_text_models_are_silent(kind):
    torch.manual_seed(0)
    (ids, _), vocab = _one_batch()
    assert FEW not in _codes(kind(vocab), ids)


def test_positional_ids_and_a_keyword_mask_are_kept_together():
    model = segments.PairClassifier(50)
    ids, mask = torch.ones(2, 5, dtype=torch.int64), torch.ones(2, 5, dtype=torch.int64)
    kept = bound_inputs(adapt(model), model, (ids,), {"attention_mask": mask, "labels": ids})
    assert list(kept) == ["input_ids", "attention_mask"]
    assert bound_inputs(adapt(model), model, (ids,), {}) is None
    assert bound_inputs(adapt(model), model, (ids, True), {"attention_mask": mask}) is None


def _padding_leaks(model, inputs):
    return [f for f in nd.check_dependencies(model, inputs).findings if f.code == "PADDING_LEAK"]


def test_a_text_cnn_max_pooling_over_its_padding_is_named():
    torch.manual_seed(0)
    (ids, _), vocab = _one_batch()
    found = _padding_leaks(max_pool.TextCNN(vocab, mask_before_max=False), ids)
    assert found and found[0].evidence["probe"] == "padding cut off"


@pytest.mark.parametrize("kind", [BidirectionalClassifier, Tagger])
def test_models_that_hide_their_padding_keep_their_outputs_when_it_is_cut(kind):
    torch.manual_seed(0)
    (ids, _), vocab = _one_batch()
    assert not _padding_leaks(kind(vocab), ids)
    if kind is BidirectionalClassifier:
        assert not _padding_leaks(max_pool.TextCNN(vocab, mask_before_max=True), ids)
