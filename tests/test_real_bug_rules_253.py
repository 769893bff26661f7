"""Real-bug batch 253: the PADDING_LEAK probe reads a node mask's polarity from the padding's
zero content when both polarities fit - graphs whose real nodes all hold the same constant
feature (a featureless graph given x = 1, padded as PyG's DenseDataLoader pads it, with
mask True = a real node) no longer have their real nodes taken for padding."""
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


def codes(result):
    return [f.code for f in result.findings if f.severity in ("warning", "error")]


class NodeSetModel(nn.Module):
    """A per-node layer with a bias and a mean readout over the nodes, broadcast back to each
    node; ``masked``: the readout averages the real nodes only (mask True = real node)."""

    def __init__(self, masked):
        super().__init__()
        torch.manual_seed(0)
        self.layer = nn.Linear(1, 8)
        self.out = nn.Linear(8, 3)
        self.masked = masked

    def forward(self, x, mask):
        h = torch.relu(self.layer(x))
        if self.masked:
            m = mask.unsqueeze(-1).float()
            pooled = (h * m).sum(1) / m.sum(1)
        else:
            pooled = h.mean(1)                                 # BUG: padding slots averaged
        return self.out(pooled).unsqueeze(1).expand(-1, x.shape[1], -1)


def constant_feature_batch():
    sizes = [5, 9, 12, 7]
    mask = torch.zeros(len(sizes), 12, dtype=torch.bool)
    for g, n in enumerate(sizes):
        mask[g, :n] = True
    return mask.unsqueeze(-1).float(), mask                    # x = 1 on real nodes, 0 padding


def test_masked_readout_of_constant_node_features_is_not_a_leak():
    x, mask = constant_feature_batch()
    result = nd.check_dependencies(NodeSetModel(masked=True), (x, mask))
    assert "PADDING_LEAK" not in codes(result)


def test_unmasked_readout_of_constant_node_features_is_a_leak_found_with_zero_padding():
    x, mask = constant_feature_batch()
    result = nd.check_dependencies(NodeSetModel(masked=False), (x, mask))
    leaks = [f for f in result.findings if f.code == "PADDING_LEAK"]
    assert leaks and "0 = padding" in leaks[0].evidence["found_from"]
    padded = set(leaks[0].evidence["padded_positions"])
    assert padded == set(range(int(mask[leaks[0].evidence["sample"]].sum()), 12))
