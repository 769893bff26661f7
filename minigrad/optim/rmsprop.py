"""RMSprop: divide the gradient by a running root-mean-square of recent gradients."""
import numpy as np

from .optimizer import Optimizer, check_hyper, lerp_


class RMSprop(Optimizer):
    """torch.optim.RMSprop's update, for each parameter with a gradient g:

        g = g + weight_decay * p
        s = alpha * s + (1 - alpha) * g^2
        centered:  a = alpha * a + (1 - alpha) * g;  avg = sqrt(s - a^2) + eps
        otherwise: avg = sqrt(s) + eps
        momentum > 0:  b = momentum * b + g / avg;  p = p - lr * b
        otherwise:     p = p - lr * g / avg
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, *, maximize=False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon", eps)
        check_hyper("momentum", momentum)
        check_hyper("weight_decay", weight_decay)
        check_hyper("alpha", alpha)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, maximize=maximize))

    def _update(self, p, grad, group):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        momentum, weight_decay = group["momentum"], group["weight_decay"]
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["square_avg"] = np.zeros_like(p.data)
            if momentum > 0:
                state["momentum_buffer"] = np.zeros_like(p.data)
            if group["centered"]:
                state["grad_avg"] = np.zeros_like(p.data)
        state["step"] += 1
        if weight_decay != 0:
            grad = grad + weight_decay * p.data
        square_avg = state["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
            avg = np.sqrt(square_avg + (-1 * grad_avg) * grad_avg)
        else:
            avg = np.sqrt(square_avg)
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf *= momentum
            buf += grad / avg
            p.data += -lr * buf
        else:
            p.data += -lr * (grad / avg)
