"""nndebug's own torch function modes on torch's stack of them: pushed, retired, popped.

Two observers push a ``TorchFunctionMode`` for part of a recorded step (``attention_capture``
and ``graph_growth``). Popping a mode that is not on top of the stack would remove somebody
else's (a mode the user, or another library, pushed after ours). So a mode is *retired*
instead: it stops measuring (``active = False``) and waits in ``stale`` until it is on top
again, when ``drop_stale`` pops it. While one waits, its owner pushes no new one.

``backward_mode`` is the mode observers push to see ``loss.backward()`` before it runs: the
graph's saved tensors are freed by it. ``BackwardWatch`` is what they share: the mode armed
on a few recorded steps, counted when armed (``policy_gradient_terms``, ``ppo_ratios``,
``near_zero_divisors``).
"""


# every retired mode still on the stack, with its owner, across owners: one owner's mode
# retired under another's waits for that one to go, and is popped then by whichever owner
# pops (left to its own owner, who pushes nothing more once the run ends, it stayed on the
# stack after the monitor closed)
_RETIRED = []


class OwnedModes:
    def __init__(self):
        self.current = None       # the mode pushed for this step, or None
        self.stale = []           # retired modes still on the stack, oldest first

    def push(self, mode):
        """Enter ``mode`` (it goes on top of the stack) and keep it as ``current``."""
        mode.__enter__()
        self.current = mode

    def retire(self):
        """``current`` stops measuring and is popped as soon as it is on top."""
        mode, self.current = self.current, None
        if mode is not None:
            mode.active = False
            self.stale.append(mode)
            _RETIRED.append((mode, self))
        self.drop_stale()

    def drop_stale(self):
        """Pop the retired modes, of any owner, that are on top of the stack (may raise:
        the caller stops using modes then)."""
        while _RETIRED:
            top = top_mode()
            found = next((entry for entry in _RETIRED if entry[0] is top), None)
            if found is None:
                return
            _RETIRED.remove(found)
            mode, owner = found
            owner.stale = [m for m in owner.stale if m is not mode]
            mode.__exit__(None, None, None)


def top_mode():
    """The torch function mode on top of the stack, or None."""
    import torch
    depth = torch._C._len_torch_function_stack()
    return torch._C._get_function_stack_at(depth - 1) if depth else None


def backward_mode(on_backward):
    """A torch function mode that hands each ``Tensor.backward``'s tensor to
    ``on_backward`` before the backward runs, and lets every call through unchanged."""
    import torch
    from torch.overrides import TorchFunctionMode

    class BackwardMode(TorchFunctionMode):
        active = True

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if self.active and func is torch.Tensor.backward and args:
                on_backward(args[0])
            return func(*args, **(kwargs or {}))

    return BackwardMode()


class BackwardWatch:
    """Sees ``loss.backward()`` before it runs, on the first ``steps`` recorded steps once
    ``wanted`` (the owner set it: its loss has what it reads). A step counts when the mode
    is armed, so a loop whose backward the mode never sees (``torch.autograd.backward(loss)``)
    is not armed on every recorded step of the run. The owner implements
    ``on_backward(step, loss)``; an error there or in the mode stops the watch for good."""
    steps = 3
    first_backward_only = False   # an owner that reads the step's first backward alone
                                  # (the loss's graph; a second backward would repeat it)

    def __init__(self, enabled, on_error):
        self.enabled, self.on_error = enabled, on_error
        self.wanted, self.measured = False, 0
        self.modes = OwnedModes()
        self.step = None
        self._backward_seen = False

    def arm(self, step):
        if not self.enabled or not self.wanted or self.measured >= self.steps or step is None:
            return
        try:
            self.modes.drop_stale()
            if self.modes.stale:
                return                     # an older mode still waits on the stack
            self.step = int(step)
            self.measured += 1
            self._backward_seen = False
            self.begin_step(self.step)
            self.modes.push(self.make_mode())
        except Exception as error:         # no mode: nothing is read, the step runs as ever
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        try:
            self.modes.retire()
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def begin_step(self, step):
        """A recorded step is armed (per-step counters go back to zero here)."""

    def make_mode(self):
        """The function mode pushed on a measured step: by default one that sees each
        ``backward()``; an owner that also reads other calls returns its own, handing the
        backward to ``_on_backward``."""
        return backward_mode(self._on_backward)

    def _on_backward(self, loss):
        if self.step is None or getattr(loss, "grad_fn", None) is None:
            return
        if self.first_backward_only and self._backward_seen:
            return
        self._backward_seen = True
        self.on_backward(self.step, loss)

    def on_backward(self, step, loss):
        raise NotImplementedError
