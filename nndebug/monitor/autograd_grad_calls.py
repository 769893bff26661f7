"""Whether a parameter's gradient hook fires inside ``torch.autograd.grad`` rather than a
``backward()``.

A tensor hook on a parameter fires for both: ``loss.backward()`` then adds the gradient
into ``.grad``, ``torch.autograd.grad(loss, params)`` hands it back to the caller and leaves
``.grad`` alone. Losses built from derivatives take parameter gradients that way on every
step (an IGA or MAML penalty on the spread of per-task gradients, a gradient-norm
regulariser), and a hook that counted them as delivered would find ``.grad`` holding less
than the step's backward passes "delivered" (GRADIENTS_DISCARDED) or more (GRADIENTS_
ACCUMULATING) on a healthy loop.

torch tells the two apart through the parameter's own ``AccumulateGrad`` node: asked whether
the running engine will execute that node, it answers during a backward and refuses, naming
``autograd.grad()``, during a gradient call. The nodes are read once per parameter (a leaf
keeps the same node while it lives); one check per hook call, on recorded steps only.
"""


def accumulators(framework, params):
    """Each parameter's AccumulateGrad node (None where it cannot be read), or None when
    the framework is not torch."""
    if framework != "torch":
        return None
    nodes = []
    for p in params:
        try:
            node = p.view_as(p).grad_fn.next_functions[0][0]
            nodes.append(node if type(node).__name__ == "AccumulateGrad" else None)
        except Exception:                       # a tensor subclass, no grad_fn: not checked
            nodes.append(None)
    return nodes


def inside_gradient_call(node):
    """True while the running autograd engine serves ``torch.autograd.grad`` (the gradient
    reaching ``node``'s parameter goes back to the caller, not into ``.grad``)."""
    if node is None:
        return False
    import torch
    try:
        torch._C._will_engine_execute_node(node)
    except RuntimeError as error:
        return "autograd.grad" in str(error)
    except Exception:                           # an older torch without the check
        return False
    return False
