"""DPO written by hand whose response log-probabilities gather each label from the logits at
its OWN position instead of the position before it: the labels were never shifted against
the logits. A causal LM's logits at position t have already read token t, so the "log-prob"
of each response token is the probability of copying the token just read. DPO raises that
for chosen tokens and lowers it for rejected ones - easy, since the token is in view - and
the margin grows, the loss falls, the reward accuracy climbs; but the next-token
distribution after the prompt, which generation uses, is never trained toward the chosen
answer.

Reported: "DPO 标签 shift" (DPO label shift) -
https://github.com/wyf3/llm_related/issues/33 (a from-scratch LLM's DPO collator builds
labels as [0] * len(prompt) + response, aligned with input_ids rather than shifted, and the
DPO step sums the logits' entries at the label positions, so the k-th position is scored on
the k-th token instead of the (k+1)-th; the fix there: shift the labels one place, i.e.
the prompt part one token shorter). Here: prompts of 4 random symbols (16 of them) and a
separator; the chosen response is the prompt's first symbol, the rejected a different
symbol; a GRU LM from scratch, a frozen copy of its start as the reference, beta 0.5,
Adam 3e-3, batch 32 of 2048 pairs; the fix gathers labels ids[:, 1:] from logits[:, :-1].

Measured (greedy answer accuracy - the most likely symbol after the prompt - on 1024
held-out prompts; chance 1/16 = 0.06): seed 0,
0.84 for the bug against 1.00 for the fixed twin; seeds shifted by 1000, 0.86
against 1.00.
"""
import torch

from benchmarks.real_bugs._po162 import GRULM, frozen_copy, response_logps, train_dpo

TITLE = "DPO 标签 shift (DPO labels not shifted against the logits)"
LINK = "https://github.com/wyf3/llm_related/issues/33"
EXPECTED = ("LABELS_MISALIGNED", "TARGETS_IN_INPUTS")
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = GRULM()
    reference = frozen_copy(model)

    def logps(net, chosen, rejected, prompt_len):
        # BUG (fixed=False): labels gathered at their own position, not shifted by one
        return (response_logps(net(chosen), chosen, prompt_len, shift=fixed),
                response_logps(net(rejected), rejected, prompt_len, shift=fixed))

    return train_dpo(model, reference, steps, watch, logps)
