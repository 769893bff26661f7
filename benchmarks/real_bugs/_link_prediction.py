"""Shared pieces of real-bug batch 125 (link prediction and knowledge-graph embeddings).

Two synthetic data sets, built from NumPy generators seeded by the caller (so the benchmark's
``--shift-seeds`` moves them):

* ``knowledge_graph``: a small knowledge graph drawn from hidden entity vectors. Relation
  ``r`` joins a head to the ``TAILS`` entities nearest to ``head + r`` (translational facts,
  the kind TransE models) or, with ``kind="bilinear"``, to the entities with the highest
  ``<head, r, tail>`` product (DistMult's kind). 15% of the facts are held out; a model is
  scored by the filtered rank of each held-out fact's tail among all entities.
* ``community_graph``: a homogeneous graph of nodes in communities (edges mostly inside a
  community), node features a noisy view of the community; 10% of the edges are held out
  and scored against as many non-edges by ROC AUC.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import index_batches

ENTITIES = 300
RELATIONS = 6
LATENT = 8
HEADS_PER_RELATION = 160
TAILS = 3
HELD_OUT = 0.15


def knowledge_graph(seed=0, kind="translation"):
    """(train (N, 3) int64 triples, test (M, 3), known: set of every true (h, r, t))."""
    rng = np.random.default_rng(seed)
    entities = rng.normal(size=(ENTITIES, LATENT))
    relations = rng.normal(size=(RELATIONS, LATENT))
    facts = []
    for r in range(RELATIONS):
        for h in rng.choice(ENTITIES, HEADS_PER_RELATION, replace=False):
            if kind == "translation":
                score = -np.linalg.norm(entities[h] + relations[r] - entities, axis=1)
            else:
                score = (entities[h] * relations[r] * entities).sum(1)
            score[h] = -np.inf
            for t in np.argsort(-score)[:TAILS]:
                facts.append((h, r, t))
    facts = np.array(facts, dtype=np.int64)
    order = rng.permutation(len(facts))
    cut = int(len(facts) * (1 - HELD_OUT))
    train, test = facts[order[:cut]], facts[order[cut:]]
    known = {tuple(f) for f in facts.tolist()}
    return torch.from_numpy(train), torch.from_numpy(test), known


def triple_batches(triples, steps, batch_size=128, seed=0):
    """``steps`` shuffled mini-batches of row indices, reshuffled every epoch."""
    return index_batches(len(triples), steps, batch_size, seed)


def corrupt(triples, generator):
    """One negative per triple: head or tail (half each) replaced by a random entity."""
    negative = triples.clone()
    heads = torch.rand(len(triples), generator=generator) < 0.5
    randoms = torch.randint(0, ENTITIES, (len(triples),), generator=generator)
    negative[heads, 0] = randoms[heads]
    negative[~heads, 2] = randoms[~heads]
    return negative


@torch.no_grad()
def tail_ranking(all_tail_scores, test, known):
    """Filtered MRR and hits@10 of the held-out tails. ``all_tail_scores(h, r)`` gives the
    (B, ENTITIES) scores of every entity as the tail (higher = more plausible)."""
    scores = all_tail_scores(test[:, 0], test[:, 1]).clone()
    ranks = []
    for row, (h, r, t) in enumerate(test.tolist()):
        target = scores[row, t].item()
        others = [e for e in range(ENTITIES) if e != t and (h, r, e) in known]
        scores[row, others] = -float("inf")
        ranks.append(1 + int((scores[row] > target).sum()))
    ranks = torch.tensor(ranks, dtype=torch.float)
    return {"mrr": round(float((1 / ranks).mean()), 3),
            "hits@10": round(float((ranks <= 10).float().mean()), 3)}


class TransE(nn.Module):
    """Entity and relation embeddings; a fact's distance is ||h + r - t||_1 on unit-norm
    entities (Bordes et al.'s constraint, applied in the forward pass)."""

    def __init__(self, dim=32):
        super().__init__()
        self.entity = nn.Embedding(ENTITIES, dim)
        self.relation = nn.Embedding(RELATIONS, dim)
        bound = 6 / dim ** 0.5
        nn.init.uniform_(self.entity.weight, -bound, bound)
        nn.init.uniform_(self.relation.weight, -bound, bound)

    def entities(self):
        return F.normalize(self.entity.weight, dim=1)

    def forward(self, triples):
        e = self.entities()
        h, t = e[triples[:, 0]], e[triples[:, 2]]
        return (h + self.relation(triples[:, 1]) - t).abs().sum(1)

    def all_tail_scores(self, heads, relations):
        e = self.entities()
        query = e[heads] + self.relation(relations)
        return -torch.cdist(query, e, p=1)


# ----------------------------------------------------------------- homogeneous graph
NODES = 400
COMMUNITIES = 8
FEATURES = 16
EDGES_PER_NODE = 6
INSIDE = 0.85           # share of a node's edges that stay inside its community
TEST_EDGES = 0.1


def community_graph(seed=0):
    """x (NODES, FEATURES), train_edges (2, E) undirected pairs u < v, test_pos (2, T),
    test_neg (2, T), and the set of all true pairs."""
    rng = np.random.default_rng(seed)
    community = rng.integers(0, COMMUNITIES, NODES)
    centres = rng.normal(size=(COMMUNITIES, FEATURES))
    x = centres[community] + 1.5 * rng.normal(size=(NODES, FEATURES))
    members = [np.flatnonzero(community == c) for c in range(COMMUNITIES)]
    pairs = set()
    for u in range(NODES):
        for _ in range(EDGES_PER_NODE // 2):
            pool = members[community[u]] if rng.random() < INSIDE else np.arange(NODES)
            v = int(rng.choice(pool))
            if v != u:
                pairs.add((min(u, v), max(u, v)))
    edges = np.array(sorted(pairs)).T
    order = rng.permutation(edges.shape[1])
    test_size = int(edges.shape[1] * TEST_EDGES)
    test_pos, train = edges[:, order[:test_size]], edges[:, order[test_size:]]
    test_neg = non_edges(pairs, test_size, rng)
    as_tensor = lambda a: torch.from_numpy(np.ascontiguousarray(a)).long()
    return (torch.from_numpy(x).float(), as_tensor(train), as_tensor(test_pos),
            as_tensor(test_neg), pairs)


def non_edges(pairs, count, rng):
    out = []
    while len(out) < count:
        u, v = rng.integers(0, NODES, 2)
        if u != v and (min(u, v), max(u, v)) not in pairs:
            out.append((u, v))
    return np.array(out).T


def normalized_adjacency(edges):
    """D^-1/2 (A + I) D^-1/2 of the undirected training edges (dense, NODES x NODES)."""
    a = torch.zeros(NODES, NODES)
    a[edges[0], edges[1]] = 1.0
    a[edges[1], edges[0]] = 1.0
    a = a + torch.eye(NODES)
    d = a.sum(1).rsqrt()
    return d[:, None] * a * d[None, :]


class GCNEncoder(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.first = nn.Linear(FEATURES, hidden)
        self.second = nn.Linear(hidden, hidden)

    def forward(self, x, adjacency):
        h = F.relu(adjacency @ self.first(x))
        return adjacency @ self.second(h)


def dot_scores(z, edges):
    return (z[edges[0]] * z[edges[1]]).sum(1)


def auc(positive, negative):
    """ROC AUC of positive against negative scores (ties count half)."""
    p, n = positive[:, None], negative[None, :]
    return round(float(((p > n).float() + 0.5 * (p == n).float()).mean()), 3)


class RGCNDistMult(nn.Module):
    """A one-layer relational graph convolution over learned entity vectors (a self weight
    plus one weight per relation and direction, neighbours averaged), scored by DistMult:
    ``sum(z_h * rel * z_t)``."""

    def __init__(self, train, dim=32):
        super().__init__()
        self.entity = nn.Parameter(torch.empty(ENTITIES, dim))
        self.self_weight = nn.Linear(dim, dim, bias=False)
        self.rel_weight = nn.Parameter(torch.empty(2 * RELATIONS, dim, dim))
        self.relation = nn.Parameter(torch.empty(RELATIONS, dim))
        nn.init.xavier_uniform_(self.entity)
        nn.init.xavier_uniform_(self.rel_weight)
        nn.init.xavier_uniform_(self.relation)
        adjacency = torch.zeros(2 * RELATIONS, ENTITIES, ENTITIES)
        h, r, t = train.T
        adjacency[r, t, h] = 1.0                    # messages head -> tail
        adjacency[r + RELATIONS, h, t] = 1.0        # and back, through the inverse relation
        degree = adjacency.sum((0, 2)).clamp(min=1)
        self.register_buffer("adjacency", adjacency / degree[None, :, None])

    def encode(self):
        x = self.entity
        messages = torch.einsum("rij,jd,rde->ie", self.adjacency, x, self.rel_weight)
        return self.self_weight(x) + messages

    def forward(self, triples, z=None):
        z = self.encode() if z is None else z
        return (z[triples[:, 0]] * self.relation[triples[:, 1]] * z[triples[:, 2]]).sum(1)

    def all_tail_scores(self, heads, relations):
        z = self.encode()
        return (z[heads] * self.relation[relations]) @ z.T
