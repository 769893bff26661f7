"""The tag-to-id map is rebuilt from each file in the order the tags first appear: the
training file's map is used to train, and the test file gets a map of its own, built the
same way from its own tags. The two orders differ (here the test file meets B-LOC before
B-PER), so the test labels the tagger is scored against are permuted ids of the ones it
learnt: training and validation look fine, test F1 is near zero.

Reported: "训练中在train和val数据上f1正常，但是在test数据上f1得分特低" ("F1 is normal on
train and val during training, but very low on test") -
https://github.com/lemonhu/NER-BERT-pytorch/issues/20 (train f1 96.55, val 95.67, test
f1 00.02; the author: "one possible cause is that the tag2idx used in training differs
from the one at test time"; the reporter: "it was indeed the tag order: the tag2id of train
and test did not correspond. Solved"). Here the PER/LOC BIO sentences of ``_crf_tagging``
read as tag strings, a BiLSTM tagger, Adam, 200 steps.

Fix: build the tag map once, from the training file (or a fixed tag list), and encode every
split with it.

Measured (held-out entity F1 against the test labels as encoded): 0.00 with the bug, 0.88
fixed; seeds + 1000: 0.01 vs 0.88.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._token_tagging import (TAGS, Tagger, data, entity_f1,
                                                 length_mask, predicted_lists, trimmed)

TITLE = "训练中在train和val数据上f1正常，但是在test数据上f1得分特低"
LINK = "https://github.com/lemonhu/NER-BERT-pytorch/issues/20"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
NAMES = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")


def as_strings(tags, lengths):
    return [[NAMES[t] for t in row[:n].tolist()] for row, n in zip(tags, lengths.tolist())]


def tag_vocabulary(tagged):
    """tag -> id in the order the tags first appear in the file."""
    vocab = {}
    for sentence in tagged:
        for tag in sentence:
            vocab.setdefault(tag, len(vocab))
    return vocab


def encode(tagged, vocab, width):
    out = torch.zeros(len(tagged), width, dtype=torch.long)
    for row, sentence in enumerate(tagged):
        out[row, :len(sentence)] = torch.tensor([vocab[t] for t in sentence])
    return out


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), (held_ids, held_tags, held_lengths) = data()
    train_strings = as_strings(tags, lengths)
    # the test file, as it was written out: its first sentences open with a LOC entity
    order = torch.tensor(sorted(range(len(held_ids)), key=lambda r: int(held_tags[r, 0] != 3)))
    held_ids, held_tags, held_lengths = held_ids[order], held_tags[order], held_lengths[order]
    test_strings = as_strings(held_tags, held_lengths)
    train_vocab = tag_vocabulary(train_strings)
    # BUG when not fixed: the test file gets a tag map built from its own tags
    test_vocab = train_vocab if fixed else tag_vocabulary(test_strings)
    y = encode(train_strings, train_vocab, ids.shape[1])
    held_y = encode(test_strings, test_vocab, held_ids.shape[1])
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, y, lengths, index)
            gold = gold.masked_fill(~length_mask(size, words.shape[1]), -100)
            loss = F.cross_entropy(model(words).reshape(-1, TAGS), gold.reshape(-1),
                                   ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    # ids -> names with the training map (the model's outputs), then scored as BIO spans
    # against the test labels decoded with the training map too (as the script did)
    to_canonical = {i: NAMES.index(t) for t, i in train_vocab.items()}
    predicted = [[to_canonical[p] for p in row]
                 for row in predicted_lists(model, (held_ids, held_y, held_lengths))]
    gold = [[to_canonical.get(g, 0) for g in held_y[r, :n].tolist()]
            for r, n in enumerate(held_lengths.tolist())]
    mon.held_out_f1 = entity_f1(predicted, gold)
    return mon
