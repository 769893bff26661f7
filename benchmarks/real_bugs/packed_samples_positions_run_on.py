"""A causal language model trained on packed rows - several independent samples back to
back, each closed by an end id - with position ids that run on across the whole row
(0..74). The model keeps samples apart where the position ids restart (as attention
kernels that read position ids for packing do), and they never restart: the mask is
causal over the whole row, the second sample starts at position 25 and reads the first. The model
is trained on samples that see strangers, at positions they never have when used alone.

Reported: "Fix packed sequence position IDs and cross-sample attention" -
https://github.com/huggingface/nanoVLM/pull/204 (with packing "sample B starts from a
non-zero position inside the packed sequence" and "sample B can still attend to sample A
unless the attention mask is document-aware"; "resetting position IDs alone is not
enough"; their check changes sample A and measures how much sample B's outputs move).
Here rows of three 24-character windows of the sonnets, each + an end id, a 2-layer
causal transformer. Fix: position ids restarting at 0 in each sample and a block-diagonal
causal mask built from them.

Measured (200 steps, seed 0): how much the second sample's logits move (mean absolute
change) when the first sample is replaced: bug 0.20, fixed 0.00; next-character loss on
512 held-out samples, each alone in its row as the model is used: bug 2.21, fixed 1.94.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "Fix packed sequence position IDs and cross-sample attention"
LINK = "https://github.com/huggingface/nanoVLM/pull/204"
EXPECTED = ("ATTENTION_CROSSES_DOCUMENTS",)
STEPS = 200
SAMPLE = 24          # characters per sample
PACKED = 3           # samples per row


class PackedCausalLM(nn.Module):
    def __init__(self, vocab, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(PACKED * (SAMPLE + 1), dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, position_ids):
        x = self.embed(input_ids) + self.position(position_ids)
        length = input_ids.shape[1]
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        sample = (position_ids == 0).cumsum(1)            # a new sample at each 0
        blocked = future | (sample[:, :, None] != sample[:, None, :])
        heads = self.layers.layers[0].self_attn.num_heads
        return self.head(self.layers(x, mask=blocked.repeat_interleave(heads, dim=0)))


def packed_rows(windows, end_id, reset_positions):
    """(input_ids, position_ids, targets): rows of PACKED samples, each + the end id."""
    end = torch.full_like(windows[:, :1], end_id)
    samples = torch.cat([windows, end], 1).view(-1, PACKED * (SAMPLE + 1))
    if reset_positions:
        positions = torch.arange(SAMPLE + 1).repeat(PACKED)
    else:
        positions = torch.arange(PACKED * (SAMPLE + 1))    # BUG: one run over the whole row
    positions = positions.expand(len(samples), -1)
    return samples[:, :-1], positions[:, :-1], samples[:, 1:]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = PackedCausalLM(vocab + 1)                     # + the end id
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, batch_size=PACKED * 16, length=SAMPLE - 1):
            input_ids, position_ids, targets = packed_rows(window, vocab, reset_positions=fixed)
            optimizer.zero_grad()
            logits = model(input_ids=input_ids, position_ids=position_ids)
            loss = F.cross_entropy(logits.transpose(1, 2), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
