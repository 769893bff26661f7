"""Real-bug batch 41 (vision and convolutional pipelines): a softmax over an axis of size one
(SOFTMAX_OVER_ONE_UNIT) and a view/reshape whose output only a reordering of the input's
axes explains (RESHAPE_USED_AS_TRANSPOSE).

The planted reports are named; their fixed twins stay silent, and so do healthy models
that look alike: a two-class softmax head, attention scores normalised over their keys,
a softmax of one single number, plain merges and splits of axes (flatten, a head split),
a permute before the reshape, nn.MultiheadAttention whose batch equals its head size
(its head split then has a transpose's shape), and a CNN + GRU reader fed the permuted
map."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import binary_segmentation_softmax_one_channel as one_channel  # noqa: E402,E501
from benchmarks.real_bugs import cnn_single_output_softmax as one_unit  # noqa: E402
from benchmarks.real_bugs import conv_features_reshaped_to_sequence as line_reader  # noqa: E402
from benchmarks.real_bugs import feature_map_viewed_as_pixel_vectors as pixel_view  # noqa: E402
from benchmarks.real_bugs import pixel_scores_viewed_as_class_maps as class_maps  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.one_unit_softmaxes import find_one_unit_softmaxes  # noqa: E402
from nndebug.monitor.transposing_reshapes import (find_transposing_reshapes,  # noqa: E402
                                                  reordering)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
SOFTMAX = "SOFTMAX_OVER_ONE_UNIT"
RESHAPE = "RESHAPE_USED_AS_TRANSPOSE"
STEPS = 8


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _softmaxes(output):
    return find_one_unit_softmaxes(nodes_under([output.grad_fn]))


def _reshapes(output):
    return find_transposing_reshapes(nodes_under([output.grad_fn]))


def _leaf(*shape):
    torch.manual_seed(0)
    return torch.randn(*shape, requires_grad=True)


# --- SOFTMAX_OVER_ONE_UNIT -----------------------------------------------------------------
@pytest.mark.parametrize("case", [one_unit, one_channel])
def test_a_softmax_over_one_unit_is_named_in_the_planted_reports(case):
    mon = case.run(steps=STEPS)
    assert SOFTMAX in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == SOFTMAX)
    assert finding.evidence["shape"][finding.evidence["axis"]] == 1


@pytest.mark.parametrize("case", [one_unit, one_channel])
def test_their_fixed_twins_have_no_one_unit_softmax(case):
    mon = case.run(fixed=True, steps=STEPS)
    assert SOFTMAX not in {f.code for f in mon.findings()}
    assert mon.run.observed.one_unit_softmaxes == []


def test_the_graph_reader_finds_each_softmax_over_a_size_one_axis():
    head = _leaf(6, 1)
    assert _softmaxes(torch.softmax(head * 2, dim=1)) == [("softmax", [6, 1], 1)]
    scores = _leaf(2, 5, 1)                          # attention scores (B, T, 1)
    assert _softmaxes(torch.softmax(scores * 2, dim=-1)) == [("softmax", [2, 5, 1], 2)]
    maps = _leaf(2, 1, 4, 4)                         # a one-channel head under a CE loss
    loss = F.cross_entropy(maps * 2, torch.rand(2, 1, 4, 4))
    assert _softmaxes(loss) == [("log_softmax", [2, 1, 4, 4], 1)]


def test_softmaxes_over_real_choices_are_not_counted():
    assert _softmaxes(torch.softmax(_leaf(6, 2) * 2, dim=1)) == []          # two classes
    assert _softmaxes(torch.softmax(_leaf(2, 5, 1) * 2, dim=1)) == []       # over the keys
    loss = F.cross_entropy(_leaf(2, 3, 4, 4) * 2, torch.randint(0, 3, (2, 4, 4)))
    assert _softmaxes(loss) == []
    assert _softmaxes(torch.softmax(_leaf(1) * 2, dim=0)) == []   # one number in all: no batch


def test_the_rule_is_silent_on_a_healthy_two_class_cnn():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 64, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    x, y = (torch.rand(32, 1, 8, 8), torch.randint(0, 2, (32,)))
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert SOFTMAX not in {f.code for f in mon.findings()}


# --- RESHAPE_USED_AS_TRANSPOSE -------------------------------------------------------------
@pytest.mark.parametrize("case", [pixel_view, line_reader, class_maps])
def test_a_reshape_used_as_a_transpose_is_named_in_the_planted_reports(case):
    mon = case.run(steps=STEPS)
    assert RESHAPE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == RESHAPE)
    before, after = finding.evidence["input_shape"], finding.evidence["output_shape"]
    order = finding.evidence["axis_order"]
    assert sorted(order) == list(range(len(before))) and order != sorted(order)
    assert reordering(before, after) is not None


@pytest.mark.parametrize("case", [pixel_view, line_reader, class_maps])
def test_their_fixed_twins_have_no_transposing_reshape(case):
    mon = case.run(fixed=True, steps=STEPS)
    assert RESHAPE not in {f.code for f in mon.findings()}
    assert mon.run.observed.transposing_reshapes == []


@pytest.mark.parametrize("before, after, order", [
    ((4, 32, 8, 8), (4, 64, 32), [0, 2, 3, 1]),     # channels meant to go last
    ((4, 16, 4, 12), (4, 12, 64), [0, 3, 1, 2]),    # width meant to be the time axis
    ((4, 64, 3), (4, 3, 8, 8), [0, 2, 1]),          # pixel rows read as class maps
    ((6, 4, 8), (4, 48), [1, 0, 2]),                # (T, B, E) read as batch-first
    ((4, 3, 5, 8, 8), (20, 3, 8, 8), [0, 2, 1, 3, 4]),  # (B, C, T, H, W) frames, unpermuted
    ((4, 16, 4, 12), (12, 4, 64), [3, 0, 1, 2]),    # a time-major RNN's (W, B, C * H)
    ((8, 10, 50), (8, 50, 10), [0, 2, 1]),          # (B, T, V) logits viewed as (B, V, T)
])
def test_shapes_only_a_reordering_explains_are_found(before, after, order):
    assert reordering(list(before), list(after)) == order


@pytest.mark.parametrize("before, after", [
    ((4, 8, 8, 16), (4, 64, 16)),       # merge after a permute
    ((4, 16, 8, 8), (4, 1024)),         # flatten
    ((5, 4, 64), (5, 4, 8, 8)),         # split one axis (heads)
    ((4, 16, 1, 1), (4, 16)),           # squeeze
    ((4, 1, 64), (4, 64, 1)),           # sizes of one move freely
    ((4, 3, 10), (4, 15, 2)),           # a regrouping no axis order gives
])
def test_plain_regroupings_are_not_counted(before, after):
    assert reordering(list(before), list(after)) is None


def test_shapes_alone_cannot_tell_a_head_split_from_a_transpose():
    # (T, B, E) -> (T, B * H, D) with B == D: the graph context (the transpose that follows)
    # excuses it, see test_multi_head_attention_whose_batch_equals_its_head_size_...
    assert reordering([10, 64, 512], [10, 512, 64]) == [0, 2, 1]


def test_the_graph_reader_finds_a_view_but_not_permute_then_reshape():
    maps = _leaf(2, 6, 4, 4)
    assert _reshapes((maps * 1).view(2, 16, 6)) == [([2, 6, 4, 4], [2, 16, 6], [0, 2, 3, 1])]
    assert _reshapes((maps * 1).permute(0, 2, 3, 1).reshape(2, 16, 6)) == []
    assert _reshapes((maps * 1).permute(0, 2, 3, 1).contiguous().view(2, 16, 6)) == []
    assert _reshapes((maps * 1).flatten(1)) == []


@pytest.mark.parametrize("batch_first", [False, True])
def test_multi_head_attention_whose_batch_equals_its_head_size_is_not_counted(batch_first):
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(64, 4, batch_first=batch_first)   # head size 16
    x = torch.randn(16, 5, 64) if batch_first else torch.randn(5, 16, 64)  # batch 16
    output, _ = attention(x, x, x)
    assert _reshapes(output) == []


def test_a_healthy_cnn_gru_reader_stays_silent():
    torch.manual_seed(0)
    model = line_reader.LineReader(permute=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    x, y = line_reader.classification(images=True)
    mon = line_reader.train_watched(model, optimizer, line_reader.digit_loss,
                                    line_reader.batches(x, y, STEPS))
    assert RESHAPE not in {f.code for f in mon.findings()}
    assert SOFTMAX not in {f.code for f in mon.findings()}


def test_a_healthy_transformer_classifier_stays_silent():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0)
    model = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Flatten(), nn.Linear(8 * 32, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(8, 8, 32), torch.randint(0, 3, (8,))      # batch 8 = head size 8
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    codes = {f.code for f in mon.findings()}
    assert RESHAPE not in codes and SOFTMAX not in codes


def _train_tagger(loss_of):
    """A per-position tagger ((B, T, 5) scores) trained STEPS steps with ``loss_of(scores,
    tags)``; the closed monitor."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    x, tags = torch.randn(16, 9, 6), torch.randint(0, 5, (16, 9))
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            optimizer.zero_grad()
            loss = loss_of(model(x), tags)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_view_written_in_the_loss_is_found_and_a_transpose_is_not():
    viewed = _train_tagger(lambda scores, tags: F.cross_entropy(
        scores.view(scores.shape[0], scores.shape[2], scores.shape[1]), tags))
    assert RESHAPE in _problems(viewed)
    transposed = _train_tagger(lambda scores, tags: F.cross_entropy(scores.transpose(1, 2),
                                                                    tags))
    assert RESHAPE not in {f.code for f in transposed.findings()}
