"""Pseudo-labelling whose per-image confidence weight is reduced to ONE number: the
unsupervised term is meant to weigh each unlabelled image's cross-entropy against its
pseudo-label by how sure the teacher prediction is (``softmax(t).max(dim=1)``, a value per
image), but ``torch.max(F.softmax(t, dim=-1))`` without a ``dim`` takes the maximum over
the whole batch: a scalar, the single most confident probability in the batch, close to
1 after a few steps. Every pseudo-label, the wrong low-confidence ones included, is then
trained on at full weight, which is the confirmation bias the weighting exists to damp.
The shapes broadcast (a scalar times a vector), the loss falls, nothing errors.

Reported: "a question about unsupervised loss" - https://github.com/leofansq/CPCL/issues/1
(``loss_w_1 = torch.max(F.softmax(logits_cons_tea_1, dim=-1))`` in ``train.py``: "the dim
seem to be wrong?"; the author: "Thank you for pointing this out! We will check if we
upload the wrong version"). Here semi-supervised digits (benchmarks/real_bugs/_semi180.py):
20 labelled digits, 1,200 unlabelled ones, hard pseudo-labels from the weak view trained on
the strong view with the confidence as weight, an MLP, Adam, unlabelled weight 2. Fix:
``softmax(logits_weak, dim=1).max(dim=1).values``, a weight per image.

Measured (600 steps, 500 held-out digits, eval mode): seed 0, held-out accuracy 0.584 for
the bug against 0.804 for the fixed twin; seeds shifted by 1000, 0.112 (chance level;
the loss climbs as the wrong pseudo-labels are trained at full weight) against 0.820. The
labelled term alone gives 0.754 / 0.768 in this set-up. At unlabelled weight 1 the harm is
small (0.788 against 0.810, 0.816 against 0.820); at weight 3 the fixed twin degrades too
(0.556), so weight 2.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._semi180 import accuracy, classifier, split, strong, weak

TITLE = "a question about unsupervised loss"
LINK = "https://github.com/leofansq/CPCL/issues/1"
EXPECTED = ("PER_SAMPLE_WEIGHT_REDUCED_TO_SCALAR",)
STEPS = 600
BATCH = 64
LABELLED = 20
WEIGHT = 2.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_lb, y_lb, x_ulb, _, x_test, y_test = split(LABELLED)
    model = classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x_u = x_ulb[torch.randint(0, len(x_ulb), (BATCH,))]
            logits = model(torch.cat([weak(x_lb), weak(x_u), strong(x_u)]))
            logits_lb = logits[:len(x_lb)]
            logits_weak, logits_strong = logits[len(x_lb):].chunk(2)
            probs = F.softmax(logits_weak.detach(), dim=-1)
            pseudo = probs.argmax(1)
            if fixed:
                confidence = probs.max(dim=1).values
            else:
                confidence = torch.max(probs)     # BUG: no dim, one number for the batch
            unsup_loss = (confidence * F.cross_entropy(logits_strong, pseudo,
                                                       reduction="none")).mean()
            loss = F.cross_entropy(logits_lb, y_lb) + WEIGHT * unsup_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
