"""A BERT fine-tuning loop whose ``get_linear_schedule_with_warmup`` is sized in batches
(warmup 10% of epochs x batches, decay to 0 at the last batch) but stepped once per epoch,
after the batch loop: the first epoch runs at learning rate 0 and the schedule never leaves
its warmup (after 8 of 200 scheduled steps the rate is 8/20 of its peak), so the model
trains at a small fraction of the rate it was given.

Reported: "Is the usage of scheduler described in README correct?" -
https://github.com/huggingface/transformers/issues/1898 (on the README's fine-tuning loop
with ``scheduler.step()`` after every ``optimizer.step()``: "I think it's not here to do
`scheduler.step` but in epoch loop"; the schedule's steps are batches, so moving the call
to the epoch loop is the bug this case runs). Here a tiny ``BertForSequenceClassification``
(``BertConfig`` at random init, 2 layers of width 32) on synthetic 10-topic snippets,
AdamW at peak 1e-3, 8 epochs of 25 batches. Fix: ``scheduler.step()`` right after every
``optimizer.step()``, inside the batch loop.

Measured harm (held-out accuracy, 400 snippets, 200 steps): 0.215 vs 0.425 at seed 0;
0.19 vs 0.86 with seeds + 1000.
"""
import torch
from transformers import get_linear_schedule_with_warmup

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import (SCORES, accuracy, minibatches,
                                                          split, tiny_bert)

TITLE = "Is the usage of scheduler described in README correct?"
LINK = "https://github.com/huggingface/transformers/issues/1898"
EXPECTED = ("LR_AT_ZERO", "SCHEDULE_LENGTH_MISMATCH")
STEPS = 200
TOPICS = 10
BATCH = 32
WARMUP = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, mask, labels), (test_ids, test_mask, test_labels) = split(topics=TOPICS)
    model = tiny_bert(num_labels=TOPICS)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    per_epoch = len(ids) // BATCH
    epochs = max(1, steps // per_epoch)
    total = per_epoch * epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=int(WARMUP * total),
                                                num_training_steps=total)
    batches = minibatches(len(ids), total, BATCH)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(epochs):
            for _ in range(per_epoch):
                rows = next(batches)
                out = model(input_ids=ids[rows], attention_mask=mask[rows],
                            labels=labels[rows])
                optimizer.zero_grad()
                out.loss.backward()
                optimizer.step()
                if fixed:
                    scheduler.step()
                mon.step(out.loss)
            if not fixed:
                scheduler.step()                 # BUG: once per epoch, the schedule counts batches
    SCORES[__name__.rsplit(".", 1)[-1]] = accuracy(model, test_ids, test_mask, test_labels)
    return mon
