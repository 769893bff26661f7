"""A BERT news-topic classifier fine-tuned on a training file grouped by label (all the
class-0 snippets, then all the class-1 snippets, ...) read in file order, without
shuffling: each stretch of an epoch holds one topic, the model chases the topic of the
moment, and at the end of training it predicts the last topics it saw for nearly every
held-out snippet.

Reported: "关于预测准确率" ("about the prediction accuracy") -
https://github.com/Socialbird-AILab/BERT-Classification-Tutorial/issues/11 (a 10-class
BERT classification tutorial whose eval accuracy came out at 0.1; "the data was not
shuffled", and after shuffling it reached 0.79). Here a tiny
``BertForSequenceClassification`` (``BertConfig`` at random init, 2 layers of width 32) on
synthetic 10-topic snippets, the training set sorted by label and cut into batches in
order (a ``DataLoader`` with ``shuffle=False``), 8 epochs. Fix: shuffle the training
examples every epoch (``shuffle=True``).

Measured harm (held-out accuracy, 400 snippets, 200 steps): 0.20 vs 0.74 at seed 0;
0.205 vs 1.00 with seeds + 1000.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import (SCORES, accuracy, minibatches,
                                                          split, tiny_bert)

TITLE = "关于预测准确率"
LINK = "https://github.com/Socialbird-AILab/BERT-Classification-Tutorial/issues/11"
EXPECTED = ("BATCHES_OF_ONE_CLASS", "DATA_ORDER_REPEATS")
STEPS = 200
TOPICS = 10
BATCH = 32


def in_file_order(n, steps, batch_size=BATCH):
    """Row indices of a DataLoader with shuffle=False over n rows, epoch after epoch."""
    start = 0
    for _ in range(steps):
        yield torch.arange(start, start + batch_size) % n
        start = (start + batch_size) % n


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, mask, labels), (test_ids, test_mask, test_labels) = split(topics=TOPICS)
    order = torch.argsort(labels, stable=True)          # the file is grouped by label
    ids, mask, labels = ids[order], mask[order], labels[order]
    model = tiny_bert(num_labels=TOPICS)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    if fixed:
        batches = minibatches(len(ids), steps, BATCH)
    else:
        batches = in_file_order(len(ids), steps)        # BUG: shuffle=False
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batches:
            out = model(input_ids=ids[rows], attention_mask=mask[rows], labels=labels[rows])
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
            mon.step(out.loss)
    SCORES[__name__.rsplit(".", 1)[-1]] = accuracy(model, test_ids, test_mask, test_labels)
    return mon
