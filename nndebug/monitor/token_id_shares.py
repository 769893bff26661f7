"""How much of an embedding's running text is one single id (UNKNOWN_ID_DOMINATES_INPUTS,
``nndebug.rules.unknown_ids``).

In natural text no token is half of the words: the commonest English word ("the") is about
6% of running text, the commonest character (the space) about 18%. One id that makes up
most of a batch of token sequences is a lookup that failed: a vocabulary built from
lower-cased text looked up with cased words, a tokenizer and a vocabulary from different
sources, words the vocabulary cut off. All of them come out as the ``<unk>`` id, and the
model reads one shared vector where the words were.

Padding is the other id that fills sequences, so it is set apart: the embedding's declared
``padding_idx`` is not counted, and for the commonest id the share of its occurrences that
lie BETWEEN other tokens is kept too (padding, declared or not, sits in runs at a row's
start or end; an unknown id falls anywhere). Only 2-D integer ids of sequences at least
``MIN_LENGTH`` long, into tables of at least ``MIN_TABLE`` rows, are read: a segment-id or
category table is not text. A flat batch of at least ``MIN_FLAT_IDS`` ids (skip-gram's centre
words, an EmbeddingBag's stream; real-bug batch 123: sentences split into characters, 74% of
them the unknown id) is read as one row of running text.

A forward hook on each embedding notes the first ``CALLS_KEPT`` training-mode lookups and
then removes itself (the ids go to the host: a batch of token ids is small). Kept in
``run.observed.token_id_shares`` as ``[(step, layer, commonest id, its share of the ids,
share of its occurrences between other tokens, ids counted)]``.
"""
import numpy as np

from .padding_ids import training_lookup_ids

CALLS_KEPT = 4         # [design] training lookups noted per embedding (the answer is early)
MIN_LENGTH = 8         # [design] shorter id rows are not running text
MIN_TABLE = 32         # [design] smaller tables are categories (segments, relations), not words
MIN_FLAT_IDS = 64      # [design] a flat batch of word ids this long is running text enough
                       # for one id's share to mean something (skip-gram batches: 256)


def token_embeddings(adapter, types=("Embedding",), min_table=MIN_TABLE):
    """[(name, module)] of the embedding tables large enough to hold a vocabulary (of the
    layer ``types``: nn.Embedding unless asked; at least ``min_table`` rows)."""
    return [(name, module) for name, module in adapter.named_modules()
            if adapter.module_type(module) in types
            and int(getattr(module, "num_embeddings", 0) or 0) >= min_table]


def commonest_id_share(ids, padding_idx=None):
    """(commonest id, its share of all the ids, the share of its occurrences that lie
    between other tokens rather than in a run at a row's start or end, ids counted) of 2-D
    ``ids``; None for the declared padding id or an empty batch."""
    values, counts = np.unique(ids, return_counts=True)
    if not len(values):
        return None
    common = values[int(np.argmax(counts))]
    if padding_idx is not None and common == padding_idx:
        return None
    is_common = ids == common
    length = ids.shape[1]
    whole = is_common.all(axis=1)
    lead = np.where(whole, length, np.argmax(~is_common, axis=1))
    trail = np.where(whole, 0, np.argmax(~is_common[:, ::-1], axis=1))
    occurrences = int(is_common.sum())
    inner = occurrences - int((lead + trail).sum())
    return int(common), occurrences / ids.size, inner / occurrences, int(ids.size)


class FirstLookups:
    """A forward hook on each token embedding (``token_embeddings``) that hands every lookup
    to ``on_lookup(name, module, inputs)`` and removes itself once ``lookups_kept`` of them
    counted (``on_lookup`` returns whether one did): no per-step work afterwards. Shared by
    the observers that read the first lookups' ids (this one, ``visible_targets.py``)."""
    lookups_kept = CALLS_KEPT
    table_types = ("Embedding",)
    min_table = MIN_TABLE

    def __init__(self, adapter, on_error):
        self.adapter, self.on_error = adapter, on_error
        self._handles, self._counted = {}, {}
        for name, module in token_embeddings(adapter, self.table_types, self.min_table):
            try:
                self._handles[name] = adapter.add_forward_hook(module, self._make_hook(name))
            except Exception as error:        # a model without working hooks
                on_error(error)

    def _make_hook(self, name):
        def on_output(module, inputs, output):
            try:
                if not self.on_lookup(name, module, inputs):
                    return
                self._counted[name] = self._counted.get(name, 0) + 1
                if self._counted[name] >= self.lookups_kept:
                    self._handles.pop(name).remove()
            except Exception as error:        # never break the user's forward pass
                self.on_error(error)
        return on_output

    def on_lookup(self, name, module, inputs):
        raise NotImplementedError

    def integer_ids(self, module, inputs):
        """The ids of a training lookup as an integer array; None for anything else."""
        ids = training_lookup_ids(self.adapter, module, inputs)
        return ids if ids is not None and ids.dtype.kind in "iu" else None

    def close(self):
        """Remove the hooks still waiting for lookups (the monitor closed first)."""
        for handle in self._handles.values():
            handle.remove()
        self._handles = {}


class TokenIdShares(FirstLookups):
    # nn.EmbeddingBag too (real-bug batch 264): its 2-D (bags, ids) input is pooled whole,
    # so undeclared padding in the rows' tails is averaged into every bag (PADDING_NOT_MASKED,
    # ``nndebug.rules.sequence``), and its flat stream can be mostly the unknown id
    table_types = ("Embedding", "EmbeddingBag")

    def __init__(self, adapter, observed, current_step, on_error):
        self.observed, self.current_step = observed, current_step
        super().__init__(adapter, on_error)

    def on_lookup(self, name, module, inputs):
        ids = self.integer_ids(module, inputs)
        if ids is None:
            return False
        if ids.ndim == 1 and ids.size >= MIN_FLAT_IDS:
            ids = ids.reshape(1, -1)           # one row of running text
        elif ids.ndim != 2 or ids.shape[1] < MIN_LENGTH:
            return False
        found = commonest_id_share(ids, getattr(module, "padding_idx", None))
        step = self.current_step()
        if found is not None:
            self.observed.token_id_shares.append((-1 if step is None else int(step),
                                                  name, *found))
        return True


# real-bug batch 273 (tabular categorical columns): a categorical column's embedding reads
# ONE id per example; when every example of every first lookup is the same id, the column
# reaches the model as one vector - its values all failed the lookup (a vocabulary built
# from " Male" looked up with "Male": every value the out-of-vocabulary index) or its codes
# collapsed before the lookup
CATEGORY_ROWS_MIN = 3   # [design] a table of one or two rows is a constant or a flag
                        # (a [CLS] vector, BERT's segment ids: all 0 on one-sentence tasks)
CATEGORY_IDS_MIN = 16   # [design] a batch this large all of one id is no draw of a column
                        # with several values (tabular batches: 32-256 rows)


class CategoryIdShares(TokenIdShares):
    """The first training lookups of one id per example - 1-D ids, or (batch, 1) - into
    tables of at least ``CATEGORY_ROWS_MIN`` rows: kept in ``run.observed.
    category_id_shares`` as ``[(step, layer, commonest id, its share of the ids, ids counted,
    table rows)]``."""
    min_table = CATEGORY_ROWS_MIN
    table_types = ("Embedding",)

    def on_lookup(self, name, module, inputs):
        ids = self.integer_ids(module, inputs)
        if ids is None:
            return False
        if ids.ndim == 2 and ids.shape[1] == 1:
            ids = ids[:, 0]
        if ids.ndim != 1 or ids.size < CATEGORY_IDS_MIN:
            return False
        values, counts = np.unique(ids, return_counts=True)
        step = self.current_step()
        self.observed.category_id_shares.append((
            -1 if step is None else int(step), name, int(values[int(np.argmax(counts))]),
            float(counts.max() / ids.size), int(ids.size),
            int(getattr(module, "num_embeddings", 0) or 0)))
        return True
