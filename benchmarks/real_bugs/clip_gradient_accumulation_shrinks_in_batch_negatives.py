"""A CLIP-style model trained with gradient accumulation to reach a batch of 64 pairs: each
batch is cut into 16 micro-batches of 4, each micro-batch's symmetric contrastive loss is
computed on its own (its 4 x 4 similarity matrix), divided by 16 and backpropagated, and
the optimizer steps once per 64. For a loss that averages over independent samples that is
the large batch's gradient; for an in-batch contrastive loss it is not - each image is told
apart from the 3 captions of its micro-batch, never from the other 60, so the task the
model is trained on is a 1-in-4 choice instead of 1-in-64. The loss goes down (a 1-in-4
choice is easy), nothing errors; the embeddings separate the pairs far worse when
retrieval has to choose among hundreds.

Reported: "Add gradient accumulation to SentenceTransformer" -
https://github.com/huggingface/sentence-transformers/pull/1822 (a PR adding gradient
accumulation, its author expecting "a batch size of N samples performs the same as having
batches of N/M samples with M grad acc steps"; the maintainer: not for the in-batch
negatives loss - "the loss is computed with N/M negatives and then just averaged", a batch
of 512 works great while 1 with 512 accumulation steps "doesn't work at all"; larger
contrastive batches need other means, e.g. GradCache). Here: digits paired with
caption-like token sequences (benchmarks/real_bugs/_clip.py), CLIP's symmetric loss at
its learned temperature, Adam. Fix: score the whole batch of 64 in one similarity matrix
(what accumulation was meant to reach; the batch fits here).

Measured (300 optimizer steps, held-out retrieval among the 500 held-out pairs): image-to-
text recall@1 0.23 and recall@5 0.59 with the bug against 0.36 and 0.77 for the fixed twin
(text-to-image @1 0.26 against 0.40); seeds shifted by 1000: i2t@1 0.22 / @5 0.60 against
0.38 / 0.82.
"""
import torch

from benchmarks.real_bugs._clip import TwoTower, clip_loss, normalised_features, train_clip

TITLE = "Add gradient accumulation to SentenceTransformer"
LINK = "https://github.com/huggingface/sentence-transformers/pull/1822"
EXPECTED = ("CONTRASTIVE_NEGATIVES_FROM_MICRO_BATCH",)
STEPS = 300
ACCUMULATION = 16            # 16 micro-batches of 4 pairs make one step of 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TwoTower()
    micro_batches = 1 if fixed else ACCUMULATION     # BUG: one 4 x 4 loss per micro-batch
    return train_clip(model, steps, normalised_features, clip_loss,
                      micro_batches=micro_batches, **watch)
