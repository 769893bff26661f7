"""DPO written by hand whose reference log-probabilities come from the policy itself: no
separate frozen reference model is made, so the "reference" pass runs the same, updating
weights (under no_grad). The policy-minus-reference log-ratio is then zero at every step,
the loss sits at log 2 and its gradient never shrinks: nothing anchors the policy to where
it started, and DPO's push - raise chosen minus rejected - goes on at full strength for
ever. Nothing errors.

Reported: "您实现的dpo和原始dpo不一样。" (your DPO differs from the original) -
https://github.com/YiyangZhou/POVID/issues/11 (the repository's dpo_trainer leaves
self.ref_model None, so the reference has the same parameters as the policy and keeps
updating with it; "the loss would stay unchanged"; the fix: a frozen copy of the starting
policy as the reference). Here: prompts of 4 random symbols (16 of them) and a separator; the chosen
response is the prompt's first symbol, the rejected a different symbol, each closed with
EOS; a GRU LM from scratch, beta 0.5, Adam 3e-3, batch 32 of 2048 pairs; the fix takes a
frozen copy of the policy's start as the reference.

Measured: greedy answer accuracy (the most likely symbol after the prompt) on 1024
held-out prompts, chance 1/16 = 0.06: seed 0, 0.17 for the bug against 1.00 for the fixed
twin; seeds shifted by 1000, 0.35 against 1.00. Unanchored, the push on chosen minus
rejected goes on at full strength and the answer the policy would give degrades.
"""
import torch

from benchmarks.real_bugs._po162 import GRULM, frozen_copy, response_logps, train_dpo

TITLE = "您实现的dpo和原始dpo不一样。 (DPO reference is the policy itself)"
LINK = "https://github.com/YiyangZhou/POVID/issues/11"
EXPECTED = ("REFERENCE_IS_THE_TRAINED_MODEL",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = GRULM()
    # BUG (fixed=False): the reference is the policy being trained
    reference = frozen_copy(model) if fixed else model

    def logps(net, chosen, rejected, prompt_len):
        return (response_logps(net(chosen), chosen, prompt_len),
                response_logps(net(rejected), rejected, prompt_len))

    return train_dpo(model, reference, steps, watch, logps)
