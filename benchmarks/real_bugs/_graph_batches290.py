"""Shared pieces of real-bug batch 290 (beginner graph-level prediction in plain PyTorch).

The molecules, their PyG-style batching (``collate``: stacked atoms, offset edges, a
``batch`` vector) and the held-out R^2 come from ``_graph_readout``. Here: the same
molecules laid out as padded dense batches (atom ids (B, N), adjacency with self-loops
(B, N, N), a node mask (B, N)), as a first molecule-property tutorial builds them, and a
masked per-graph mean readout for them.
"""
import torch

from benchmarks.real_bugs._graph_readout import r2

PAD_ATOM = 0                    # padded rows read atom id 0; the mask keeps them out


def padded(graphs):
    """atoms (B, N) int64, adjacency (B, N, N) float with self-loops on real atoms only,
    mask (B, N) bool, y (B, 1); N is the largest molecule of the batch."""
    size = max(len(g["atoms"]) for g in graphs)
    atoms = torch.full((len(graphs), size), PAD_ATOM, dtype=torch.long)
    adjacency = torch.zeros(len(graphs), size, size)
    mask = torch.zeros(len(graphs), size, dtype=torch.bool)
    for i, g in enumerate(graphs):
        n = len(g["atoms"])
        atoms[i, :n] = g["atoms"]
        adjacency[i, g["edges"][0], g["edges"][1]] = 1.0
        adjacency[i, torch.arange(n), torch.arange(n)] = 1.0
        mask[i, :n] = True
    y = torch.tensor([[g["y"]] for g in graphs])
    return atoms, adjacency, mask, y


def masked_mean(h, mask):
    """Mean of each graph's real node rows: h (B, N, F), mask (B, N) -> (B, F)."""
    weight = mask.float().unsqueeze(-1)
    return (h * weight).sum(1) / weight.sum(1).clamp(min=1)


def score(mon, predicted, targets):
    mon.held_out_r2 = r2(predicted, targets)
    mon.held_out_mae = float((predicted - targets).abs().mean())
    return mon


def typed_adjacency(graphs, bond_types):
    """(B, bond_types + 1, N, N): one adjacency per bond type, the last channel the
    self-loops of the real atoms (N as in ``padded``)."""
    size = max(len(g["atoms"]) for g in graphs)
    out = torch.zeros(len(graphs), bond_types + 1, size, size)
    for i, g in enumerate(graphs):
        n = len(g["atoms"])
        out[i, g["bonds"], g["edges"][0], g["edges"][1]] = 1.0
        out[i, bond_types, torch.arange(n), torch.arange(n)] = 1.0
    return out
