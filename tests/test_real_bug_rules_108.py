"""Real-bug batch 108 (point clouds, sets and permutation-invariant models): POOLED_OVER_FEATURES
widened to a pooled CONTEXT taken over the features - a keepdim max, amax, mean or sum over
the last axis of a layer's output, expanded back and concatenated beside each element's
features (``monitor/feature_axis_readouts.py``, ``rules/feature_axis_readouts.py``).

Named on its planted case (facebookresearch/neuromorph#2, a ResNet block pooling
``dim=-1`` of (clouds, points, features)) and on a variant (a DeepSets-style classifier of
digit sets whose context is ``amax`` over the features, trained with SGD); silent on the
fixed twins and on look-alikes: the context pooled over the points, PointNet's Conv1d layout
pooled over its last axis (the points), a row normalised by its own norm, a hand-written
layer norm concatenated beside its input, and a per-point max feature concatenated on
purpose by a model that also pools over the points and learns. Saved rows read back give
the same finding.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import point_features_pooled_over_channels as context_case  # noqa: E402,E501
from benchmarks.real_bugs._common import classification  # noqa: E402
from nndebug.monitor.feature_axis_readouts import BROADCAST_BACK, measure_readouts  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.rules import feature_axis_readouts as rule_module  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
POOLED = "POOLED_OVER_FEATURES"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_planted_case_is_named_and_its_twin_is_silent():
    found = context_case.run().findings()
    named = [f for f in found if f.code == POOLED]
    assert named and named[0].severity == "warning"
    assert named[0].evidence["broadcast_back"] is True
    assert named[0].evidence["shape"][-1] == context_case.HIDDEN
    assert POOLED not in _codes(context_case.run(fixed=True))


class DigitSets(nn.Module):
    """Sets of digit images: a per-element layer, a pooled context beside each element, a
    second per-element layer and a head labelling each element with its set's digit."""

    def __init__(self, context_axis, pool="amax", extra_own_max=False):
        super().__init__()
        self.context_axis, self.pool, self.extra_own_max = context_axis, pool, extra_own_max
        self.phi = nn.Linear(64, 32)
        self.mix = nn.Linear(32 + 32 + (1 if extra_own_max else 0), 32)
        self.head = nn.Linear(32, 10)

    def context(self, h):
        if self.pool == "amax":
            return h.amax(dim=self.context_axis, keepdim=True)
        return h.mean(dim=self.context_axis, keepdim=True)

    def forward(self, x):
        h = F.relu(self.phi(x))                                     # (sets, elements, 32)
        parts = [h, self.context(h).expand(h.size())]
        if self.extra_own_max:
            parts.append(h.amax(dim=2, keepdim=True).expand(-1, -1, 1))
        return self.head(F.relu(self.mix(torch.cat(parts, 2))))     # (sets, elements, 10)


def _set_batches(steps, seed=0):
    """(sets of 8 noisy images, label): the label is the digit all members share, and the
    noise makes a single member a poor witness (the set must be pooled). Each member is
    labelled with it."""
    generator = torch.Generator().manual_seed(seed)
    x, y = classification()
    members = [torch.nonzero(y == c).squeeze(1) for c in range(10)]
    for _ in range(steps):
        labels = torch.randint(0, 10, (32,), generator=generator)
        picks = torch.stack([members[c][torch.randint(0, len(members[c]), (8,),
                                                      generator=generator)]
                             for c in labels.tolist()])
        yield x[picks] + 1.5 * torch.randn(32, 8, 64, generator=generator), labels


def _train(model, batches, optimizer):
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches:
            optimizer.zero_grad()
            scores = model(xb)
            loss = F.cross_entropy(scores.reshape(-1, 10), yb[:, None].expand(-1, 8).reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_variant_deep_sets_context_over_features_with_sgd():
    torch.manual_seed(0)
    model = DigitSets(context_axis=2)
    mon = _train(model, _set_batches(150), torch.optim.SGD(model.parameters(), lr=0.05))
    assert mon.run.observed.feature_axis_readouts[0][1] == "max" + BROADCAST_BACK
    assert POOLED in _codes(mon)
    torch.manual_seed(0)
    model = DigitSets(context_axis=1)
    fixed = _train(model, _set_batches(150), torch.optim.SGD(model.parameters(), lr=0.05))
    assert not fixed.run.observed.feature_axis_readouts
    assert POOLED not in _codes(fixed)


def _readouts(forward, x):
    return measure_readouts(nodes_under([forward(x).grad_fn]))


def test_context_over_points_and_conv_layout_are_not_kept():
    embed, mix = nn.Linear(2, 8), nn.Linear(16, 4)

    def over_points(x):
        h = F.relu(embed(x))
        return mix(torch.cat([h, h.max(dim=1, keepdim=True)[0].expand(h.size())], 2))
    assert _readouts(over_points, torch.randn(3, 5, 2)) == []
    conv, head = nn.Conv1d(2, 8, 1), nn.Conv1d(16, 4, 1)

    def conv_layout(x):                                 # (clouds, channels, points)
        h = F.relu(conv(x))
        return head(torch.cat([h, h.max(dim=2, keepdim=True)[0].expand(h.size())], 1))
    assert _readouts(conv_layout, torch.randn(3, 2, 5)) == []


def test_row_norms_and_layer_norms_are_not_kept():
    embed, mix = nn.Linear(2, 8), nn.Linear(16, 4)

    def normalised(x):
        h = embed(x)
        return mix(torch.cat([h / h.norm(dim=-1, keepdim=True), h], 2))

    def layer_normed(x):
        h = embed(x)
        return mix(torch.cat([h - h.mean(dim=-1, keepdim=True), h], 2))
    assert _readouts(normalised, torch.randn(3, 5, 2)) == []
    assert _readouts(layer_normed, torch.randn(3, 5, 2)) == []


@pytest.mark.parametrize("pool", ["amax", "mean"])
def test_context_over_features_is_kept_for_each_pool(pool):
    embed, mix = nn.Linear(2, 8), nn.Linear(16, 4)

    def context(x):
        h = F.relu(embed(x))
        pooled = h.amax(dim=-1, keepdim=True) if pool == "amax" else h.mean(-1, keepdim=True)
        return mix(torch.cat([h, pooled.expand(h.size())], 2))
    kept = _readouts(context, torch.randn(3, 5, 2))
    assert kept == [(("max" if pool == "amax" else pool) + BROADCAST_BACK, (3, 5, 8))]


def test_own_max_feature_concatenated_on_purpose_and_learning_is_silent():
    """A per-element max kept beside a context pooled over the elements: the model
    learns, so nothing is named even though the per-element pool is recorded."""
    torch.manual_seed(0)
    model = DigitSets(context_axis=1, extra_own_max=True)
    mon = _train(model, _set_batches(150), torch.optim.Adam(model.parameters(), lr=3e-3))
    assert mon.run.observed.feature_axis_readouts
    assert POOLED not in _codes(mon)


def test_saved_rows_read_back_keep_the_broadcast_kind():
    assert rule_module.BROADCAST_BACK == BROADCAST_BACK     # the rule reads what is written
    row = ROW_READERS["feature_axis_readouts"]([3, "max" + BROADCAST_BACK, [32, 32, 64]])
    assert row == (3, "max" + BROADCAST_BACK, [32, 32, 64])
