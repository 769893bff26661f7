"""Two optimizers that step the watched parameters within one step of the loop
(PARAMS_IN_TWO_OPTIMIZERS, ``nndebug.rules.shared_optimizers``).

A loop with two networks (a GAN's generator and discriminator, an actor and a critic, a
teacher and a student) has two optimizers, one over each network. Built over the wrong
network (``optim.Adam(generator.parameters())`` meant for the discriminator), the second
optimizer steps the watched network too, on the other network's turn, and the network it
was meant for is in no optimizer at all: it never learns, and nothing in the watched
network's own statistics says so.

One pair of torch's global optimizer step hooks (pre and post: they see every optimizer)
notes, for each watched step, the distinct optimizer objects that stepped at the top level
(not from inside another optimizer's step: a wrapper such as Lookahead steps its inner
optimizer, over the same parameters, from its own step) and hold watched parameters. Two
that hold the SAME watched tensors (two optimizers over disjoint parts of one model, a
SparseAdam for the embeddings and an Adam for the rest, are healthy) in one watched step
are kept in ``run.observed.shared_optimizers`` (a declared field of
``nndebug.observed.Observed``: saved with the run, continued by a resumed monitor) as
``(step, class names, watched tensors both hold)``.
Cost: per optimizer step a depth counter and a set look-up; each new optimizer's
parameters are scanned once.
"""
import weakref

from .optimizer_restarts import watched_held

SHARED_STEPS_KEPT = 16            # [design] steps noted; one is enough to name the cause


class SharedOptimizers:
    def __init__(self, adapter, observed, parameters, current_step, on_error):
        self.observed, self._current_step, self._on_error = observed, current_step, on_error
        self._watched = {id(p) for p in parameters}
        self._holding = weakref.WeakKeyDictionary()   # optimizer -> watched tensors it holds
        self._depth = 0
        self._step, self._stepped = None, []          # this watched step's optimizers
        self._noted = set()
        self._handles = []
        if adapter.framework != "torch" or not self._watched:
            return
        try:
            from torch.optim.optimizer import (register_optimizer_step_post_hook,
                                               register_optimizer_step_pre_hook)
            self._handles = [register_optimizer_step_pre_hook(self._before),
                             register_optimizer_step_post_hook(self._after)]
        except Exception as error:        # a torch without global optimizer hooks
            on_error(error)

    def _before(self, optimizer, args, kwargs):
        self._depth += 1

    def _after(self, optimizer, args, kwargs):
        self._depth = max(0, self._depth - 1)
        if self._depth:
            return                        # stepped from inside another optimizer's step
        try:
            self._note(optimizer)
        except Exception as error:        # never break the user's step
            self._on_error(error)

    def _note(self, optimizer):
        step = self._current_step()
        if step != self._step:
            if self._stepped and self._stepped[0] is optimizer and len(self._stepped) == 1:
                self._step = step          # the usual loop: the one optimizer, a new step
                return                     # (it holds watched tensors: it was kept before)
            self._step, self._stepped = step, []
        elif any(o is optimizer for o in self._stepped):
            return
        held = self._holding.get(optimizer)
        if held is None:
            held = watched_held(optimizer, self._watched)
            self._holding[optimizer] = held
        if not held:
            return
        kept = self.observed.shared_optimizers
        for other in self._stepped:
            both = len(held & self._holding[other])
            if both and step not in self._noted and len(kept) < SHARED_STEPS_KEPT:
                self._noted.add(step)
                kept.append((step, [type(other).__name__, type(optimizer).__name__], both))
        self._stepped.append(optimizer)

    def close(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
