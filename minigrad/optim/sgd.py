"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""
from .optimizer import Optimizer, check_hyper


class SGD(Optimizer):
    """torch.optim.SGD's update, for each parameter with a gradient g:

        g = g + weight_decay * p                       (L2 penalty folded into the gradient)
        b = g  on the first step,  else  b = momentum * b + (1 - dampening) * g
        g = g + momentum * b   if nesterov   else   g = b
        p = p - lr * g
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, nesterov=False, weight_decay=0,
                 *, maximize=False):
        check_hyper("learning rate", lr)
        check_hyper("momentum", momentum)
        check_hyper("weight_decay", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      nesterov=nesterov, weight_decay=weight_decay,
                                      maximize=maximize))

    def _update(self, p, grad, group):
        lr, momentum = group["lr"], group["momentum"]
        dampening, weight_decay = group["dampening"], group["weight_decay"]
        if weight_decay != 0:
            grad = grad + weight_decay * p.data
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.copy()
            else:
                buf *= momentum
                buf += (1 - dampening) * grad
            grad = grad + momentum * buf if group["nesterov"] else buf
        p.data += -lr * grad
