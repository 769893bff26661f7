"""How often a condition embedding is read at its last row, the "null" class
(``run.observed.null_condition_lookups``; CONDITION_MOSTLY_NULL,
``rules/null_condition_lookups.py``).

A class-conditional generator (a diffusion or flow model trained for classifier-free
guidance, DiT- or latent-diffusion-style) keeps one extra row past its classes in the
class embedding, the null class, and swaps a label for it with a small probability
(0.1-0.2) so that one network also learns the unconditional field. Invert the dropout
mask (eje24/iap-diffusion-labs#3: null with probability 1 - p) or never hand the labels
to the network (thorinf/consistency-mnist#3) and most or all lookups read the null row:
the conditional field is fitted on a few labels or none, and sampling "for class k" draws
any class. The loss falls as an unconditional model's would.

Read at findings time from the lookups the categorical-input hooks already keep (the ids
of the first ``LOOKUPS_KEPT`` training lookups of each embedding, ``categorical_inputs.py``):
for each table of 3+ rows looked up with one id per sample (a 1-D id tensor: a class or
condition, not a token sequence), the ids read, how many were its last row, and how many
distinct ids it read. No hook and no transfer of its own; NumPy on a few kept id tensors.
"""
import numpy as np

MIN_ROWS = 3               # [design] a table of classes plus a null row (two classes + null)


def read_null_condition_lookups(adapter, categorical, observed, on_error):
    """Fill ``observed.null_condition_lookups`` with [(layer, rows, lookups, ids read, ids
    at the last row, distinct ids)] per embedding looked up with 1-D ids (module doc)."""
    try:
        found = []
        for layer, kept in categorical.kept.items():
            module = categorical.modules.get(layer)
            weight = getattr(module, "weight", None)
            shape = tuple(int(n) for n in getattr(weight, "shape", ()))
            if len(shape) != 2 or shape[0] < MIN_ROWS:
                continue
            if getattr(module, "padding_idx", None) is not None:
                continue                      # a padding row is meant to be read often
            values = []
            for _, ids in kept:
                array = np.asarray(adapter.to_numpy(ids))
                if array.ndim != 1 or array.dtype.kind not in "iu":
                    values = []
                    break
                values.append(array)
            if not values:
                continue
            ids = np.concatenate(values)
            found.append((layer, shape[0], len(values), int(ids.size),
                          int(np.count_nonzero(ids == shape[0] - 1)),
                          int(np.unique(ids).size)))
        if found or not observed.null_condition_lookups:
            observed.null_condition_lookups = found
    except Exception as error:
        on_error(error)
