"""A DGCNN-style graph classifier on padded dense batches whose SortPooling sorts every
row of the padded node tensor - real atoms and padding alike - by the last channel and
keeps the top k. The padded rows hold zeros, the last channel is a tanh that is negative
for many real atoms, so the zero rows of padding outrank them: a molecule in a batch with
a larger molecule gets its negative-valued atoms replaced by empty rows, how many depends
on the largest molecule drawn with it, and the same molecule reads differently from batch
to batch. The loss falls; held-out accuracy stays low.

Reported: "Feature/1044 sortpooling layer" -
https://github.com/stellargraph/stellargraph/pull/1210 (review: "this currently doesn't
handle padding perfectly; any padding values may be sorted higher than some elements").
Here the synthetic molecules of ``_graph_readout`` labelled by the tertile of their
property (3 classes), padded per batch; an atom embedding, three graph convolutions
tanh(D^-1 sum_r A_r H W_r) over one adjacency per bond type plus the self-loops (the last
of width 1, the sort key), their outputs concatenated, SortPooling with k = 8, an MLP on
the k sorted rows; Adam 3e-3, 400 steps of 32 molecules; the held-out molecules scored in
padded batches of 32.

Fix: sort the real atoms only - give the padded rows a sort key of -inf before the
argsort, so they sort after every real atom and only fill the places a small molecule
lacks.

Measured (held-out accuracy, 400 molecules): 0.64 with the bug, 0.68 fixed; seeds + 1000:
0.66 vs 0.76. Held-out cross-entropy: 0.86 vs 0.72; seeds + 1000: 0.76 vs 0.60.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_batches290 import padded, typed_adjacency
from benchmarks.real_bugs._graph_readout import (ATOM_TYPES, BOND_TYPES, graph_batches,
                                                 molecules)

TITLE = "Feature/1044 sortpooling layer"
LINK = "https://github.com/stellargraph/stellargraph/pull/1210"
EXPECTED = ("PADDING_LEAK",)
STEPS = 400
BATCH = 32
K = 8
WIDTH = 32
CLASSES = 3
RELATIONS = BOND_TYPES + 1     # one per bond type, and the self-loop


def labelled(graphs, edges):
    """Each molecule's class: which tertile (cut at ``edges``) its property falls in."""
    for g in graphs:
        g["label"] = int(np.searchsorted(edges, g["y"]))
    return graphs


class TypedConv(nn.Module):
    """tanh(sum over relations r of D^-1 A_r H W_r), D the degree with self-loops: one
    weight per bond type and one for the self-loop."""

    def __init__(self, inputs, outputs):
        super().__init__()
        self.weights = nn.ModuleList([nn.Linear(inputs, outputs) for _ in range(RELATIONS)])

    def forward(self, h, typed):
        degree = typed.sum((1, 3)).clamp(min=1).unsqueeze(-1)          # (B, N, 1)
        out = sum(typed[:, r] @ w(h) for r, w in enumerate(self.weights))
        return torch.tanh(out / degree)


class DGCNN(nn.Module):
    def __init__(self, mask_padding_in_sort):
        super().__init__()
        self.embed = nn.Embedding(ATOM_TYPES, WIDTH)
        self.convs = nn.ModuleList([TypedConv(WIDTH, WIDTH), TypedConv(WIDTH, WIDTH),
                                    TypedConv(WIDTH, 1)])
        channels = 2 * WIDTH + 1
        self.head = nn.Sequential(nn.Linear(K * channels, 64), nn.ReLU(), nn.Linear(64, CLASSES))
        self.mask_padding_in_sort = mask_padding_in_sort

    def forward(self, atoms, typed, mask):
        keep = mask.float().unsqueeze(-1)
        h, outputs = self.embed(atoms) * keep, []
        for conv in self.convs:
            h = conv(h, typed) * keep                           # padded rows stay zero
            outputs.append(h)
        h = torch.cat(outputs, -1)                              # (B, N, 2 * WIDTH + 1)
        key = h[:, :, -1]
        if self.mask_padding_in_sort:
            key = key.masked_fill(~mask, float("-inf"))
        # BUG (without the mask): zero padding rows outrank real atoms with a negative key
        order = key.argsort(dim=1, descending=True)
        h = torch.gather(h, 1, order.unsqueeze(-1).expand_as(h))
        if h.shape[1] < K:
            h = F.pad(h, (0, 0, 0, K - h.shape[1]))
        return self.head(h[:, :K].flatten(1))


def batch_tensors(graphs):
    atoms, _, mask, _ = padded(graphs)
    labels = torch.tensor([g["label"] for g in graphs])
    return atoms, typed_adjacency(graphs, BOND_TYPES), mask, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = molecules(1200, seed=0)
    held_out = molecules(400, seed=1)
    edges = np.quantile([g["y"] for g in train], [1 / 3, 2 / 3])
    labelled(train, edges)
    labelled(held_out, edges)
    model = DGCNN(mask_padding_in_sort=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps, batch_size=BATCH):
            atoms, typed, mask, labels = batch_tensors(graphs)
            loss = F.cross_entropy(model(atoms, typed, mask), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    correct, total_loss = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(held_out), BATCH):
            atoms, typed, mask, labels = batch_tensors(held_out[start:start + BATCH])
            scores = model(atoms, typed, mask)
            correct += int((scores.argmax(1) == labels).sum())
            total_loss += float(F.cross_entropy(scores, labels, reduction="sum"))
    mon.held_out_accuracy = correct / len(held_out)
    mon.held_out_loss = total_loss / len(held_out)
    return mon
