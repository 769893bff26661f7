"""Rotary position embeddings whose position indices are made in the activations' dtype:
under bfloat16 the integers above 256 are no longer all representable (the spacing is 2
from 256 to 512), so ``arange(seq_len)`` in bf16 reads 256, 256, 258, 260, 260, 260, ...:
neighbouring tokens get the same rotation, and attention can no longer tell a token's
neighbour from the token itself, or two neighbours apart, past position 256. Training runs,
the loss falls (the first 256 positions are learned), nothing is NaN: the model is just
blind to order in the back half of every sequence.

Reported: "Fix/rope cache dtype" - https://github.com/nkalyanv99/UNI-D2/pull/6 (the RoPE
cache took its positions from ``torch.arange(...).type_as(self.inv_freq)``; once the model
is cast to bf16/fp16 the buffer, and so the positions, are bf16, and "positions above 256
can no longer represent every consecutive integer exactly. The position sequence starts
to alias or skip values"; the fix builds the positions and the frequencies in float32 and
casts only the cos/sin tables).

Here one causal attention head with RoPE (head size 32, base 10000) over sequences of 512
random tokens from 16, asked at every position for a fixed relabelling (a random
permutation of the 16 ids) of the token just before it (a previous-token head: it must
attend to relative offset 1), float32 weights trained under
``torch.autocast("cpu", dtype=torch.bfloat16)`` (so the projections are bf16 and the
positions are made in their dtype), Adam at 3e-3, batches of 8. Fix: positions in float32.

Measured (held-out accuracy of the relabelled previous token at positions 256-511, 32 fresh
sequences): seed 0: 0.64 with the bug against 0.94 for the fixed twin; seeds shifted by
1000: 0.63 against 0.94 (at positions 1-255, where bf16 still holds every integer: 0.88
against 0.94, and 0.88 against 0.93).
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "Fix/rope cache dtype"
LINK = "https://github.com/nkalyanv99/UNI-D2/pull/6"
EXPECTED = ("POSITIONS_ROUNDED_BY_LOW_PRECISION", "INPUTS_ROUNDED_BY_LOW_PRECISION")
STEPS = 300
VOCAB, LENGTH, WIDTH, BATCH = 16, 512, 32, 8
FAR = 256          # from here on bf16 can no longer hold every integer


class RotaryHead(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.q, self.k, self.v = (nn.Linear(WIDTH, WIDTH) for _ in range(3))
        self.out = nn.Linear(WIDTH, VOCAB)
        self.register_buffer("inv_freq",
                             1.0 / 10000 ** (torch.arange(0, WIDTH, 2).float() / WIDTH))

    def rotate(self, h):
        dtype = torch.float32 if self.fixed else h.dtype   # BUG: bf16 under autocast
        positions = torch.arange(h.shape[1], dtype=dtype)
        angles = positions[:, None] * self.inv_freq[None, :]
        cos, sin = angles.cos(), angles.sin()
        first, second = h[..., :WIDTH // 2], h[..., WIDTH // 2:]
        return torch.cat([first * cos - second * sin, first * sin + second * cos], -1)

    def forward(self, ids):
        e = self.embed(ids)
        q, k, v = self.rotate(self.q(e)), self.rotate(self.k(e)), self.v(e)
        att = torch.nn.functional.scaled_dot_product_attention(
            q.to(v.dtype), k.to(v.dtype), v, is_causal=True)
        return self.out(att)


def _batch(generator, size=BATCH):
    return torch.randint(0, VOCAB, (size, LENGTH), generator=generator)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(torch.randint(0, 2**31, ()).item())
    relabel = torch.randperm(VOCAB)
    model = RotaryHead(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            ids = _batch(data)
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(ids)
            loss = torch.nn.functional.cross_entropy(
                logits[:, 1:].float().reshape(-1, VOCAB), relabel[ids[:, :-1]].reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    ids = _batch(data, 32)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        hit = model(ids)[:, 1:].float().argmax(-1) == relabel[ids[:, :-1]]
    mon.held_out_accuracy = hit[:, FAR:].float().mean().item()
    mon.held_out_accuracy_first_256 = hit[:, :FAR - 1].float().mean().item()
    return mon
