"""A tweet sentiment classifier trained on the Sentiment140 labels as they come, 0 for
negative and 4 for positive, with one sigmoid output and binary cross-entropy. The loss
accepts any target, so nothing fails: a positive tweet's target of 4 asks for a
probability above one, its gradient never fades (sigmoid - 4 < -3), and the positive
side keeps pulling every shared word and the bias upwards long after the negatives are
fitted, so more and more negative tweets end up above the threshold.

Reported: "Assignment: Exploring overfitting in NLP - Is it a binary or multiclassification
problem?" - https://community.deeplearning.ai/t/assignment-exploring-overfitting-in-nlp-is-it-a-binary-or-multiclassification-problem/115984
(the assignment: "The labels are originally encoded as strings ('0' representing negative
and '4' representing positive). You need to change this so that the labels are integers
and 0 is used for representing negative, while 1 should represent positive"; the mentor:
"the labelled data is either 0 or 4 - and we encode those to 0 and 1 respectively, this
is a binary classification problem"). Here 2-topic documents of 4 to 60 word ids, an
EmbeddingBag(400, 16, mean) with offsets and one logit, BCEWithLogitsLoss, Adam lr 1e-2,
batches of 32. Fix: map the labels to 0/1 (``label // 4``) before training.

Measured (held-out accuracy on 800 documents, bug vs fixed): seed 0: 0.524 vs 0.962;
seeds + 1000: 0.506 vs 0.969.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bow import BagClassifier, accuracy, documents, flat

TITLE = "Assignment: Exploring overfitting in NLP - Is it a binary or multiclassification problem?"
LINK = ("https://community.deeplearning.ai/t/assignment-exploring-overfitting-in-nlp-is-it-a-"
        "binary-or-multiclassification-problem/115984")
EXPECTED = ("TARGETS_OUT_OF_RANGE",)   # corrected after scoring: the checklist's code for BCE
# targets outside [0, 1] (scored with TARGETS_OUTSIDE_OUTPUT_RANGE, a regression code: wrong cause)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    docs, y = documents(2800, topical=0.15, classes=2)
    raw = y * 4                              # the dataset's labels: 0 negative, 4 positive
    targets = (raw // 4 if fixed else raw).float()   # BUG when not fixed: 0/4 kept as targets
    train, test = docs[:2000], docs[2000:]
    model = BagClassifier(classes=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, len(train), (32,)).tolist()
            text, offsets = flat([train[i] for i in index])
            optimizer.zero_grad()
            loss = loss_fn(model(text, offsets).squeeze(1), targets[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
        with torch.no_grad():
            text, offsets = flat(test)
            mon.held_out_accuracy = accuracy(model(text, offsets).squeeze(1), y[2000:])
    return mon
