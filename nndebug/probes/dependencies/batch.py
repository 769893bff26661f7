"""The model's inputs as plain NumPy, and the few ways the probes rearrange them.

A model may take one tensor, a tuple/list of them (``model(*inputs)``) or a dict
(``model(**inputs)``): ids together with an attention mask, say. The probes work on a
NumPy copy of that structure ("tree"). Every array whose first dimension is the batch
size is a per-sample array: the probes pick, repeat and perturb samples of all of them
together, so that a mask always travels with its ids. The *primary* array is the one
the probes perturb: the first per-sample array (or the one named by ``input_index``).
"""
import numpy as np


def to_tree(adapter, value):
    """NumPy copies of the tensors in ``value``, structure kept (other leaves as they are)."""
    if isinstance(value, (tuple, list)):
        return type(value)(to_tree(adapter, v) for v in value)
    if isinstance(value, dict):
        return {k: to_tree(adapter, v) for k, v in value.items()}
    if value is None or isinstance(value, (str, bytes, bool, int, float)):
        return value
    return adapter.to_numpy(value)


def array_leaves(tree):
    """The NumPy arrays inside ``tree``, in the order the model receives them."""
    if isinstance(tree, np.ndarray):
        return [tree]
    if isinstance(tree, (tuple, list)):
        return [a for v in tree for a in array_leaves(v)]
    if isinstance(tree, dict):
        return [a for v in tree.values() for a in array_leaves(v)]
    return []


def map_arrays(tree, fn):
    """``tree`` with every array ``a`` replaced by ``fn(index, a)`` (index in leaf order)."""
    counter = iter(range(1 << 30))

    def walk(value):
        if isinstance(value, np.ndarray):
            return fn(next(counter), value)
        if isinstance(value, (tuple, list)):
            return type(value)(walk(v) for v in value)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value
    return walk(tree)


class Batch:
    """A NumPy input tree with its batch size and the index of its primary array."""

    def __init__(self, tree, input_index=None):
        leaves = array_leaves(tree)
        candidates = [i for i, a in enumerate(leaves) if a.ndim >= 1]
        if not candidates:
            raise ValueError("check_dependencies expected inputs with a batch dimension (an array "
                             f"of shape (batch, ...)), found {_describe(tree)}; pass the model's "
                             "inputs as one batch of at least 2 samples")
        self.primary = candidates[0] if input_index is None else int(input_index)
        if not 0 <= self.primary < len(leaves) or leaves[self.primary].ndim < 1:
            raise ValueError(f"input_index={input_index} does not name an array input; the inputs "
                             f"hold {len(leaves)} arrays ({_describe(tree)})")
        self.tree = tree
        self.size = int(leaves[self.primary].shape[0])
        self.ids_per_column = False   # integer ids replaced within their column (see
                                      # ``perturbed_rows``): set once the model refused ids
                                      # drawn from the whole batch
        self.per_sample = {i for i, a in enumerate(leaves)
                           if a.ndim >= 1 and a.shape[0] == self.size}
        # a recurrent state (num_layers, batch, hidden) or a sequence-first tensor holds its
        # samples along dimension 1: picked there, so each sample keeps its own state
        self.per_sample_dim1 = {i for i, a in enumerate(leaves) if i not in self.per_sample
                                and i != self.primary and a.ndim >= 3
                                and a.shape[1] == self.size}

    @property
    def x(self):
        """The primary array (batch first)."""
        return array_leaves(self.tree)[self.primary]

    @property
    def is_float(self):
        return self.x.dtype.kind == "f"

    @property
    def length(self):
        """Positions per sample (dimension 1 of the primary array), or None."""
        return int(self.x.shape[1]) if self.x.ndim >= 2 else None

    def cropped(self, length):
        """The same batch with its first ``length`` positions only (every per-sample array
        whose dimension 1 is the sequence is cut alike, so a mask stays aligned)."""
        full = self.length

        def cut(i, a):
            if i in self.per_sample and a.ndim >= 2 and a.shape[1] == full:
                return a[:, :length].copy()
            return a
        return Batch(map_arrays(self.tree, cut), self.primary)

    def rows(self, indices, primary=None):
        """A new tree holding the samples ``indices`` (repeats allowed) of every per-sample array;
        ``primary``, if given, replaces the primary array of the result."""
        indices = np.asarray(indices, dtype=np.int64)

        def pick(i, a):
            if i == self.primary and primary is not None:
                return np.asarray(primary, dtype=a.dtype)
            if i in self.per_sample_dim1:
                return a[:, indices].copy()
            return a[indices].copy() if i in self.per_sample else a
        return map_arrays(self.tree, pick)


def perturbed_rows(x, rows, changes, rng, per_column=False):
    """``x[rows]`` (a copy), with, for each row r, ``changes[r]`` applied (an index into
    one sample: a position, or ``...`` for the whole sample). Floats get Gaussian noise of
    the data's own scale; integer ids are replaced by other ids seen in ``x`` (never one the
    model has not seen, so an embedding index stays in range). Vectorised: the probes change
    up to a few hundred rows at once.

    ``per_column``: each id is replaced by another id seen in its own column (dimension 1)
    - for tabular categorical fields, each with its own range of ids (a CTR model adding
    per-field offsets into one table fails on an id of another field: real-bug batch 352).
    A column holding one value is left as it is."""
    if per_column and x.dtype.kind != "f" and x.ndim >= 2:
        return _perturbed_per_column(x, rows, changes, rng)
    out = x[np.asarray(rows, dtype=np.int64)].copy()
    whole = np.array([r for r, where in changes.items() if where is Ellipsis], dtype=np.int64)
    at = [(r, where) for r, where in changes.items() if where is not Ellipsis]
    targets = []
    if whole.size:
        targets.append((whole,))
    if at:
        targets.append((np.array([r for r, _ in at], dtype=np.int64),
                        np.array([w for _, w in at], dtype=np.int64)))
    if x.dtype.kind == "f":
        scale = float(np.std(x)) or 1.0
        for index in targets:
            out[index] = out[index] + rng.normal(0.0, scale, size=out[index].shape)
        return out
    vocabulary = np.unique(x)
    if vocabulary.size < 2:
        raise ValueError("the integer inputs hold a single value; perturbing them needs at least "
                         "two different ids (pass a real batch)")
    for index in targets:
        out[index] = _other_ids(out[index], vocabulary, rng)
    return out


def _other_ids(current, vocabulary, rng):
    """Each id of ``current`` replaced by a different one of ``vocabulary`` (sorted, unique,
    holding every id of ``current``), drawn uniformly."""
    shift = rng.integers(1, vocabulary.size, size=np.shape(current))
    return vocabulary[(np.searchsorted(vocabulary, current) + shift) % vocabulary.size]


def _perturbed_per_column(x, rows, changes, rng):
    """``perturbed_rows`` with each column's own vocabulary (see there)."""
    out = x[np.asarray(rows, dtype=np.int64)].copy()
    for r, where in changes.items():
        columns = range(x.shape[1]) if where is Ellipsis else [where]
        for c in columns:
            vocabulary = np.unique(x[:, c])
            if vocabulary.size < 2:
                continue
            out[r, c] = _other_ids(out[r, c], vocabulary, rng)
    return out


def _describe(tree):
    leaves = array_leaves(tree)
    if not leaves:
        return type(tree).__name__
    return ", ".join(f"{a.dtype} array of shape {a.shape}" for a in leaves[:4])
