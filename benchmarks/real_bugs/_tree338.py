"""Small parse-tree data and a hand-written Tree-LSTM, for batch 338's reports (beginner
tree-structured and recursive networks).

The "sentences" are random trees whose every node holds a word (dependency trees), or full
binary trees with words at the leaves only (constituency trees). A word is either a
sentiment word worth -2..+2 (ten words, two per value) or one of two negators. A node's
score is its word's value plus its children's scores; a negator node's score is minus its
children's sum. The label of a tree is whether its root's score is positive (trees that
sum to 0 are drawn again), so the root can only be read by composing the tree bottom-up.

Batches of trees are run level by level, as the batched tutorials do: every node of one
height in one call, its children's states summed with ``index_add`` (one forward per
level, not one per node).
"""
import numpy as np
import torch
from torch import nn

VALUES = (-2, -1, 0, 1, 2, -2, -1, 0, 1, 2)       # word ids 0..9
NEGATORS = (10, 11)
VOCAB = 12


def _score(word, child_scores):
    if word in NEGATORS:
        return -sum(child_scores)
    return VALUES[word] + sum(child_scores)


def _grow(rng, depth, words, parents, parent, binary):
    """Adds one subtree under ``parent``; returns its root's score."""
    node = len(words)
    words.append(0)
    parents.append(parent)
    if binary:
        kids = 2 if depth < 4 and rng.random() < (0.9 if depth < 2 else 0.5) else 0
    else:
        kids = int(rng.integers(1, 4)) if depth < 3 and rng.random() < \
            (0.95 if depth < 1 else 0.6) else 0
    scores = [_grow(rng, depth + 1, words, parents, node, binary) for _ in range(kids)]
    if kids and (not binary) and rng.random() < 0.3:
        word = int(rng.choice(NEGATORS))
    elif kids and binary:
        word = int(rng.choice(NEGATORS)) if rng.random() < 0.3 else 4   # 4: worth 0
    else:
        word = int(rng.integers(0, 10))
    words[node] = word
    return _score(word, scores)


def trees(n, seed, binary=False):
    """``n`` trees as (words, parents, label) with parents[0] == -1 (the root first)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        words, parents = [], []
        score = _grow(rng, 0, words, parents, -1, binary)
        if score != 0 and len(words) > 1:
            out.append((words, parents, int(score > 0)))
    return out


def batch(sample):
    """Concatenates trees into one node table: words (N,), parents (N,) with offsets,
    the node ids of each height (leaves first), the roots (B,) and the labels (B,)."""
    words, parents, roots, labels = [], [], [], []
    for tree_words, tree_parents, label in sample:
        offset = len(words)
        roots.append(offset)
        words += tree_words
        parents += [p + offset if p >= 0 else -1 for p in tree_parents]
        labels.append(label)
    height = [0] * len(words)
    for node in reversed(range(len(words))):        # children come after their parent
        if parents[node] >= 0:
            height[parents[node]] = max(height[parents[node]], height[node] + 1)
    height = torch.tensor(height)
    levels = [torch.nonzero(height == h).flatten() for h in range(int(height.max()) + 1)]
    return (torch.tensor(words), torch.tensor(parents), levels, torch.tensor(roots),
            torch.tensor(labels))


def data(binary=False, train=2000, held=500):
    return trees(train, 0, binary), trees(held, 1, binary)


def batches(sample, steps, size=25, seed=0):
    """``steps`` shuffled batches of trees (reshuffled every epoch)."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = rng.permutation(len(sample))
        for start in range(0, len(sample) - size + 1, size):
            yield batch([sample[i] for i in order[start:start + size]])
            done += 1
            if done == steps:
                return


class ChildSumTreeLSTM(nn.Module):
    """Tai et al.'s Child-Sum Tree-LSTM over dependency trees, and a root classifier. The
    cell is ``cell``: the cases override it with the reports' versions."""

    def __init__(self, emb=16, hidden=32, classes=2):
        super().__init__()
        self.hidden = hidden
        self.embedding = nn.Embedding(VOCAB, emb)
        self.ioux = nn.Linear(emb, 3 * hidden)
        self.iouh = nn.Linear(hidden, 3 * hidden)
        self.fx = nn.Linear(emb, hidden)
        self.fh = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, classes)

    def cell(self, x, h_sum, child_h, child_c, child_x, slot, leaf):
        """One level: x (n, emb) the nodes' words, h_sum (n, H) their children's summed h,
        child_h / child_c (m, H) the children's states, child_x (m, emb) the word of each
        child's parent, slot (m,) which node each child belongs to, leaf: no children."""
        i, o, u = (self.ioux(x) + self.iouh(h_sum)).chunk(3, dim=1)
        c = torch.sigmoid(i) * torch.tanh(u)
        if not leaf:
            f = torch.sigmoid(self.fh(child_h) + self.fx(child_x))
            c = c + torch.zeros_like(c).index_add(0, slot, f * child_c)
        return torch.sigmoid(o) * torch.tanh(c), c

    def forward(self, words, parents, levels, roots):
        x = self.embedding(words)
        h = x.new_zeros(len(words), self.hidden)
        c = x.new_zeros(len(words), self.hidden)
        slot_of = torch.zeros(len(words), dtype=torch.long)
        for height, nodes in enumerate(levels):
            slot_of[nodes] = torch.arange(len(nodes))
            kids = torch.nonzero(torch.isin(parents, nodes)).flatten()
            slot = slot_of[parents[kids]]
            h_sum = x.new_zeros(len(nodes), self.hidden).index_add(0, slot, h[kids])
            new_h, new_c = self.cell(x[nodes], h_sum, h[kids], c[kids], x[parents[kids]],
                                     slot, leaf=height == 0)
            h = h.index_copy(0, nodes, new_h)
            c = c.index_copy(0, nodes, new_c)
        return self.out(h[roots])


def accuracy(model, held):
    """Root accuracy on the held-out trees (eval mode, no gradients)."""
    words, parents, levels, roots, labels = batch(held)
    model.eval()
    with torch.no_grad():
        right = (model(words, parents, levels, roots).argmax(1) == labels).float().mean()
    model.train()
    return round(float(right), 3)
