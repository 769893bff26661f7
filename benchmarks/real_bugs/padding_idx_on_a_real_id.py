"""A relation embedding declared with ``padding_idx=0`` where relation 0 is a real relation,
not padding: its row is zero and never receives a gradient, so every example of relation 0
is scored from a zero vector and stays at chance.

Reported: "Why set "padding_idx=0" in nn.Embedding" -
https://github.com/ibalazevic/TuckER/issues/17 (the relation table is built with
``nn.Embedding(len(d.relations), d2, padding_idx=0)`` although the ids index real
relations, one id per example; the author: "This is a mistake and should be fixed").
Here, as in TuckER, the relation multiplies the entity's features: a digit image and a
relation id r in 0..3 ask for the label (digit + r) mod 10. Fix: no ``padding_idx``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = 'Why set "padding_idx=0" in nn.Embedding'
LINK = "https://github.com/ibalazevic/TuckER/issues/17"
EXPECTED = ("PADDING_IDX_ON_REAL_IDS",)
STEPS = 150
RELATIONS = 4


class RelationScorer(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.entity = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        # BUG when not fixed: relation 0 is a real relation, not padding
        self.relation = nn.Embedding(RELATIONS, 64, padding_idx=None if fixed else 0)
        self.head = nn.Linear(64, 10)

    def forward(self, image, relation):
        return self.head(self.entity(image) * self.relation(relation))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RelationScorer(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            relation = torch.randint(0, RELATIONS, (len(xb),), generator=generator)
            optimizer.zero_grad()
            loss = loss_fn(model(xb, relation), (yb + relation) % 10)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
