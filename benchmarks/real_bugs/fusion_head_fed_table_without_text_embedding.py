"""Two-stage fusion whose second stage never sees the first stage's embedding: the
multimodal embedding is computed, but the tabular network is trained on the original
table alone, so the fused model is just a tabular model.

Reported: "Autogluon Dev Tutorial for Tabular + Text Model 5 multimodal embedding not
used" - https://github.com/autogluon/autogluon/issues/868 ("it seems that the multimodal
embedding is not used and the original train_df fed into the TextPrediction is the input
to the TabularPrediction, and thus there is no performance improvement observed"; fixed by
reworking the tutorial). Here the embedding of the other modality is a frozen encoder's
features of a noisy 8x8 digit (stand-in for the text embedding) and the table holds six
standardised metadata columns; a small MLP predicts the digit. Fix: feed the MLP the
table concatenated with the embedding.

Measured harm (held-out accuracy, 600 rows): 0.63 vs 0.74; seeds + 1000: 0.62 vs 0.69.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._fusion import accuracy, fusion_data, standardiser

TITLE = "Autogluon Dev Tutorial for Tabular + Text Model 5 multimodal embedding not used"
LINK = "https://github.com/autogluon/autogluon/issues/868"
EXPECTED = ("LOSS_PLATEAU",)   # closest: no code names a modality never fed
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (img, meta, y), test = fusion_data()
    mean, std = standardiser(meta)
    encoder = nn.Sequential(nn.Linear(64, 48), nn.ReLU())     # stage 1, frozen
    for p in encoder.parameters():
        p.requires_grad_(False)

    def features(im, me):
        table = (me - mean) / std
        if fixed:
            return torch.cat([table, encoder(im)], dim=1)
        return table                       # BUG: the original table, embedding unused

    width = features(img[:1], meta[:1]).shape[1]
    model = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for idx in index_batches(len(y), steps, 64):
            loss = loss_fn(model(features(img[idx], meta[idx])), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.heldout = accuracy(lambda a, b: model(features(a, b)), *test)
    return mon
