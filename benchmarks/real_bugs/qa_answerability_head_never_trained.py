"""A SQuAD 2.0 reader with an answerability head (XLNet's: a logit from the [CLS] state,
trained with binary cross-entropy on ``is_impossible`` and read at decoding time to decide
"no answer") whose training batches never pass ``is_impossible``. The model adds the
answerability term only when that argument is given, so the head keeps its initial
weights while the span heads train normally: the loss falls, nothing errors, and the
decoding's "no answer" call is made by an untrained layer.

Reported: "fix run_squad.py during fine-tuning xlnet on squad2.0" -
https://github.com/huggingface/transformers/pull/1803 (``run_squad.py`` built its XLNet
inputs without ``is_impossible``, whose default is None, so ``XLNetForQuestionAnswering``
skipped the ``cls_logits`` loss; the reporter got an F1 close to 0 on the unanswerable
questions, and after adding ``is_impossible`` to the dataset and the model inputs, exact
80.4 / F1 84.1, NoAns exact 84.1). Here: the batch-131 reader
(benchmarks/real_bugs/_qa_spans.py) with an answerability logit read from the [CLS] state,
on 2,000 synthetic questions in the BERT layout, 40% unanswerable (span labels on [CLS]),
Adam 3e-3, batch 32; held-out decoding answers "no answer" when the answerability
probability passes 0.5, else the best span. Fix: ``is_impossible`` passed with every batch.

Measured (exact match on 500 held-out questions, "no answer" counted right on
unanswerable ones; no-answer accuracy in brackets): seed 0: 0.58 for the bug against 1.00
for the fixed twin (0.05 against 0.99); seeds shifted by 1000: 0.56 against 1.00 (0.00
against 1.00).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_spans import (CLS, OFFSET, SEP, SpanReader, best_span,
                                            passage, span_loss)

TITLE = "fix run_squad.py during fine-tuning xlnet on squad2.0"
LINK = "https://github.com/huggingface/transformers/pull/1803"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING")
STEPS = 400
UNANSWERABLE = 0.4
LONGEST = 16


class Reader(SpanReader):
    """Start and end logits per token and an answerability logit from the [CLS] state."""

    def __init__(self):
        super().__init__()
        self.answer_class = torch.nn.Linear(2 * 32, 1)

    def forward(self, tokens, question, starts, ends, is_impossible=None):
        words = self.embed(tokens)
        asked = self.embed(question).mean(dim=1, keepdim=True).expand_as(words)
        states, _ = self.rnn(torch.cat([words, asked, words * asked], dim=-1))
        logits = self.head(states)
        start_logits, end_logits = logits[..., 0], logits[..., 1]
        cls_logits = self.answer_class(states[:, 0]).squeeze(-1)
        loss = span_loss(start_logits, end_logits, starts, ends)
        if is_impossible is not None:        # the term the model adds only when asked
            loss = loss + 0.5 * torch.nn.functional.binary_cross_entropy_with_logits(
                cls_logits, is_impossible)
        return loss, start_logits, end_logits, cls_logits


def questions(rng, count):
    """BERT layout, right-padded: tokens (N, 20), question (N, 1), span labels ([CLS]'s 0
    when unanswerable), is_impossible (N,) as floats, the passage mask (N, 20)."""
    tokens = torch.zeros(count, LONGEST + OFFSET + 1, dtype=torch.int64)
    in_passage = torch.zeros_like(tokens, dtype=torch.bool)
    question = torch.zeros(count, 1, dtype=torch.int64)
    starts = torch.zeros(count, dtype=torch.int64)
    ends = torch.zeros(count, dtype=torch.int64)
    impossible = torch.zeros(count)
    for row in range(count):
        n = int(rng.integers(10, LONGEST + 1))
        has_answer = rng.random() >= UNANSWERABLE
        words, key, span = passage(rng, n, answerable=has_answer)
        tokens[row, :n + OFFSET + 1] = torch.tensor([CLS, key, SEP, *words.tolist(), SEP])
        in_passage[row, OFFSET:OFFSET + n] = True
        question[row, 0] = key
        if has_answer:
            starts[row], ends[row] = span[0] + OFFSET, span[1] + OFFSET
        impossible[row] = float(not has_answer)
    return tokens, question, starts, ends, impossible, in_passage


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, question, starts, ends, impossible, _ = questions(rng, 2000)
    h_tokens, h_question, h_starts, h_ends, h_impossible, h_passage = questions(rng, 500)
    model = Reader()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(tokens), steps, 32, seed=0):
            inputs = dict(tokens=tokens[index], question=question[index],
                          starts=starts[index], ends=ends[index])
            if fixed:
                inputs["is_impossible"] = impossible[index]
            # BUG (fixed=False): the batch carries no is_impossible, the head is not trained
            loss = model(**inputs)[0]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        _, start_logits, end_logits, cls_logits = model(h_tokens, h_question, h_starts,
                                                        h_ends)
        s, e, _ = best_span(start_logits, end_logits, h_passage)
        null = torch.sigmoid(cls_logits) > 0.5
    unanswerable = h_impossible.bool()
    right = torch.where(unanswerable, null, ~null & (s == h_starts) & (e == h_ends))
    mon.held_out_exact_match = right.float().mean().item()
    mon.held_out_no_answer_accuracy = null[unanswerable].float().mean().item()
    return mon
