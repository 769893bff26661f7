"""A hand-written BERT fine-tuning loop builds the ``attention_mask`` with the sign flipped:
``(input_ids == PAD)``, 1 on the padding and 0 on the words, where BERT wants 1 on the
tokens to attend to. Every real token, [CLS] included, attends only to the [PAD] positions
(a text with no padding gets uniform attention over everything), so the pooled [CLS]
vector sees almost nothing of the words and the classifier stays near chance.

Reported: "Critical bug: fix sign of BERT attention mask" -
https://github.com/nyu-mll/jiant/pull/465 (jiant's BERT wrapper passed a mask with ones
on the padding; the fix: "You want ones for the nonzero tokens"). Here a tiny
``BertForSequenceClassification`` (``BertConfig`` at random init, 2 layers of width 32)
fine-tuned on synthetic reviews laid out as ``tokenizer(padding="max_length")`` lays them
out, labelled by whether they hold more positive or negative words. Fix: ``attention_mask
= (input_ids != PAD)`` (or the tokenizer's own ``attention_mask``).

Measured harm (held-out accuracy, 400 reviews, 200 steps): 0.475 vs 0.985 at seed 0;
0.493 vs 1.00 with seeds + 1000.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import (PAD, SCORES, accuracy,
                                                          minibatches, split, tiny_bert)

TITLE = "Critical bug: fix sign of BERT attention mask"
LINK = "https://github.com/nyu-mll/jiant/pull/465"
EXPECTED = ("PADDING_LEAK",)
STEPS = 200


def attention_mask(input_ids, fixed):
    if fixed:
        return (input_ids != PAD).long()
    return (input_ids == PAD).long()        # BUG: ones on the padding, zeros on the words


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, _, labels), (test_ids, _, test_labels) = split(topics=2)
    model = tiny_bert(num_labels=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            batch = ids[rows]
            out = model(input_ids=batch, attention_mask=attention_mask(batch, fixed),
                        labels=labels[rows])
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
            mon.step(out.loss)
    SCORES[__name__.rsplit(".", 1)[-1]] = accuracy(
        model, test_ids, attention_mask(test_ids, fixed), test_labels)
    return mon
