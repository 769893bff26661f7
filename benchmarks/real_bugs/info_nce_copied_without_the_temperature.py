"""A SimCLR InfoNCE loss copied from a popular implementation (positives first, the other
2N - 2 views as negatives, cross-entropy against class 0) with the division of the
logits by the temperature left out: the logits are bare cosine similarities in [-1, 1],
so the softmax over 2N - 1 candidates can never be sharp - even a perfect encoder's loss
stays near log(2N - 1) - and the gradient that separates an image from its nearest
negatives is tiny. The loss creeps down slowly and sits far above what SimCLR reaches;
the features learn little.

Reported: "About sim Loss" - https://github.com/Kim-Minseon/RoCL/issues/7 (the reporter
shows their ``InfoNCE(x1, x2, device)``: features normalised, ``similarity_matrix =
torch.matmul(feature, feature.T)``, positives and negatives gathered with masks,
``logits = torch.cat((positives, negatives), dim=1)``, labels all zero - no temperature
anywhere - and asks why "it converges very slowly and has much more value than
classification function"). Here a digits MLP encoder trained with that loss on two
random views of each digit (shift, pixel mask, noise), Adam; a nearest-centroid probe
reads the encoder's normalised features on augmented held-out digits.
Fix: logits / temperature (0.1) before the cross-entropy.

Measured (300 steps, batch 128): held-out probe accuracy 0.550 for the bug against 0.640
for the fixed twin at seed 0; seeds + 1000: 0.562 against 0.660.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ssl179 import digits, probe_accuracy, two_view_batches
from benchmarks.real_bugs._ssl_digits import encoder

TITLE = "About sim Loss"
LINK = "https://github.com/Kim-Minseon/RoCL/issues/7"
EXPECTED = ("SQUASHED_LOGITS",)
STEPS = 300
TEMPERATURE = 0.1


def info_nce(x1, x2, fixed):
    bs = x1.shape[0]
    feature = F.normalize(torch.cat((x1, x2), dim=0), dim=1)
    similarity_matrix = feature @ feature.T
    labels = torch.cat([torch.arange(bs) for _ in range(2)], dim=0)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
    mask = torch.eye(labels.shape[0], dtype=torch.bool)
    labels = labels[~mask].view(labels.shape[0], -1)
    similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
    positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
    negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
    logits = torch.cat((positives, negatives), dim=1)
    if fixed:
        logits = logits / TEMPERATURE
    # BUG (fixed=False): the logits go to the cross-entropy without the temperature
    return F.cross_entropy(logits, torch.zeros(logits.shape[0], dtype=torch.long))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for v1, v2 in two_view_batches(x, steps):
            loss = info_nce(model(v1), model(v2), fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_probe_accuracy = probe_accuracy(model, x, y)
    return mon
