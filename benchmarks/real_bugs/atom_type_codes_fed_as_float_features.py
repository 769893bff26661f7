"""A molecular graph regressor whose atoms are described by categorical codes (the atom
type as an integer id, the way a SMILES featuriser stores it) and whose first layer reads
those codes cast to float, ``atoms.float()``, through a linear layer. The id is then one
number on a line: the network sees "type 4" as twice "type 2", and message passing SUMS
neighbours before any nonlinearity, so a carbon next to an oxygen and a nitrogen next to a
nitrogen send the same message whenever their ids add up alike. Nothing fails - the float
cast is exactly what makes the dtype error go away - and the loss falls; the model just
cannot tell the atoms apart.

Reported: "Convert molecular features to floating-point values" -
https://github.com/pyg-team/pytorch_geometric/pull/9341 (a pull request changing
``from_smiles`` to return float node features, because passing them to ``GCNConv`` raised
"Found dtype Long but expected Float"; the maintainer declined: "These are categorical
features which are expected to be processed via torch.nn.EmbeddingBag", and the correct
usage embeds ``data.x`` first). Here synthetic molecules (benchmarks/real_bugs/
_graph_readout.py: 4-12 atoms of six types, three bond types, an intensive property built
from per-atom and per-bond-pair contributions) are regressed by a two-layer GIN with bond
embeddings and mean readout over the batch vector. Fix: an ``nn.Embedding`` over the atom
ids instead of the float cast.

Measured (300 steps of 32 graphs, held-out R^2 on 300 graphs): seed 0, 0.50 for the bug
against 0.93 for the fixed twin; seeds shifted by 1000, 0.32 against 0.92.
"""
import torch
from torch import nn

from benchmarks.real_bugs._graph_readout import HIDDEN, EdgeGIN, fit_and_score, molecules

TITLE = "Convert molecular features to floating-point values"
LINK = "https://github.com/pyg-team/pytorch_geometric/pull/9341"
EXPECTED = ("CATEGORY_CODES_AS_ONE_NUMBER",)
STEPS = 300


class CodesAsFloats(nn.Module):
    def forward(self, atoms):
        return atoms.float()[:, None]       # BUG: the type id as one number


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = molecules(1200, seed=0), molecules(300, seed=1)
    if fixed:
        model = EdgeGIN()                                   # nn.Embedding over the ids
    else:
        model = EdgeGIN(encoder=CodesAsFloats(), in_features=1)
    return fit_and_score(model, train, held_out, steps, **watch)
