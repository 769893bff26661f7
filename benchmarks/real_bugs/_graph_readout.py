"""Synthetic molecules for graph-level prediction on batched graphs (real-bug batch 137).

Each "molecule" is a small connected graph: 4 to 12 atoms of ATOM_TYPES kinds joined by
bonds of BOND_TYPES kinds (a random tree plus a few ring-closing bonds). Its property is a
graph-level regression target built from what a message-passing network can read: a
per-atom contribution that depends NON-monotonically on the atom type, a contribution per
bond that depends on the pair of atom types it joins and the bond type, averaged over the
atoms (an intensive property, like an energy per atom), standardised over the pool.

Graphs are batched the PyTorch Geometric way: node rows stacked, edge lists offset by the
nodes stacked before each graph, and a ``batch`` vector giving each node's graph.
"""
import numpy as np
import torch
from torch import nn

ATOM_TYPES = 6
BOND_TYPES = 3
MIN_ATOMS, MAX_ATOMS = 4, 12
HIDDEN = 48


def _tables(rng):
    atom_value = rng.normal(0, 1, ATOM_TYPES)                       # arbitrary per type
    pair_value = rng.normal(0, 1, (ATOM_TYPES, ATOM_TYPES, BOND_TYPES))
    pair_value = (pair_value + pair_value.transpose(1, 0, 2)) / 2   # symmetric in the pair
    return atom_value, pair_value


def molecules(count, seed=0, min_atoms=MIN_ATOMS, max_atoms=MAX_ATOMS):
    """A list of dicts: atoms (n,) int64 types, edges (2, 2m) int64 both directions, bonds
    (2m,) int64 bond types, pairs (2, m) and pair_bonds (m,) the bonds listed once each (as
    a file lists them), y float (the property, standardised with fixed statistics)."""
    rng = np.random.default_rng(seed)
    atom_value, pair_value = _tables(np.random.default_rng(12345))   # the chemistry is fixed
    graphs, raw = [], []
    for _ in range(count):
        n = int(rng.integers(min_atoms, max_atoms + 1))
        atoms = rng.integers(0, ATOM_TYPES, n)
        pairs = [(int(rng.integers(0, i)), i) for i in range(1, n)]   # a random tree
        for _ in range(int(rng.integers(0, 3))):                      # ring closures
            a, b = rng.choice(n, 2, replace=False)
            if (a, b) not in pairs and (b, a) not in pairs:
                pairs.append((int(a), int(b)))
        bond = rng.integers(0, BOND_TYPES, len(pairs))
        value = atom_value[atoms].sum()
        for (a, b), t in zip(pairs, bond):
            value += pair_value[atoms[a], atoms[b], t]
        raw.append(value / n)
        src = [a for a, b in pairs] + [b for a, b in pairs]
        dst = [b for a, b in pairs] + [a for a, b in pairs]
        graphs.append({"atoms": torch.from_numpy(atoms).long(),
                       "edges": torch.tensor([src, dst], dtype=torch.long),
                       "bonds": torch.from_numpy(np.concatenate([bond, bond])).long(),
                       "pairs": torch.tensor(pairs, dtype=torch.long).t().contiguous(),
                       "pair_bonds": torch.from_numpy(bond).long()})
    raw = np.array(raw)
    # standardised with the statistics of a large fixed pool, the same for every split
    centre, scale = _reference_stats(atom_value, pair_value)
    for g, v in zip(graphs, raw):
        g["y"] = float((v - centre) / scale)
    return graphs


_STATS = {}


def _reference_stats(atom_value, pair_value):
    key = atom_value.tobytes() + pair_value.tobytes()
    if key not in _STATS:
        rng = np.random.default_rng(999)
        values = []
        for _ in range(4000):
            n = int(rng.integers(MIN_ATOMS, MAX_ATOMS + 1))
            atoms = rng.integers(0, ATOM_TYPES, n)
            v = atom_value[atoms].sum()
            for i in range(1, n):
                v += pair_value[atoms[int(rng.integers(0, i))], atoms[i],
                                int(rng.integers(0, BOND_TYPES))]
            values.append(v / n)
        _STATS[key] = (float(np.mean(values)), float(np.std(values)))
    return _STATS[key]


def collate(graphs):
    """Batch graphs PyG-style: atoms (N,), edges (2, E) offset per graph, bonds (E,),
    batch (N,) graph index of each node, y (B, 1)."""
    atoms, edges, bonds, batch, offset = [], [], [], [], 0
    for i, g in enumerate(graphs):
        n = len(g["atoms"])
        atoms.append(g["atoms"])
        edges.append(g["edges"] + offset)
        bonds.append(g["bonds"])
        batch.append(torch.full((n,), i, dtype=torch.long))
        offset += n
    y = torch.tensor([[g["y"]] for g in graphs])
    return torch.cat(atoms), torch.cat(edges, 1), torch.cat(bonds), torch.cat(batch), y


def mean_pool(h, batch, size):
    """Per-graph mean of node rows (scatter-add of rows and of counts)."""
    total = torch.zeros(size, h.shape[1]).index_add_(0, batch, h)
    count = torch.zeros(size).index_add_(0, batch, torch.ones(len(batch)))
    return total / count.clamp(min=1)[:, None]


class EdgeGIN(nn.Module):
    """Atom embedding, two GIN-style layers whose messages add a bond-type embedding,
    a pluggable readout, an MLP head. ``encode`` maps atom ids to input rows; cases that
    feed other inputs pass their own ``encoder``."""

    def __init__(self, encoder=None, in_features=HIDDEN, outputs=1):
        super().__init__()
        self.encoder = encoder if encoder is not None else nn.Embedding(ATOM_TYPES, HIDDEN)
        self.inp = nn.Linear(in_features, HIDDEN)
        self.bond1 = nn.Embedding(BOND_TYPES, HIDDEN)
        self.bond2 = nn.Embedding(BOND_TYPES, HIDDEN)
        self.mlp1 = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN))
        self.mlp2 = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN))
        self.head = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, outputs))

    def nodes(self, atoms, edges, bonds):
        h = self.inp(self.encoder(atoms))
        for bond, mlp in ((self.bond1, self.mlp1), (self.bond2, self.mlp2)):
            message = torch.relu(h[edges[0]] + bond(bonds))
            h = torch.relu(mlp(h + torch.zeros_like(h).index_add_(0, edges[1], message)))
        return h

    def forward(self, atoms, edges, bonds, batch, size, readout=mean_pool):
        return self.head(readout(self.nodes(atoms, edges, bonds), batch, size))


def graph_batches(graphs, steps, batch_size=32, seed=0, shuffle=True):
    """``steps`` lists of graphs, epoch after epoch (in order when not ``shuffle``)."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = rng.permutation(len(graphs)) if shuffle else np.arange(len(graphs))
        for start in range(0, len(graphs) - batch_size + 1, batch_size):
            yield [graphs[i] for i in order[start:start + batch_size]]
            done += 1
            if done == steps:
                return


def r2(predicted, target):
    """Coefficient of determination of (N, 1) predictions."""
    residual = ((predicted - target) ** 2).sum()
    return float(1 - residual / ((target - target.mean()) ** 2).sum())


def fit_and_score(model, train, held_out, steps, **watch):
    """Adam 3e-3 on ``model`` under ``nd.watch``: each batch of ``train`` graphs collated and
    scored by the squared error of its property; then the held-out graphs' R^2 and mean
    absolute error set on the closed monitor (``held_out_r2``, ``held_out_mae``)."""
    import nndebug as nd
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps):
            atoms, edges, bonds, batch, y = collate(graphs)
            loss = torch.nn.functional.mse_loss(model(atoms, edges, bonds, batch, len(graphs)), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    atoms, edges, bonds, batch, y = collate(held_out)
    with torch.no_grad():
        predicted = model(atoms, edges, bonds, batch, len(held_out))
    mon.held_out_r2 = r2(predicted, y)
    mon.held_out_mae = float((predicted - y).abs().mean())
    return mon
