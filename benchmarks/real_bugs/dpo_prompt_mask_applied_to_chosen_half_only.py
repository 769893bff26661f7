"""DPO written by hand that runs chosen and rejected sequences as one concatenated batch of
2B rows and then masks the prompt out of the log-probability sums with a loop that zips the
2B row masks with the B prompt lengths. zip stops at the shorter list, so only the first B
rows - the chosen ones - lose their prompt; the rejected rows keep every prompt token in
their "response" log-probability. DPO then finds a cheap way down for the rejected side:
make the prompt tokens unlikely, which costs the chosen side nothing since its prompts are
masked. The margin grows, the loss falls, the reward accuracy reaches 1 - on the prompts,
not on the answers, which stay barely trained. Nothing errors.

Reported: "llm_dpo中get_batch_logps中的维度问题" (dimension problem in llm_dpo's
get_batch_logps) - https://github.com/QwenAudio/CosyVoice/issues/1409 (in DPO the loss
masks cover 2B rows, chosen and rejected concatenated, while prompt_token_lens has B
entries, and the loop `for mask, text_token_len in zip(loss_masks, prompt_token_lens)`
masks the prompt of the first B rows only; the fix: repeat the prompt lengths for both
halves). Here: prompts of 4 random symbols (16 of them) and a separator; the chosen
response is the prompt's first symbol, the rejected a different symbol, each closed with
EOS; a GRU LM from scratch, a frozen copy of its start as the reference, beta 0.5, Adam
3e-3, batch 32 of 2048 pairs, the log-probabilities over the concatenated batch with the
mask built from the non-padding tokens and the prompt lengths; the fix repeats the
lengths twice.

Measured (greedy answer accuracy - the most likely symbol after the prompt - on 1024
held-out prompts; chance 1/16 = 0.06): seed 0, 0.07 for the bug against 1.00 for
the fixed twin; seeds shifted by 1000, 0.06 against 1.00.
"""
import torch

from benchmarks.real_bugs._po162 import PAD, GRULM, frozen_copy, train_dpo

TITLE = "llm_dpo中get_batch_logps中的维度问题 (prompt lengths for B rows, masks for 2B)"
LINK = "https://github.com/QwenAudio/CosyVoice/issues/1409"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS",)
STEPS = 400


def batch_logps(logits, ids, prompt_lens):
    """Summed next-token log-probabilities, the prompt masked row by row."""
    labels = ids[:, 1:]
    per_token = torch.gather(logits[:, :-1].log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
    masks = (labels != PAD).clone()
    for mask, length in zip(masks, prompt_lens):
        mask[:length - 1] = False       # the tokens up to the prompt's closing EOS
    return (per_token * masks).sum(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = GRULM()
    reference = frozen_copy(model)

    def logps(net, chosen, rejected, prompt_len):
        ids = torch.cat([chosen, rejected])
        prompt_lens = [prompt_len] * len(chosen)     # one per pair
        if fixed:
            prompt_lens = prompt_lens * 2            # one per row, both halves
        # BUG (fixed=False): zip over 2B masks and B lengths masks the chosen half only
        both = batch_logps(net(ids), ids, prompt_lens)
        return both[:len(chosen)], both[len(chosen):]

    return train_dpo(model, reference, steps, watch, logps)
