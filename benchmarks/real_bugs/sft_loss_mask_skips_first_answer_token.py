"""Supervised fine-tuning of a causal language model on prompt + answer rows, the loss
kept to the answer by a loss mask. The mask is built over the input positions (1 from
the answer's first token on) and multiplied into the per-token loss of the labels, which
are the inputs shifted left by one: the mask lands one position late, and the answer's
first token - predicted at the prompt's last position - never enters the loss. The
model learns every answer token but the first, which is the one that depends on the
question.

Reported: "Fix the GPT SFT datasets loss mask bug" - https://github.com/NVIDIA-NeMo/Speech/pull/6409
("the mask position is off by 1. The first token in the label is not included in the loss
calculation"; merged). Here each row is 12 characters of the sonnets, a question id
(one of 8), then the answer: an answer id that the question decides, followed by the 12
characters that continue the text. A 2-layer causal transformer.
Fix: take the mask over the labels' positions, ``answer[:, 1:]``, not ``answer[:, :-1]``.

Measured (200 steps, seed 0; accuracy of the answer's first token on 512 held-out rows,
chance 1/8): bug 0.00 (it never learned to answer at all), fixed 1.00; mean of the
last 20 training losses: bug 2.32, fixed 2.15.
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import characters, train_watched

TITLE = "Fix the GPT SFT datasets loss mask bug"
LINK = "https://github.com/NVIDIA-NeMo/Speech/pull/6409"
EXPECTED = ("LOSS_MASK_SHIFTED",)
STEPS = 200
PROMPT, CONTINUATION, QUESTIONS = 12, 12, 8


class CausalLM(nn.Module):
    def __init__(self, vocab, length, dim=48):
        super().__init__()
        self.dim = dim
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(length, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=96, dropout=0.0,
                                           batch_first=True)
        self.layers = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        return self.head(self.layers(x, mask=mask, is_causal=True))


def sft_rows(ids, chars, steps, batch_size=32, seed=0):
    """(tokens (B, L), answer mask over the tokens (B, L)): 12 characters, a question id,
    its answer id, 12 more characters; the mask is 1 from the answer id on."""
    rng = np.random.default_rng(seed)
    length = PROMPT + 2 + CONTINUATION
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - length, batch_size)
        questions = torch.from_numpy(rng.integers(0, QUESTIONS, batch_size))
        rows = []
        for start, question in zip(starts.tolist(), questions.tolist()):
            text = ids[start:start + PROMPT + CONTINUATION]
            rows.append(torch.cat([text[:PROMPT], torch.tensor([chars + question]),
                                   torch.tensor([chars + QUESTIONS + (question * 3) % QUESTIONS]),
                                   text[PROMPT:]]))
        tokens = torch.stack(rows)
        answer = torch.zeros_like(tokens, dtype=torch.float32)
        answer[:, PROMPT + 1:] = 1.0
        yield tokens, answer


def masked_next_token_loss(logits, batch):
    """Cross-entropy of each label, averaged over the positions the mask keeps."""
    labels, mask = batch
    per_token = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
    return (per_token * mask).sum() / mask.sum()


def batches(ids, chars, steps, fixed):
    for tokens, answer in sft_rows(ids, chars, steps):
        # BUG when not fixed: the mask of the input positions, one position late for the labels
        mask = answer[:, 1:] if fixed else answer[:, :-1]
        yield tokens[:, :-1], (tokens[:, 1:], mask)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, chars = characters()
    vocab = chars + 2 * QUESTIONS
    model = CausalLM(vocab, PROMPT + 1 + CONTINUATION)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, masked_next_token_loss,
                         batches(ids, chars, steps, fixed), **watch)
