"""nndebug's own torch function modes on torch's stack of them: pushed, retired, popped.

Two observers push a ``TorchFunctionMode`` for part of a recorded step (``attention_capture``
and ``graph_growth``). Popping a mode that is not on top of the stack would remove somebody
else's (a mode the user, or another library, pushed after ours). So a mode is *retired*
instead: it stops measuring (``active = False``) and waits in ``stale`` until it is on top
again, when ``drop_stale`` pops it. While one waits, its owner pushes no new one.

``backward_mode`` is the mode two observers push to see ``loss.backward()`` before it runs
(``policy_gradient_terms``, ``near_zero_divisors``): the graph's saved tensors are freed by it.
"""


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
        self.drop_stale()

    def drop_stale(self):
        """Pop the retired modes that are on top of the stack (may raise: the caller stops
        using modes then)."""
        while self.stale and top_mode() is self.stale[-1]:
            self.stale.pop().__exit__(None, None, None)


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
