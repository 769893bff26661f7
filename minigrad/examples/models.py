"""Models written once, run in minigrad and in PyTorch.

Each builder takes a *framework*: a namespace with the framework's ``nn``, ``F``
(functional), ``optim``, and two helpers torch and minigrad spell differently
enough to matter here, ``tensor(array)`` (keeps the array's dtype) and
``causal_mask(T)``. Everything else - layers, their parameter names, tensor
methods such as ``reshape``/``transpose``/slicing, ``@``, the losses - is spelled
the same, so the very same class definition runs on both, and
``mg_model.load_state_dict(torch_model.state_dict())`` gives two identical models.
"""
import math
import types

import numpy as np


def minigrad_framework():
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.nn.functional as F
    import minigrad.optim as optim
    return types.SimpleNamespace(
        name="minigrad", nn=nn, F=F, optim=optim, no_grad=mg.no_grad,
        manual_seed=mg.manual_seed,
        tensor=lambda array: mg.tensor(array, dtype=np.asarray(array).dtype),
        numpy=lambda t: t.data)


def torch_framework():
    import torch
    return types.SimpleNamespace(
        name="torch", nn=torch.nn, F=torch.nn.functional, optim=torch.optim,
        no_grad=torch.no_grad, manual_seed=torch.manual_seed,
        tensor=lambda array: torch.from_numpy(np.array(array)),
        numpy=lambda t: t.detach().numpy())


def additive_causal_mask(fw, size):
    """(size, size) constant: 0 where query i may see key j (j <= i), -inf above the diagonal.

    float32 like the parameters; kept as a buffer, so ``model.double()`` converts it too.
    """
    return fw.tensor(np.triu(np.full((size, size), -np.inf, dtype=np.float32), k=1))


def make_gpt(fw, vocab_size, block_size=16, n_embd=32, n_head=4, n_layer=2, dropout=0.0,
             attention="hand", gelu="none"):
    """A GPT (token + position embeddings, pre-norm blocks, tied-free head) for framework ``fw``.

    ``attention="hand"`` spells attention out (scores, mask, softmax, weighted sum);
    ``"sdpa"`` calls ``F.scaled_dot_product_attention(q, k, v, is_causal=True)``.
    ``gelu`` is ``nn.GELU``'s ``approximate``: "none" (exact, erf) or "tanh" (GPT-2's).
    """
    nn, F = fw.nn, fw.F

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(n_embd, 3 * n_embd)
            self.proj = nn.Linear(n_embd, n_embd)
            self.drop = nn.Dropout(dropout)
            self.register_buffer("mask", additive_causal_mask(fw, block_size), persistent=False)

        def forward(self, x):
            batch, length, _ = x.shape
            # (B, T, 3C) -> (3, B, heads, T, C / heads): q, k and v with their heads apart
            qkv = self.qkv(x).reshape(batch, length, 3, n_head, n_embd // n_head)
            qkv = qkv.permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            if attention == "sdpa":
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                # scaling q before the product is the same as scaling the scores, on fewer numbers
                q = q * (1.0 / math.sqrt(n_embd // n_head))
                mask = self.mask if length == block_size else self.mask[:length, :length]
                scores = q @ k.transpose(-2, -1) + mask     # the future is -inf
                y = self.drop(F.softmax(scores, dim=-1)) @ v
            y = y.transpose(1, 2).reshape(batch, length, n_embd)
            return self.drop(self.proj(y))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.ln2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(approximate=gelu),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.block_size = block_size
            self.token = nn.Embedding(vocab_size, n_embd)
            self.position = nn.Embedding(block_size, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab_size)
            self.positions = fw.tensor(np.arange(block_size))

        def forward(self, ids, targets=None):
            length = ids.shape[1]
            x = self.token(ids) + self.position(self.positions[:length])
            logits = self.head(self.ln_f(self.blocks(x)))
            if targets is None:
                return logits
            loss = F.cross_entropy(logits.reshape(-1, vocab_size), targets.reshape(-1))
            return logits, loss

    return GPT()


def make_recurrent_lm(fw, vocab_size, kind="LSTM", n_embd=16, hidden=24, num_layers=2):
    """Embedding -> 2-layer LSTM or GRU (batch_first) -> linear head, for framework ``fw``."""
    nn, F = fw.nn, fw.F

    class RecurrentLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, n_embd)
            self.rnn = getattr(nn, kind)(n_embd, hidden, num_layers=num_layers, batch_first=True)
            self.head = nn.Linear(hidden, vocab_size)

        def forward(self, ids, targets=None):
            out, _ = self.rnn(self.embed(ids))
            logits = self.head(out)
            if targets is None:
                return logits
            return logits, F.cross_entropy(logits.reshape(-1, vocab_size), targets.reshape(-1))

    return RecurrentLM()
