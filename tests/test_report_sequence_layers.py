"""watch's layer table shows gradient columns for layers whose weights are not called `weight`
(RNN/LSTM/GRU's weight_ih_l0)."""
import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
import nndebug as nd


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        h, _ = self.lstm(x)
        h, _ = self.attn(h, h, h, need_weights=False)
        return self.head(h.mean(axis=1))


def test_a_recurrent_layer_row_has_gradient_columns():
    mg.manual_seed(0)
    model = Tagger()
    opt = optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    with nd.watch(model, opt, overhead=None) as mon:
        for _ in range(3):
            x = mg.tensor(rng.standard_normal((5, 6, 4)).astype(np.float32))
            y = mg.tensor(rng.integers(0, 3, 5))
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            mon.step(loss)
    rows = {line.split()[0]: line.split() for line in mon.report().splitlines()
            if line.startswith(("lstm ", "head "))}
    assert set(rows) == {"lstm", "head"}
    for name, cells in rows.items():   # layer, type, act mean, act std, grad |g|, update/w
        assert len(cells) == 6, (name, cells)
        assert float(cells[4]) > 0 and float(cells[5]) > 0, (name, cells)
