"""A sequence tagger whose loader reads each line's tokens one position late: an empty
token is prepended to the text, so every token sits one place to the right of its tag and
the tagger is taught the tag of the token before. A bidirectional tagger can learn that
rule (it sees the neighbour), so the training loss falls; on correctly aligned text its
tags are off by one, wrong at every word boundary.

Reported: "ner_utils lazy_loading_start_line default injects unigram into first sample" -
https://github.com/ThilinaRajapakse/simpletransformers/pull/1384 ("linecache is 1 relative
not 0. The PR fixes the first sample being prepended with an empty unigram. Subsequently
the unigram causes a one unigram shift as compared to the original data and labels.
Affects NER training and eval."). Here the GRU tagger of
``tagger_padded_tags_counted_in_loss`` (sonnet lines, characters tagged B-/I- of a
capitalised or lower-case word, or O; padding left out of the loss) trains on the shifted
lines and is scored on aligned held-out lines.

Measured (200 steps of SGD, 27 held-out lines, accuracy on the real characters): 0.41
with the bug, 0.99 fixed.
Fix: read the text from the same line as its tags (``lazy_loading_start_line=1``): no
prepended token.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs.tagger_padded_tags_counted_in_loss import (
    HELD_OUT, Tagger, line_batches, real_accuracy, tagged_lines)

TITLE = "ner_utils lazy_loading_start_line default injects unigram into first sample"
LINK = "https://github.com/ThilinaRajapakse/simpletransformers/pull/1384"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
EMPTY = 0                   # the empty unigram reads as the padding id


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    ids, tags, vocab = tagged_lines()
    if not fixed:   # BUG: an empty token prepended, the text one position late
        ids = torch.cat([torch.full_like(ids[:, :1], EMPTY), ids[:, :-1]], dim=1)
    model = Tagger(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch, batch_tags in line_batches(ids[:-HELD_OUT], tags[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(batch).transpose(1, 2), batch_tags, ignore_index=0)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    aligned, aligned_tags, _ = tagged_lines()
    mon.accuracy = real_accuracy(model, aligned[-HELD_OUT:], aligned_tags[-HELD_OUT:])
    return mon
