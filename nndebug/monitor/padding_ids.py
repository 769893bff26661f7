"""Embeddings declared with a ``padding_idx``, and the ids they are given
(PADDING_IDX_ON_REAL_IDS, ``nndebug.rules.padding_idx``).

``nn.Embedding(n, d, padding_idx=p)`` keeps row p at zero and never updates it: right for a
padding token that fills the tail of short sequences, wrong when p is a real id (TuckER's
relation 0, an entity table whose first entity is real). The tell-tale: ids given one per
example, a batch of (B,) or (B, 1) ids, where there is nothing to pad, and p among them.

On the first ``STEPS_KEPT`` recorded steps a forward hook on each such embedding notes the
shape of the ids and how many of them were p (a copy of the ids to the host: they are small).
"""
import numpy as np

from ..observed import PaddingLookup

STEPS_KEPT = 16        # [design] recorded steps whose lookups are noted (the answer is early)


def padded_embeddings(adapter):
    """[(name, module)] of the embeddings with a padding_idx (torch's and minigrad's name)."""
    return [(name, module) for name, module in adapter.named_modules()
            if adapter.module_type(module) == "Embedding"
            and getattr(module, "padding_idx", None) is not None]


def training_lookup_ids(adapter, module, inputs):
    """The ids a lookup table was given in a training forward, on the host; None in eval
    mode or when its first input is no tensor (read by ``token_id_shares.py`` too)."""
    if not adapter.is_training(module) or not inputs or not adapter.is_tensor(inputs[0]):
        return None
    return adapter.to_numpy(inputs[0])


class PaddingIds:
    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.layers = padded_embeddings(adapter)

    def hooks(self, step):
        """Handles of the hooks for recorded step ``step`` (none once enough steps were seen)."""
        lookups = self.observed.padding_lookups
        if not self.layers or len({p.step for p in lookups}) >= STEPS_KEPT:
            return []
        return [self.adapter.add_forward_hook(module, self._make_hook(name, step))
                for name, module in self.layers]

    def _make_hook(self, name, step):
        def on_output(module, inputs, output):
            try:
                ids = training_lookup_ids(self.adapter, module, inputs)
                if ids is None:
                    return
                pad = int(module.padding_idx)
                self.observed.padding_lookups.append(PaddingLookup(
                    step, name, pad, tuple(ids.shape), int(np.count_nonzero(ids == pad))))
            except Exception as error:        # never break the user's forward pass
                self.on_error(error)
        return on_output
