"""The dependency probes run a transformer the way its training did (probes/dependencies/
runner.py): torch's encoder layers take an inference fast path in eval mode without a
graph, where a float "causal" mask of ones and zeros (added to the scores, hiding nothing)
beside a padding mask gives NaN at padded queries. The probes gave up on such a model
("the output holds NaN or inf"); they now rerun it with the graph on and name the leak,
and a correct -inf mask stays silent (real-bug batch 319, SASRec)."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

ITEMS = 30


class Recommender(torch.nn.Module):
    def __init__(self, float_ones_mask):
        super().__init__()
        self.float_ones_mask = float_ones_mask
        self.items = torch.nn.Embedding(ITEMS + 1, 16, padding_idx=0)
        self.positions = torch.nn.Embedding(12, 16)
        layer = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def forward(self, seq):
        length = seq.shape[1]
        x = self.items(seq) + self.positions(torch.arange(length))
        if self.float_ones_mask:
            causal = torch.tril(torch.ones(length, length))          # added: hides nothing
        else:
            future = torch.triu(torch.ones(length, length, dtype=torch.bool), 1)
            causal = torch.zeros(length, length).masked_fill(future, float("-inf"))
        padded = (seq == 0)[:, None, :] & ~torch.eye(length, dtype=torch.bool)
        mask = causal.expand(len(seq), length, length).masked_fill(padded, float("-inf"))
        hidden = self.encoder(x, mask=mask.repeat_interleave(2, 0))
        return hidden @ self.items.weight.T


def histories(n=16, length=12):
    g = torch.Generator().manual_seed(0)
    seq = torch.randint(1, ITEMS + 1, (n, length), generator=g)
    for row in range(n):
        seq[row, :row % 6] = 0                                        # left padding
    return seq


def test_a_mask_of_float_ones_is_probed_on_the_training_path():
    torch.manual_seed(0)
    model = Recommender(float_ones_mask=True).eval()
    seq = histories()
    with torch.no_grad():                     # the fast path's NaN the probe met
        assert not torch.isfinite(model(seq[:, :-1])).all()
    model.train()
    result = nd.check_dependencies(model, seq[:, :-1], targets=seq[:, 1:])
    assert any(f.code == "FUTURE_LEAK" for f in result.findings), (result.findings,
                                                                   result.notes)
    assert model.training                     # the user's model left as it was


def test_a_correct_mask_stays_silent():
    torch.manual_seed(0)
    seq = histories()
    result = nd.check_dependencies(Recommender(float_ones_mask=False), seq[:, :-1],
                                   targets=seq[:, 1:])
    assert not [f for f in result.findings if f.severity != "info"], result.findings
