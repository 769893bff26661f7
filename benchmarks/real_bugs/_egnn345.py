"""What the batch-345 cases (equivariant and invariant networks on 3-D geometry) share:
small synthetic "molecules" with an invariant energy, PyTorch-Geometric style flat
batches with every ordered atom pair as an edge, a small E(n)-equivariant graph network
(EGNN: messages from the atoms' features and their squared distance, coordinates moved
along the relative positions) and its held-out R^2. Each case keeps its own bug.

A molecule is ATOMS atoms of TYPES kinds, at 3-D positions drawn around the origin and
stretched along x (so a molecule has an orientation its frame can show); its energy is a
sum over atom pairs of a type-pair-dependent well at a type-pair-dependent distance - it
depends on the distances only, so it is unchanged by any rotation or translation.
Seeds: every draw comes from a generator seeded from torch's global one (so
``torch.manual_seed`` at the top of a case, and the benchmark's seed shift, move them)."""
import torch
from torch import nn

ATOMS = 8
TYPES = 3
HIDDEN = 16
HELD_OUT = 300
STRETCH = torch.tensor([1.6, 1.0, 0.7])
# the chemistry is fixed: a well depth and a preferred distance per pair of types
DEPTH = torch.tensor([[1.0, -0.6, 0.4], [-0.6, 0.8, -0.3], [0.4, -0.3, -1.0]])
RADIUS = torch.tensor([[1.0, 1.6, 2.2], [1.6, 1.3, 0.8], [2.2, 0.8, 1.8]])


def seeded_generator():
    """A private generator seeded from torch's global one (so manual_seed moves it)."""
    return torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31 - 1, (1,))))


def energy(pos, types):
    """The invariant energy of each molecule: pos (M, ATOMS, 3), types (M, ATOMS) -> (M,)."""
    d = torch.cdist(pos, pos)                                            # (M, A, A)
    depth = DEPTH[types[:, :, None], types[:, None, :]]
    radius = RADIUS[types[:, :, None], types[:, None, :]]
    wells = depth * torch.exp(-(d - radius) ** 2 / 0.3)
    off_diagonal = 1 - torch.eye(ATOMS)
    return (wells * off_diagonal).sum((1, 2)) / 2


def molecules(count, generator):
    """pos (count, ATOMS, 3) in their own frame (stretched along x), types (count, ATOMS),
    y (count,) the energy standardised with the first ``count - HELD_OUT`` molecules'
    statistics (the training rows)."""
    pos = torch.randn(count, ATOMS, 3, generator=generator) * STRETCH
    types = torch.randint(0, TYPES, (count, ATOMS), generator=generator)
    raw = energy(pos, types)
    train = raw[:count - HELD_OUT]
    return pos, types, (raw - train.mean()) / train.std()


def random_rotations(count, generator):
    """``count`` uniformly random 3-D rotation matrices (QR of a Gaussian, signs fixed)."""
    q, r = torch.linalg.qr(torch.randn(count, 3, 3, generator=generator))
    q = q * torch.sign(torch.diagonal(r, dim1=1, dim2=2))[:, None, :]
    flip = torch.det(q) < 0
    q[flip, :, 0] = -q[flip, :, 0]
    return q


def flat_batch(pos, types):
    """A PyG-style batch of ``len(pos)`` molecules: node rows stacked, (B * ATOMS, 3)
    positions and (B * ATOMS,) types, the ``batch`` vector, and every ordered pair of
    atoms of the same molecule as an edge (src, dst), offset by the atoms before it."""
    b = len(pos)
    i, j = torch.meshgrid(torch.arange(ATOMS), torch.arange(ATOMS), indexing="ij")
    keep = i != j
    offsets = (torch.arange(b) * ATOMS)[:, None]
    src = (j[keep][None, :] + offsets).reshape(-1)
    dst = (i[keep][None, :] + offsets).reshape(-1)
    batch = torch.arange(b).repeat_interleave(ATOMS)
    return pos.reshape(-1, 3), types.reshape(-1), batch, src, dst


class EGNNLayer(nn.Module):
    """One EGNN layer (Satorras et al. 2021): m_ij = phi_e(h_i, h_j, |x_i - x_j|^2);
    x_i += mean_j (x_i - x_j) phi_x(m_ij) when ``moves``; h_i += phi_h(h_i, sum_j m_ij)."""

    def __init__(self, hidden=HIDDEN, moves=True):
        super().__init__()
        self.edge = nn.Sequential(nn.Linear(2 * hidden + 1, hidden), nn.SiLU(),
                                  nn.Linear(hidden, hidden), nn.SiLU())
        self.node = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.SiLU(),
                                  nn.Linear(hidden, hidden))
        self.coord = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(),
                                   nn.Linear(hidden, 1)) if moves else None

    def relative(self, pos, src, dst):
        """x_i - x_j for each edge j -> i."""
        return pos[dst] - pos[src]

    def forward(self, h, pos, src, dst):
        rel = self.relative(pos, src, dst)
        squared = (rel ** 2).sum(-1, keepdim=True)
        m = self.edge(torch.cat([h[dst], h[src], squared], -1))
        gathered = torch.zeros_like(h).index_add(0, dst, m)
        if self.coord is not None:
            moved = torch.zeros_like(pos).index_add(0, dst, rel * self.coord(m))
            pos = pos + moved / (ATOMS - 1)
        return h + self.node(torch.cat([h, gathered], -1)), pos


class EGNN(nn.Module):
    """Type embedding, ``layers`` EGNN layers (the last leaves the coordinates alone: an
    invariant target reads none of them), a per-atom MLP summed over each molecule."""

    def __init__(self, layer=EGNNLayer, layers=3, hidden=HIDDEN):
        super().__init__()
        self.embed = nn.Embedding(TYPES, hidden)
        self.layers = nn.ModuleList([layer(hidden, moves=k < layers - 1)
                                     for k in range(layers)])
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, types, pos, batch, src, dst):
        h = self.embed(types)
        for layer in self.layers:
            h, pos = layer(h, pos, src, dst)
        per_atom = self.head(h).squeeze(-1)
        return torch.zeros(int(batch.max()) + 1).index_add(0, batch, per_atom)


def r_squared(prediction, target):
    return float(1 - ((prediction - target) ** 2).mean() / target.var(unbiased=False))
