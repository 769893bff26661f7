"""A BiDAF-style reader whose passages are padded on the LEFT while the answer-span labels
count words from the passage's start. The padding helper put every sequence at the end of
its row (the default meant for questions, whose end matters most), so in a passage of n
words padded to 24, the label "word 5" points at row position 5 - padding, or a word 24 - n
places before the answer. To hit its labels the reader would have to count the padding;
it learns little. Nothing errors: the labels are
in range and the shapes agree.

Reported: "More minor fixes to make running BiDAF work" -
https://github.com/allenai/deep_qa/pull/196 (deep_qa padded passages with
``pad_word_sequence``, whose ``truncate_from_right=True`` default right-aligns a sequence
- zeros first - while the character-span labels index the passage from its first word;
"the main fix here is in the direction that character span instances are padded from.
That fix made the model actually train correctly", after which BiDAF came within a few
percent of the original implementation: the passage padded with
``truncate_from_right=False``). Here: the batch-131 reader
(benchmarks/real_bugs/_qa_spans.py) reading the padded passage with the question word as
its question features, 2,000 synthetic questions over passages of 6-24 words padded to
24, Adam 3e-3, batch 32. Fix: the passage padded on the right, words first.

Measured (exact match on 500 held-out questions, padded and labelled as in training - the
metric the report's run scored itself with): seed 0: 0.08 for the bug against 1.00 for the
fixed twin; seeds shifted by 1000: 0.09 against 1.00.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_spans import SpanReader, best_span, passage, span_loss

TITLE = "More minor fixes to make running BiDAF work"
LINK = "https://github.com/allenai/deep_qa/pull/196"
EXPECTED = ("SPAN_LABELS_POINT_AT_PADDING", "LABELS_MISALIGNED")
STEPS = 400
LONGEST = 24


def padded_passages(rng, count, fixed):
    """passages (N, 24) padded with 0, question (N, 1), the span labels counted from each
    passage's first word (N,) twice, and where the row holds words (N, 24)."""
    rows = torch.zeros(count, LONGEST, dtype=torch.int64)
    question = torch.zeros(count, 1, dtype=torch.int64)
    starts = torch.zeros(count, dtype=torch.int64)
    ends = torch.zeros(count, dtype=torch.int64)
    for row in range(count):
        n = int(rng.integers(6, LONGEST + 1))
        words, key, (start, end) = passage(rng, n)
        if fixed:
            rows[row, :n] = torch.from_numpy(words)       # words first, zeros after
        else:
            rows[row, LONGEST - n:] = torch.from_numpy(words)   # BUG: zeros first
        question[row, 0] = key
        starts[row], ends[row] = start, end               # counted from the first word
    return rows, question, starts, ends


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, question, starts, ends = padded_passages(rng, 2000, fixed)
    h_tokens, h_question, h_starts, h_ends = padded_passages(rng, 500, fixed)
    model = SpanReader()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(tokens), steps, 32, seed=0):
            loss = span_loss(*model(tokens[index], question[index]), starts[index],
                             ends[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        everywhere = torch.ones_like(h_tokens, dtype=torch.bool)
        s, e, _ = best_span(*model(h_tokens, h_question), everywhere)
    mon.held_out_exact_match = ((s == h_starts) & (e == h_ends)).float().mean().item()
    return mon
