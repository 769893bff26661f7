"""A hand-written Adam whose step computes the new moments into fresh tensors
(``m = beta1 * m + (1 - beta1) * g``) and never writes them back into the optimizer's
per-parameter state: the stored moments stay zero, so every step starts the averages
afresh. Each update is then (1 - beta1) g / sqrt((1 - beta2) g^2) with the bias correction
of a long run: a sign step about 3x the learning rate for every weight, with no averaging
of the noise across batches. The loss falls at first, then the run jitters around a worse
solution, unable to settle on the fine values a regression needs.

Reported: "Adam optimizer is broken?" - https://github.com/raskr/rust-autograd/issues/16
("It calculates new values for m and v but while doing so it makes copies ... on each
iteration the optimizer just uses zero initialized values for m and v"; fixed by the
maintainer; the reporter's Q-value regression "kept diverging"). Here a regression of each
8x8 digit's standardised value from its pixels (400 held out), an MLP, mean squared error,
the hand-written Adam at lr 1e-2, 250 steps of 64.

Fix: update the stored moments in place (``m.mul_(beta1).add_(g, alpha=1 - beta1)``).

Measured (held-out MSE): 0.739 with the bug, 0.119 fixed; seeds + 1000: 0.783 vs 0.126.
"""
import torch

from benchmarks.real_bugs._hand_optimizers322 import train_digit_values

TITLE = "Adam optimizer is broken?"
LINK = "https://github.com/raskr/rust-autograd/issues/16"
EXPECTED = ("OPTIMIZER_STATE_RESET", "ADAM_STEP_EXCEEDS_RATE")
STEPS = 250
LR = 1e-2


class ScratchAdam(torch.optim.Optimizer):
    def __init__(self, params, lr, fixed, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))
        self.fixed = fixed

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["t"] = 0
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                state["t"] += 1
                t, g = state["t"], p.grad
                m, v = state["m"], state["v"]
                if self.fixed:
                    m.mul_(beta1).add_(g, alpha=1 - beta1)
                    v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                else:
                    m = beta1 * m + (1 - beta1) * g          # BUG: new tensors, the state
                    v = beta2 * v + (1 - beta2) * g * g      # keeps its zeros
                m_hat = m / (1 - beta1 ** t)
                v_hat = v / (1 - beta2 ** t)
                p -= group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])


def run(fixed=False, steps=STEPS, **watch):
    return train_digit_values(lambda params: ScratchAdam(params, LR, fixed), steps,
                              **watch)
