"""FUTURE_LEAK when an output's channel axis and its position axis have the same length
(``probes/dependencies/future.py``, ``_two_position_axes``; real-bug batch 308).

A convolutional next-token model returns (N, levels, T) scores; with 16 levels over 16
positions, shape alone does not say which axis holds the positions. Read along the levels,
a causal model seemed to read every later position (120 of 120 pairs): both readings are
measured now and the one with fewer future pairs stands. Planted: the same model with
'same' padding (it reads ahead) is still named, with tokens and with floats.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
LEVELS = LENGTH = 16


class ConvLM(nn.Module):
    """Embedded levels (or one float channel) -> two dilated convolutions -> (N, LEVELS, T)."""
    def __init__(self, causal, tokens=True):
        super().__init__()
        self.causal = causal
        self.inp = nn.Embedding(LEVELS, 8) if tokens else nn.Conv1d(1, 8, 1)
        self.tokens = tokens
        self.convs = nn.ModuleList(nn.Conv1d(8, 8, 2, dilation=d) for d in (1, 2, 4))
        self.head = nn.Conv1d(8, LEVELS, 1)

    def forward(self, x):
        h = self.inp(x).transpose(1, 2) if self.tokens else self.inp(x.unsqueeze(1))
        for conv in self.convs:
            d = conv.dilation[0]
            padding = (d, 0) if self.causal else (d // 2, d - d // 2)
            h = torch.tanh(conv(nn.functional.pad(h, padding)))
        return self.head(h)


def _codes(model, tokens=True):
    torch.manual_seed(0)
    if tokens:
        seq = torch.randint(0, LEVELS, (8, LENGTH + 1))
    else:
        seq = torch.randn(8, LENGTH + 1)
    result = nd.check_dependencies(model, seq[:, :-1], seq[:, 1:], causal=True)
    return {f.code for f in result.findings}


@pytest.mark.parametrize("tokens", [True, False])
def test_a_causal_model_with_as_many_levels_as_positions_does_not_leak(tokens):
    torch.manual_seed(0)
    assert "FUTURE_LEAK" not in _codes(ConvLM(causal=True, tokens=tokens), tokens)


@pytest.mark.parametrize("tokens", [True, False])
def test_the_same_model_padded_on_both_sides_still_leaks(tokens):
    torch.manual_seed(0)
    assert "FUTURE_LEAK" in _codes(ConvLM(causal=False, tokens=tokens), tokens)
