"""A small GPT-2-style causal LM and the prompt -> answer data the batch-291 cases share
(beginner causal-LM fine-tuning written by hand). Each example is ``<bos> s1..sk <sep>
s1..sk <eos>`` - a prompt of 2 to 6 random symbols, then the same symbols again as the
answer, then the end-of-text token - in a vocabulary where, as in GPT-2, the end-of-text
token is also the one handed out as padding when no pad token exists. The model takes
``attention_mask`` (1 real, 0 padding) and ``position_ids`` like a Hugging Face causal LM;
without ``position_ids`` it counts positions 0, 1, 2, ... along the row (``torch.arange``).
Each case keeps its own bug."""
import math

import torch
from torch import nn
from torch.nn import functional as F

EOS, BOS, SEP, FIRST, SYMBOLS = 0, 1, 2, 3, 16
VOCAB = FIRST + SYMBOLS
LONGEST = 2 * 6 + 3          # bos + 6 + sep + 6 + eos
MAX_POSITIONS = 32


def examples(count, generator):
    """``count`` token lists (unpadded) and, for each, the index of its <sep>."""
    rows, seps = [], []
    for _ in range(count):
        k = int(torch.randint(2, 7, (), generator=generator))
        prompt = torch.randint(FIRST, VOCAB, (k,), generator=generator).tolist()
        rows.append([BOS] + prompt + [SEP] + prompt + [EOS])
        seps.append(k + 1)
    return rows, seps


def data(train=4096, held_out=512):
    """Training and held-out examples, drawn from the torch seed the case set."""
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    return examples(train, generator), examples(held_out, generator)


def pad(rows, side="right", pad_id=EOS, length=None):
    """(ids, attention_mask) of ``rows`` padded with ``pad_id`` on ``side`` to ``length``
    (default: the longest row)."""
    length = length or max(len(r) for r in rows)
    ids = torch.full((len(rows), length), pad_id, dtype=torch.int64)
    mask = torch.zeros(len(rows), length, dtype=torch.int64)
    for i, row in enumerate(rows):
        if side == "right":
            ids[i, :len(row)], mask[i, :len(row)] = torch.tensor(row), 1
        else:
            ids[i, length - len(row):], mask[i, length - len(row):] = torch.tensor(row), 1
    return ids, mask


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, attention_mask):
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(length, length, dtype=torch.bool).tril()[None, None]
        if attention_mask is not None:
            allowed = allowed & attention_mask.bool()[:, None, None, :]
            allowed = allowed | torch.eye(length, dtype=torch.bool)   # a padded query sees itself
        weights = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
        return self.out((weights @ v).transpose(1, 2).reshape(batch, length, dim))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attention = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, attention_mask):
        x = x + self.attention(self.norm1(x), attention_mask)
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    """Token and learned absolute position embeddings, pre-norm blocks, a tied head."""

    def __init__(self, dim=64, layers=2, heads=4):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, dim)
        self.wpe = nn.Embedding(MAX_POSITIONS, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.02)

    def forward(self, input_ids, attention_mask=None, position_ids=None):
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1])[None]
        x = self.wte(input_ids) + self.wpe(position_ids)
        for block in self.blocks:
            x = block(x, attention_mask)
        return self.norm(x) @ self.wte.weight.T


def answer_accuracy(model, rows, seps):
    """Held-out answer accuracy: every answer token and the <eos> predicted (argmax, teacher
    forced) from one unpadded example at a time - how a single prompt is run."""
    was_training = model.training
    model.eval()
    right = total = 0
    with torch.no_grad():
        for row, sep in zip(rows, seps):
            ids = torch.tensor([row])
            predicted = model(ids)[0, sep:-1].argmax(-1)
            target = ids[0, sep + 1:]
            right += int((predicted == target).sum())
            total += len(target)
    model.train(was_training)
    return right / total
