"""Adam written by hand (Kingma & Ba 2015, Algorithm 1), shared by real-bug batch 99's two
Adam cases: each keeps the moments as the paper does and overrides ``apply`` - the line
that turns them into the step - with its report's mistake."""
import torch


class HandwrittenAdam(torch.optim.Optimizer):
    """Adam by hand; ``fixed`` says whether a subclass's ``apply`` keeps its bug."""

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
                m, v = state["m"], state["v"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                self.apply(p, m, v, state["t"], group)

    def apply(self, p, m, v, t, group):
        """The paper's step: bias-corrected moments, the first divided by the root of the
        second."""
        beta1, beta2 = group["betas"]
        m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
        p -= group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])
