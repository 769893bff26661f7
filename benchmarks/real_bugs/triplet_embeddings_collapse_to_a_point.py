"""A batch-hard triplet loss trained at too high a learning rate: within the first steps
every embedding collapses onto one point, each anchor's distances to its hardest positive
and hardest negative are both zero, and the loss sits at the margin for the rest of the
run, its gradient nil. Nothing errors; the loss curve is flat at a plausible value.

Reported: "triplet loss can't convergence,how can I do?" -
https://github.com/xiaolonw/caffe-video_triplet/issues/8 ("it show that loss value=margin
all the time"; the answer: "The loss=margin, mainly means that all the embeddings collapsed
to one point ... decrease the learning rate"). Here a digits MLP embedding trained with
batch-hard triplet mining (margin 0.5) by SGD with momentum; a nearest-centroid probe reads
the embeddings. Fix: a learning rate ten times lower.

Measured when written: the loss ends at exactly the margin, every feature's spread over
the digits is 0, and a nearest-centroid probe on the embeddings scores 0.15 (fixed twin:
1.00, its loss 0.22).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "triplet loss can't convergence,how can I do?"
LINK = "https://github.com/xiaolonw/caffe-video_triplet/issues/8"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 200
MARGIN = 0.5
LEARNING_RATE = 0.5          # the bug: collapses the embedding within the first epoch
FIXED_LEARNING_RATE = 0.05


def embedder():
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 16))


def batch_hard_triplet(embeddings, labels, margin):
    """Each anchor against its farthest same-class and nearest other-class sample."""
    distances = torch.cdist(embeddings, embeddings)
    same = labels[:, None] == labels[None, :]
    hardest_positive = (distances * same).max(1).values
    hardest_negative = distances.masked_fill(same, float("inf")).min(1).values
    return F.relu(hardest_positive - hardest_negative + margin).mean()



def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = embedder()
    lr = FIXED_LEARNING_RATE if fixed else LEARNING_RATE
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = batch_hard_triplet(model(xb), yb, MARGIN)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
