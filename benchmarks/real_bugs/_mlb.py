"""Shared pieces of real-bug batch 258 (beginner multi-label classification): the 2x2
digit collages of batch 185 (benchmarks/real_bugs/_mlc185.py), labelled "digit d appears
somewhere" (10 labels, 1 to 4 of them per collage), drawn from a NumPy generator the case
seeds, and the held-out read-outs a beginner's tutorial prints (micro/macro-F1, recall and
precision of the labels predicted at a 0.5 decision threshold) attached to the monitor.
"""
from benchmarks.real_bugs._mlc185 import (collages, digits_present, f1_scores,
                                           index_batches, precision, recall, tagger)

TRAIN = 3000
HELD_OUT = 1000
BATCH = 64


def tag_data(rng):
    """(x, y, x_test, y_test, cells, cells_test): training and held-out collages, their
    (N, 10) multi-hot "digit d appears" rows and the (N, 4) digit in each cell (-1 blank)."""
    x, cells = collages(TRAIN, rng)
    x_test, cells_test = collages(HELD_OUT, rng, held_out=True)
    return x, digits_present(cells), x_test, digits_present(cells_test), cells, cells_test


def batches(n, steps, rng):
    """``steps`` shuffled batches of row indices (reshuffled every epoch)."""
    return index_batches(n, steps, BATCH, rng)


def read_out(mon, predicted, y_test):
    """Attach the held-out scores of the boolean ``predicted`` rows to ``mon``."""
    mon.held_out_micro_f1, mon.held_out_macro_f1 = f1_scores(predicted, y_test)
    mon.held_out_recall = recall(predicted, y_test)
    mon.held_out_precision = precision(predicted, y_test)
    return mon


__all__ = ["tag_data", "batches", "read_out", "tagger", "TRAIN", "HELD_OUT", "BATCH"]
