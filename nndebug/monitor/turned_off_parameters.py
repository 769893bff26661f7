"""Parameters trainable when watching started whose ``requires_grad`` is False when the
findings are asked for: turned off by hand during the run (REQUIRES_GRAD_TURNED_OFF,
``nndebug.rules.turned_off_parameters``; real-bug batch 81, graph breaks).

An evaluation helper that sets ``p.requires_grad = False`` on the model (to save memory, as
a "freeze" for inference) and never sets it back, or a ``set_requires_grad(net, False)``
left on after a GAN's generator step, stops those parameters' training for the rest of the
run without any error: backward simply stops delivering their gradients.

How it is read: when ``watch`` starts, the names of the parameters whose ``requires_grad``
is True (a Python attribute: nothing on the device); at ``findings()``, the same flags again.
Cost: one pass over ``named_parameters()`` at start and one at findings, Python attributes
only - nothing during training, no host transfer.

Kept in ``run.observed.turned_off_parameters`` as ``[(name, shape)]``: the parameters
trainable at the start and not any more (read anew at each findings()).
"""


class TurnedOffParameters:
    """Names the trainable parameters at watch start; ``read()`` at findings fills the rows."""

    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.trainable_at_start = set()
        try:
            self.trainable_at_start = {str(name) for name, p in adapter.named_parameters()
                                       if adapter.requires_grad(p)}
        except Exception as error:       # never break the user's watch()
            on_error(error)

    def read(self):
        if not self.trainable_at_start:
            return
        try:
            self.observed.turned_off_parameters = [
                (str(name), [int(n) for n in p.shape])
                for name, p in self.adapter.named_parameters()
                if str(name) in self.trainable_at_start and not self.adapter.requires_grad(p)]
        except Exception as error:       # never break the user's findings()
            self.on_error(error)
