"""Span labels made with a check that reads a start of 0 as "no answer": the labeller keeps
an answer when ``passage_len > start > 0``, so an answer beginning at the passage's very
first word falls through to the no-answer label, start = end = 0 ([CLS]). The reader is
then taught that a question answered by the first word has no answer, and the decoding -
which answers "no answer" when the [CLS] score beats every span - abstains on exactly those
questions. The loss falls as usual (the wrong labels are consistent, so they are easy to
fit), nothing errors.

Reported: "QA Answers at the Beginning of the Document are Labeled as (0, 0)" -
https://github.com/deepset-ai/FARM/issues/558 (FARM's ``generate_labels`` tested
``passage_len > start_idx > 0``; an answer starting at the document's first token - the
company name heading a financial statement, in the report - got the labels (0, 0), the
no-answer label; the fix, ``passage_len > start_idx >= 0``, came in
https://github.com/deepset-ai/FARM/pull/564, "Fix QA bug that rejected spans at beginning
of passage"). Here: the batch-131 reader (benchmarks/real_bugs/_qa_spans.py) on 2,000
synthetic questions, a quarter of them answered from the passage's first word (document
fields: a title, a name), Adam 3e-3, batch 32; held-out decoding answers [CLS] (no answer)
when its score beats the best span, as FARM's does. Fix: the start index 0 counts as in the
passage.

Measured (exact match on 500 held-out questions, and on those answered by the first word):
seed 0: 0.69 for the bug against 1.00 for the fixed twin (first-word answers 0.00 against
1.00); seeds shifted by 1000: 0.64 against 1.00 (0.00 against 1.00).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_spans import (OFFSET, SpanReader, bert_layout, best_span,
                                            span_loss)

TITLE = "QA Answers at the Beginning of the Document are Labeled as (0, 0)"
LINK = "https://github.com/deepset-ai/FARM/issues/558"
EXPECTED = ("SPAN_LABELS_DROP_FIRST_POSITION",)
STEPS = 400
AT_START = 0.25


def labels(starts, ends, fixed):
    """The labeller: passage-relative starts in range are kept, the rest become (0, 0)."""
    start_idx = starts - OFFSET
    if fixed:
        kept = start_idx >= 0
    else:
        kept = start_idx > 0                     # BUG: an answer at the first word is lost
    return torch.where(kept, starts, 0), torch.where(kept, ends, 0)


def decode(model, tokens, question, in_passage):
    """FARM-style: the best span, or [CLS] (no answer) when its score is higher."""
    with torch.no_grad():
        start_logits, end_logits = model(tokens, question)
        s, e, score = best_span(start_logits, end_logits, in_passage)
        null = start_logits[:, 0] + end_logits[:, 0] > score
    return torch.where(null, 0, s), torch.where(null, 0, e)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, question, starts, ends, _ = bert_layout(rng, 2000, at_start=AT_START)
    h_tokens, h_question, h_starts, h_ends, h_passage = bert_layout(rng, 500,
                                                                    at_start=AT_START)
    train_starts, train_ends = labels(starts, ends, fixed)
    model = SpanReader()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(tokens), steps, 32, seed=0):
            loss = span_loss(*model(tokens[index], question[index]), train_starts[index],
                             train_ends[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    s, e = decode(model, h_tokens, h_question, h_passage)
    hit = (s == h_starts) & (e == h_ends)
    mon.held_out_exact_match = hit.float().mean().item()
    mon.held_out_first_word_exact_match = hit[h_starts == OFFSET].float().mean().item()
    return mon
