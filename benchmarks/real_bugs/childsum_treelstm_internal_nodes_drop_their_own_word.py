"""A Child-Sum Tree-LSTM written after the DGL tutorial's message-passing split: leaves
get the word's input term W_iou x in their own update, and every node with children gets
its gates in the "reduce" step from the children's summed h alone, U_iou sum(h). The node's
own word never enters an internal node's i, o, u: on dependency trees, where every node
holds a word, the words of all internal nodes (44% of the nodes here, every negator among
them) are read only through the forget gate, and the root cannot learn what a negated
phrase means. Training still runs and the loss falls; held-out root accuracy stalls.

Reported: "Reduce func in NaryTreeLSTMCell" - https://github.com/inyukwo1/tree-lstm/issues/1
(a user notes that DGL's Tree-LSTM reduce returns only U_iou of the children's h, where this
fork adds the node's own iou; the owner: "It's a bug in DGL implementation. Following the
original paper, adding nodes.data['iou'] is correct"). Here random dependency trees of 2-29
nodes (8.6 on average) over 12 words (sentiment words -2..+2 and two negators, which flip
their subtree), labelled by the sign of the root's composed score; the Child-Sum Tree-LSTM
of ``_tree338`` run level by level over batches of 25 trees, cross-entropy on the root,
Adam 1e-2, 300 steps.

Fix: add the node's own input term in the internal nodes' update too,
iou = W_iou x + U_iou sum(h), as the paper (and the leaves) have it.

Measured (held-out root accuracy, 500 trees): 0.860 with the bug, 0.988 fixed;
seeds + 1000: 0.898 vs 0.990.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._tree338 import ChildSumTreeLSTM, accuracy, batches, data

TITLE = "Reduce func in NaryTreeLSTMCell"
LINK = "https://github.com/inyukwo1/tree-lstm/issues/1"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS",)
STEPS = 300


class ReduceOnChildren(ChildSumTreeLSTM):
    """The bug: a node with children takes its i, o, u from U_iou sum(h) only."""

    def cell(self, x, h_sum, child_h, child_c, child_x, slot, leaf):
        if leaf:
            iou = self.ioux(x) + self.iouh(h_sum)
        else:
            iou = self.iouh(h_sum)             # BUG: the node's own word W_iou x dropped
        i, o, u = iou.chunk(3, dim=1)
        c = torch.sigmoid(i) * torch.tanh(u)
        if not leaf:
            f = torch.sigmoid(self.fh(child_h) + self.fx(child_x))
            c = c + torch.zeros_like(c).index_add(0, slot, f * child_c)
        return torch.sigmoid(o) * torch.tanh(c), c


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = data()
    model = ChildSumTreeLSTM() if fixed else ReduceOnChildren()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for words, parents, levels, roots, labels in batches(train, steps):
            loss = F.cross_entropy(model(words, parents, levels, roots), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, held)
    return mon
