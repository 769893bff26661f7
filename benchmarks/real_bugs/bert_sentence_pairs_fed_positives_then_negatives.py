"""A BERT sentence-pair classifier (``[CLS] a [SEP] b [SEP]`` with ``token_type_ids``)
fine-tuned on a training file holding all its matching pairs first and all its
non-matching pairs after, read in that order without shuffling: each half-epoch is one
class, and the model ends training predicting the class of the last stretch ("not a
match") for nearly every held-out pair.

Reported: "Getting all negative predictions when fine-tune my data" -
https://github.com/google-research/bert/issues/154 (a sentence-pair task run through the
MRPC fine-tuning code on the user's own data: eval_tp = 0, eval_fp = 0, every prediction
negative; asked "Do you shuffle your data?", the user: "I forgot to shuffle the data").
Here a tiny ``BertForSequenceClassification`` (``BertConfig`` at random init, 2 layers of
width 32) on synthetic pairs of 3-topic snippets (a match when both share a topic), the
800 training pairs laid out positives first, cut into batches in order (``shuffle=False``)
for 12 epochs. Fix: shuffle the training pairs every epoch.

Measured harm (held-out accuracy, 400 pairs, about half matches, 300 steps): 0.507 vs
0.995 at seed 0; 0.50 vs 0.967 with seeds + 1000.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import (CLS, PAD, SCORES, SEP, accuracy,
                                                          documents, minibatches,
                                                          tiny_bert)

TITLE = "Getting all negative predictions when fine-tune my data"
LINK = "https://github.com/google-research/bert/issues/154"
EXPECTED = ("BATCHES_OF_ONE_CLASS", "DATA_ORDER_REPEATS")
STEPS = 300
TOPICS = 3
BATCH = 32
MAX_LEN = 32


def pairs(n):
    """``n`` sentence pairs as (input_ids, token_type_ids, attention_mask, labels), half of
    them matches (both snippets from one topic), in random order."""
    first, topic_a = documents(n, topics=TOPICS, min_words=3, max_words=13, signal=0.8)
    second, topic_b = documents(4 * n, topics=TOPICS, min_words=3, max_words=13, signal=0.8)
    match = torch.rand(n) < 0.5
    ids = torch.full((n, MAX_LEN), PAD, dtype=torch.int64)
    types = torch.zeros((n, MAX_LEN), dtype=torch.int64)
    labels = torch.zeros(n, dtype=torch.int64)
    for row in range(n):
        want_same = bool(match[row])
        pick = next(j for j in range(len(second))
                    if (int(topic_b[j]) == int(topic_a[row])) == want_same)
        b = second.pop(pick)
        topic_b = torch.cat([topic_b[:pick], topic_b[pick + 1:]])
        tokens_a = [CLS] + first[row] + [SEP]
        tokens = tokens_a + b + [SEP]
        ids[row, :len(tokens)] = torch.tensor(tokens)
        types[row, len(tokens_a):len(tokens)] = 1
        labels[row] = int(want_same)
    return ids, types, (ids != PAD).long(), labels


def in_file_order(n, steps, batch_size=BATCH):
    """Row indices of a DataLoader with shuffle=False over n rows, epoch after epoch."""
    start = 0
    for _ in range(steps):
        yield torch.arange(start, start + batch_size) % n
        start = (start + batch_size) % n


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, types, mask, labels = pairs(800)
    test_ids, test_types, test_mask, test_labels = pairs(400)
    order = torch.argsort(-labels, stable=True)      # the file: positives, then negatives
    ids, types, mask, labels = ids[order], types[order], mask[order], labels[order]
    model = tiny_bert(num_labels=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    if fixed:
        batches = minibatches(len(ids), steps, BATCH)
    else:
        batches = in_file_order(len(ids), steps)     # BUG: never shuffled
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batches:
            out = model(input_ids=ids[rows], token_type_ids=types[rows],
                        attention_mask=mask[rows], labels=labels[rows])
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
            mon.step(out.loss)
    SCORES[__name__.rsplit(".", 1)[-1]] = accuracy(model, test_ids, test_mask, test_labels,
                                                   token_type_ids=test_types)
    return mon
