"""SQuAD 2.0-style training for a model whose [CLS] token comes LAST (XLNet's layout:
passage, [SEP], question, [SEP], [CLS]), with the no-answer label written as position 0,
BERT's [CLS] position. Here position 0 is the passage's first word, so every unanswerable
question is taught that its answer is the first word, the [CLS] token is never a target,
and the decoding - "no answer" when the [CLS] score beats the best span - never abstains:
it answers the first word instead. The loss falls as usual (the first-word label is
consistent, so easy to fit), nothing errors.

Reported: "start_position=0 in utils_squad.py when span is impossible" -
https://github.com/huggingface/transformers/issues/1282 (``convert_examples_to_features``
set ``start_position = end_position = 0`` for out-of-span and impossible answers while
building XLNet features with ``cls_token_at_end``; the reporter pointed out that the
label should be ``cls_index``, the position of the [CLS] token, which later versions of
the feature code use). Here: the batch-131 reader (benchmarks/real_bugs/_qa_spans.py) on
2,000 synthetic questions over passages of 14 words, 40% of them unanswerable (the asked
word is not in the passage), in XLNet's layout; Adam 3e-3, batch 32; held-out decoding
answers "no answer" when the [CLS] start + end score beats the best span. Fix: the
no-answer label is the [CLS] token's index.

Measured (exact match on 500 held-out questions, "no answer" counted right on
unanswerable ones): seed 0: 0.60 for the bug against 1.00 for the fixed twin (no-answer
accuracy 0.00 against 1.00); seeds shifted by 1000: 0.61 against 1.00 (0.00 against 1.00).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_spans import CLS, SEP, SpanReader, best_span, passage, span_loss

TITLE = "start_position=0 in utils_squad.py when span is impossible"
LINK = "https://github.com/huggingface/transformers/issues/1282"
EXPECTED = ("NULL_LABEL_NOT_ON_CLS_TOKEN",)
STEPS = 400
WORDS = 14
CLS_INDEX = WORDS + 3                   # passage, [SEP], key, [SEP], then [CLS]
UNANSWERABLE = 0.4


def xlnet_layout(rng, count, null_position):
    """tokens (N, 18), question (N, 1), start and end labels (N,) - ``null_position`` for
    the unanswerable - and whether each question has an answer (N,)."""
    tokens = torch.zeros(count, WORDS + 4, dtype=torch.int64)
    question = torch.zeros(count, 1, dtype=torch.int64)
    starts = torch.zeros(count, dtype=torch.int64)
    ends = torch.zeros(count, dtype=torch.int64)
    answerable = torch.zeros(count, dtype=torch.bool)
    for row in range(count):
        has_answer = rng.random() >= UNANSWERABLE
        words, key, span = passage(rng, WORDS, answerable=has_answer)
        tokens[row] = torch.tensor([*words.tolist(), SEP, key, SEP, CLS])
        question[row, 0] = key
        starts[row], ends[row] = span if has_answer else (null_position, null_position)
        answerable[row] = has_answer
    return tokens, question, starts, ends, answerable


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    null_position = CLS_INDEX if fixed else 0    # BUG: BERT's [CLS] position, a word here
    tokens, question, starts, ends, _ = xlnet_layout(rng, 2000, null_position)
    h_tokens, h_question, h_starts, h_ends, h_answerable = xlnet_layout(rng, 500, CLS_INDEX)
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
        start_logits, end_logits = model(h_tokens, h_question)
        in_passage = torch.zeros_like(h_tokens, dtype=torch.bool)
        in_passage[:, :WORDS] = True
        s, e, score = best_span(start_logits, end_logits, in_passage)
        null = start_logits[:, CLS_INDEX] + end_logits[:, CLS_INDEX] > score
    right = torch.where(h_answerable, ~null & (s == h_starts) & (e == h_ends), null)
    mon.held_out_exact_match = right.float().mean().item()
    mon.held_out_no_answer_accuracy = null[~h_answerable].float().mean().item()
    return mon
