"""An extractive reader whose END labels come from the character just AFTER the answer:
the labelling step of a first question-answering tutorial converts ``answer_end`` (=
answer_start + len(text), one past the answer's last character) with ``char_to_token``
instead of ``answer_end - 1``. When the answer is followed by a space - most answers -
that character belongs to no token, ``char_to_token`` answers None, the tutorial replaces
None by ``model_max_length`` ("the answer passage has been truncated"), and the model's
loss clamps it to the sequence length and ignores it: the end head gets no label at all.
When a comma is glued to the answer, the label is the comma, one token too far. The end
head is trained on a third of the questions, each labelled one token late, so the spans it
predicts end on the comma or nowhere in particular; the start loss and the total loss fall
as usual.

Reported: "Fix add_token_positions in custom datasets tutorial" -
https://github.com/huggingface/transformers/pull/10217 ("The example
`add_token_positions` function incorrectly converts `answers[i]['answer_end']` to its
corresponding tokenized index rather than `answers[i]['answer_end'] - 1`", discussed in
issue 10210). Here the batch-289 character-offset task (benchmarks/real_bugs/
_qa_offsets289.py: answers followed by a glued comma in about a third of the passages,
by " the" otherwise), the batch-131 ``SpanReader``, rows ``[CLS] key [SEP] passage [SEP]``,
the loss of ``BertForQuestionAnswering`` (positions clamped to the sequence length, which
is the ignore index; the mean of the start and end cross-entropies), 2,000 questions,
Adam 3e-3, 300 steps of 32.

Fix: ``char_to_token(answer_end - 1)``, the answer's last character.

Measured (exact match on 500 held-out questions, best span of at most 4 tokens over the
passage): 0.23 with the bug, 1.00 fixed; seeds + 1000: 0.12 vs 1.00.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_offsets289 import OFFSET, bert_rows, char_to_token
from benchmarks.real_bugs._qa_spans import SpanReader, best_span

TITLE = "Fix add_token_positions in custom datasets tutorial"
LINK = "https://github.com/huggingface/transformers/pull/10217"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
MODEL_MAX_LENGTH = 512          # the tokenizer's, put in for a position it did not find


def token_positions(answers, fixed):
    """The tutorial's add_token_positions: start and end token positions from the
    character answers, None replaced by model_max_length."""
    starts, ends = [], []
    for spans, answer_start, answer_end in answers:
        start = char_to_token(spans, answer_start)
        if fixed:
            end = char_to_token(spans, answer_end - 1)
        else:
            end = char_to_token(spans, answer_end)      # BUG: one past the answer
        starts.append(MODEL_MAX_LENGTH if start is None else start + OFFSET)
        ends.append(MODEL_MAX_LENGTH if end is None else end + OFFSET)
    return torch.tensor(starts), torch.tensor(ends)


def qa_loss(start_logits, end_logits, starts, ends):
    """BertForQuestionAnswering's loss: positions outside the inputs are clamped to the
    sequence length and ignored."""
    ignored = start_logits.shape[1]
    starts, ends = starts.clamp(0, ignored), ends.clamp(0, ignored)
    start_loss = F.cross_entropy(start_logits, starts, ignore_index=ignored)
    end_loss = F.cross_entropy(end_logits, ends, ignore_index=ignored)
    return (start_loss + end_loss) / 2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, question, _, _, _, answers = bert_rows(rng, 2000)
    h_tokens, h_question, h_starts, h_ends, h_passage, _ = bert_rows(rng, 500)
    starts, ends = token_positions(answers, fixed)
    model = SpanReader()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(tokens), steps, 32, seed=0):
            start_logits, end_logits = model(tokens[index], question[index])
            loss = qa_loss(start_logits, end_logits, starts[index], ends[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        s, e, _ = best_span(*model(h_tokens, h_question), h_passage)
    mon.held_out_exact_match = ((s == h_starts) & (e == h_ends)).float().mean().item()
    return mon
