"""Adam and AdamW: per-parameter step sizes from running moment estimates."""
import numpy as np

from .optimizer import Optimizer, check_hyper, lerp_


class Adam(Optimizer):
    """torch.optim.Adam's update, for each parameter with a gradient g, at step t:

        g = g + weight_decay * p             (Adam: L2 penalty in the gradient)
        p = p * (1 - lr * weight_decay)      (AdamW instead: decoupled decay of the weights)
        m = beta1 * m + (1 - beta1) * g      (first moment: a smoothed gradient)
        v = beta2 * v + (1 - beta2) * g^2    (second moment: a smoothed squared gradient)
        vmax = max(vmax, v)                  (amsgrad only; then vmax replaces v below)
        p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

    The (1 - beta^t) factors undo the bias of m and v towards their zero start.
    """

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, maximize=False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon", eps)
        check_hyper("beta parameter at index 0", betas[0], 0.0, 1.0, high_open=True)
        check_hyper("beta parameter at index 1", betas[1], 0.0, 1.0, high_open=True)
        check_hyper("weight_decay", weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def _update(self, p, grad, group):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(p.data)
            state["exp_avg_sq"] = np.zeros_like(p.data)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(p.data)
        state["step"] += 1
        step = state["step"]
        if weight_decay != 0:
            if self._decoupled:
                p.data *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * p.data
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        second = exp_avg_sq
        if group["amsgrad"]:
            np.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
            second = state["max_exp_avg_sq"]
        denom = np.sqrt(second) / bias_correction2_sqrt + eps
        p.data += -step_size * (exp_avg / denom)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): the weights shrink by
    ``lr * weight_decay`` each step instead of the decay entering the moment estimates."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
