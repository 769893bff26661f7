"""Ids drawn from the embedding table's WIDTH instead of its row count
(``run.observed.narrow_lookups``; NEGATIVES_FROM_FEW_IDS, ``rules/narrow_lookups.py``).

Sampled negatives are drawn as ``randint(0, n_items)``; read ``n_items`` off the wrong axis
of the item table - ``item_vectors.shape[1]``, the number of factors, for ``shape[0]`` -
and every negative is one of the first few items (benfred/implicit#747: "n_items used
item_vectors.shape[1] (= n_factors+2) instead of shape[0], capping the negative loop at
~34 regardless of catalogue size"). The other items are only ever positives: their scores
rise for every user alike, and the ranking by taste is lost. Ids stay in range; nothing
fails.

Read at findings time from the lookups the categorical-input hooks already keep (the ids
of the first ``LOOKUPS_KEPT`` training lookups of each embedding, ``categorical_inputs.py``):
for each step in which one table was looked up two or more times, each lookup's highest id
+ 1 and how many distinct ids it read. No hook and no transfer of its own; NumPy on a few
kept id tensors.
"""
import numpy as np

NARROW_ROWS = 64           # [design] rows kept at most


def read_narrow_lookups(adapter, categorical, observed, on_error):
    """Fill ``observed.narrow_lookups`` with [(layer, rows, width, step, [(highest + 1,
    distinct ids, ids read)] per lookup of the step)] for the steps in which a table was
    looked up 2+ times (module doc)."""
    try:
        found = []
        for layer, kept in categorical.kept.items():
            weight = getattr(categorical.modules.get(layer), "weight", None)
            shape = tuple(int(n) for n in getattr(weight, "shape", ()))
            if len(shape) != 2:
                continue
            by_step = {}
            for step, ids in kept:
                by_step.setdefault(step, []).append(ids)
            for step, lookups in sorted(by_step.items()):
                if len(lookups) < 2 or len(found) >= NARROW_ROWS:
                    continue
                calls = []
                for ids in lookups:
                    values = np.asarray(adapter.to_numpy(ids)).reshape(-1)
                    if values.size == 0 or values.dtype.kind not in "iu":
                        break
                    calls.append((int(values.max()) + 1, int(np.unique(values).size),
                                  int(values.size)))
                else:
                    found.append((layer, shape[0], shape[1], int(step), calls))
        if found or not observed.narrow_lookups:
            observed.narrow_lookups = found
    except Exception as error:
        on_error(error)
