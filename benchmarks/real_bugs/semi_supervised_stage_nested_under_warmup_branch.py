"""Graph-based pseudo-labelling (a supervised warm-up, then epochs that propagate the few
labels over a k-nearest-neighbour graph of the network's features and train on the
labelled rows plus the pseudo-labelled pool) whose semi-supervised training call sits one
indentation level too deep: ``if epoch >= WARMUP: train_semi(...)`` is nested INSIDE
``if epoch < WARMUP:``, so it can never run. After the warm-up every epoch still extracts
features, propagates labels and evaluates - the log looks busy and the pseudo-label
accuracy is printed - but no optimizer step is taken again: the model that is evaluated
and saved is the warm-up model, and the unlabelled data never count. Nothing errors; the
test accuracy simply stops moving.

Reported: "Test Performance stagnates after 10 epochs of Supervised Initialization" -
https://github.com/psellcam/LaplaceNet/issues/1 (after the 10 supervised epochs "there is
no further improvement of the model when it enters the semi-supervised mode", the reporter
suspecting line 60 "should contain one indent less"; the author: "it is indeed a bug in line
60", fixed by un-nesting the ``train_semi`` call, and the reporter: "works perfectly
now"). Here semi-supervised digits (benchmarks/real_bugs/_semi180.py): 20 labelled
digits, 1,200 unlabelled ones, an MLP, Adam; 4 warm-up epochs of 25 full-batch supervised
steps, then 8 epochs that each propagate labels on a 10-nearest-neighbour graph of the
penultimate features (LaplaceNet's label propagation, alpha 0.99, 30 iterations), weigh
each pseudo-label by its certainty (1 - entropy / log 10) and train 25 steps on 20 labelled
plus 64 pseudo-labelled strong views. Fix: the ``train_semi`` call one level up.

Measured (500 held-out digits, eval mode): seed 0, held-out accuracy 0.684 for the bug
(the warm-up model) against 0.770 for the fixed twin; seeds shifted by 1000, 0.708 against
0.824. The propagated pseudo-labels were right for 77% / 83% of the pool at the bug run's
last epoch (81% / 87% for the twin's improving features): the labels were there, only the
training on them never ran. The bug run takes 100 optimizer steps, the twin 300.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._semi180 import accuracy, classifier, split, strong, weak

TITLE = "Test Performance stagnates after 10 epochs of Supervised Initialization"
LINK = "https://github.com/psellcam/LaplaceNet/issues/1"
EXPECTED = ("SEMI_SUPERVISED_STAGE_NEVER_RUN",)
LABELLED = 20
WARMUP, EPOCHS, PER_EPOCH = 4, 12, 25
STEPS = EPOCHS * PER_EPOCH          # the fixed run's optimizer steps
BATCH = 64
NEIGHBOURS, ALPHA, ITERATIONS = 10, 0.99, 30


@torch.no_grad()
def propagate(model, x_lb, y_lb, x_ulb):
    """Labels spread over a kNN graph of the penultimate features: (pseudo-labels for
    ``x_ulb``, their certainty weights)."""
    model.eval()
    feats = F.normalize(model[:-1](torch.cat([x_lb, x_ulb])), dim=1)
    model.train()
    sims = feats @ feats.T
    sims.fill_diagonal_(-1)
    top, idx = sims.topk(NEIGHBOURS, dim=1)
    w = torch.zeros_like(sims).scatter_(1, idx, top.clamp(min=0) ** 3)
    w = w + w.T
    d = w.sum(1).clamp(min=1e-8).rsqrt()
    w = d[:, None] * w * d[None, :]
    seed = torch.zeros(len(feats), 10)
    seed[torch.arange(len(x_lb)), y_lb] = 1
    z = seed.clone()
    for _ in range(ITERATIONS):
        z = ALPHA * w @ z + seed
    p = z[len(x_lb):].clamp(min=1e-12)
    p = p / p.sum(1, keepdim=True)
    certainty = 1 + (p * p.log()).sum(1) / torch.log(torch.tensor(10.0))
    return p.argmax(1), certainty


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_lb, y_lb, x_ulb, y_ulb, x_test, y_test = split(LABELLED)
    model = classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    epochs = steps // PER_EPOCH

    def step(loss):
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        mon.step(loss)

    def train_sup():
        for _ in range(PER_EPOCH):
            step(F.cross_entropy(model(weak(x_lb)), y_lb))

    def train_semi(pseudo, certainty):
        for _ in range(PER_EPOCH):
            rows = torch.randint(0, len(x_ulb), (BATCH,))
            logits = model(torch.cat([weak(x_lb), strong(x_ulb[rows])]))
            sup = F.cross_entropy(logits[:len(x_lb)], y_lb)
            unsup = (certainty[rows] * F.cross_entropy(logits[len(x_lb):], pseudo[rows],
                                                       reduction="none")).mean()
            step(sup + unsup)

    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(epochs):
            if epoch >= WARMUP:
                pseudo, certainty = propagate(model, x_lb, y_lb, x_ulb)
                mon.pseudo_label_accuracy = round(
                    (pseudo == y_ulb).float().mean().item(), 3)
            if epoch < WARMUP:
                train_sup()
                if not fixed and epoch >= WARMUP:      # BUG: nested, never true here
                    train_semi(pseudo, certainty)
            if fixed and epoch >= WARMUP:
                train_semi(pseudo, certainty)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
