"""Calls of ``torch.manual_seed`` while training runs (RNG_RESEEDED,
``nndebug.rules.rng_reseeded``).

Seeding the global generator once, before training, makes a run reproducible. Seeding it
again inside the loop with the same seed rewinds it: everything drawn from it afterwards
(the DataLoader's shuffle, dropout masks, random augmentation, noise) repeats what was drawn
after the last seeding. An evaluation that calls ``torch.manual_seed(seed)`` to sample the
same images every time (huggingface/diffusers#7991) makes every epoch after it see the
batches in the same order.

While watching, ``torch.manual_seed`` (also reached as ``torch.random.manual_seed``) is
replaced by a wrapper that notes ``(step, seed)`` and calls the original; calls made from
nndebug's own code are not noted. ``close()`` puts the original back (when the wrapper is
still the one installed; a wrapper left behind by an overlapping monitor only passes calls
through). Costs nothing per step: only a seeding call pays one list append. Kept in
``run.observed.seed_calls`` (a declared field of ``nndebug.observed.Observed``: saved and
loaded with the run). A function imported before watching started
(``from torch import manual_seed``) is not seen.
"""
import sys

MAX_CALLS_KEPT = 64      # [design] seeding calls noted (a seed in every step stops here)


class SeedCalls:
    def __init__(self, adapter, observed, current_step, on_error):
        self.observed, self._current_step, self._on_error = observed, current_step, on_error
        self._original = self._wrapper = None
        if adapter.framework != "torch":
            return
        try:
            import torch
            original = torch.manual_seed
            self._original, self._wrapper = original, self._wrap(original)
            torch.manual_seed = torch.random.manual_seed = self._wrapper
        except Exception as error:        # a torch whose seeding cannot be wrapped
            self._original = self._wrapper = None
            on_error(error)

    def _wrap(self, original):
        def manual_seed(seed):
            if self._wrapper is not None and not _from_nndebug():
                try:
                    calls = self.observed.seed_calls
                    if len(calls) < MAX_CALLS_KEPT:
                        calls.append((self._current_step(), int(seed)))
                except Exception as error:    # never break the user's call
                    self._on_error(error)
            return original(seed)
        manual_seed.__doc__ = original.__doc__
        manual_seed.__wrapped__ = original
        return manual_seed

    def close(self):
        wrapper, self._wrapper = self._wrapper, None     # a wrapper left behind passes through
        if wrapper is None:
            return
        import torch
        if torch.manual_seed is wrapper:
            torch.manual_seed = self._original
        if torch.random.manual_seed is wrapper:
            torch.random.manual_seed = self._original


def _from_nndebug():
    """Whether the seeding call comes from nndebug's own code (a probe, a helper)."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return caller == "nndebug" or caller.startswith("nndebug.")
