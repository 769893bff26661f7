"""A trained CLIP-style two-tower model scored by a ``cosine_similarity(keys, space,
normalize)`` helper that L2-normalises only the keys (the image embeddings): the text
embeddings go into the dot product at whatever norm the text tower gives them. CLIP's
loss only ever sees the two towers' directions (it normalises both before the dot
product), so the text norms are arbitrary and unrelated to the match; when the held-out
images rank the captions, a caption with a long embedding outranks the right one. Training
is healthy; nothing errors; retrieval and zero-shot scores come out worse than the model
deserves.

The harm is in the scoring after the last step, not in training: the training itself is
the fixed twin's, step for step.

Reported: "Cosine similarity implementation bug" -
https://github.com/patrickjohncyh/fashion-clip/issues/31 (the reporter's zero-shot scores
were lower through the library's ``zero_shot_classification`` than when computing
embeddings, similarities and predictions step by step; the helper normalises only the
image side, so it is not a cosine similarity). Here: digits paired with caption-like token
sequences (benchmarks/real_bugs/_clip_pairs.py), trained with CLIP's symmetric loss, then
the held-out images rank the held-out captions inside the watch block.
Fix: normalise both sides (a true cosine similarity).

Measured (300 Adam steps, batch 64, 1,297 training pairs, retrieval among the 500 held-out
pairs, seed 0): held-out image-to-text recall@1 0.17 and recall@5 0.53 through the one-sided
similarity against 0.34 and 0.77 through the cosine (the same trained model); seeds shifted by 1000,
0.23 / 0.56 against 0.38 / 0.79.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._clip_pairs import symmetric_loss, train_two_tower

TITLE = "Cosine similarity implementation bug"
LINK = "https://github.com/patrickjohncyh/fashion-clip/issues/31"
EXPECTED = ("SIMILARITY_NORMALISES_ONE_SIDE",)
STEPS = 300


def cosine_similarity(keys, space, fixed):
    keys = F.normalize(keys, dim=1)
    if fixed:
        space = F.normalize(space, dim=1)
    return keys @ space.T            # BUG (unfixed): the space vectors keep their norms


def recall(similarity, k):
    top = similarity.topk(k, dim=1).indices
    return (top == torch.arange(len(similarity))[:, None]).any(1).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    def score(model, held_images, held_texts):      # after the last step, still watched
        model.eval()
        with torch.no_grad():
            return cosine_similarity(model.image(held_images), model.text(held_texts), fixed)

    def loss_of(model, image, text):
        return symmetric_loss(model.logit_scale.exp() * image @ text.T)

    mon, _, _, _, similarity = train_two_tower(steps, loss_of, after_training=score, **watch)
    mon.held_out_recall = {"i2t@1": recall(similarity, 1), "i2t@5": recall(similarity, 5)}
    return mon
