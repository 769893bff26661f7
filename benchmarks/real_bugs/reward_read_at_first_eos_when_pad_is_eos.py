"""A reward model on chosen/rejected pairs that reads each sequence's score at the token
before the FIRST padding token, with the padding token set to the end-of-sequence token -
and the chat template also puts that token between the prompt and the response. The first
"pad" is then the prompt's closing EOS, so both answers are scored on the prompt alone:
chosen and rejected get the same reward, the pairwise loss sits at log 2 with a zero
gradient, and the model learns nothing. Nothing errors.

Reported: "have trobule reproducing LLaMA-3-8B-it BT" -
https://github.com/RLHFlow/RLHF-Reward-Modeling/issues/49 (a Bradley-Terry reward model
trained from LLaMA-3-8B-it output the same score for chosen and rejected while Gemma and
Qwen worked; the maintainer: LLaMA has no padding token and setting the padding token to
the eos token leads to this; the fix: the repository's script, which gives the model a
padding token of its own). Here: prompts of 4 random symbols (16 of them), EOS, a
one-symbol answer (the prompt's first symbol when chosen, another symbol when rejected),
EOS, PAD...; a GRU reward model scoring at (first index of the pad id) - 1, Adam 3e-3,
batch 32 of 2048 pairs; the fix uses the distinct PAD id, so the score is read at the
response's closing EOS.

Measured (pairwise accuracy on 1024 held-out pairs, reward(chosen) > reward(rejected)
strictly; ties count as wrong): seed 0, 0.00 (every pair a tie) for the bug against 0.99 for the fixed
twin; seeds shifted by 1000, 0.00 against 0.97.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._po162 import EOS, PAD, GRUReward, pairs

TITLE = "have trobule reproducing LLaMA-3-8B-it BT"
LINK = "https://github.com/RLHFlow/RLHF-Reward-Modeling/issues/49"
EXPECTED = ("NO_GRADIENT", "OUTPUT_READS_FEW_TOKENS")
STEPS = 300


def score_position(ids, pad_id):
    """The token before the first pad id (sequence classification's end-of-text lookup)."""
    return torch.eq(ids, pad_id).int().argmax(-1) - 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    chosen, rejected, _ = pairs(2048, generator)
    test_chosen, test_rejected, _ = pairs(1024, generator)
    # BUG (fixed=False): pad id = eos id, which also closes the prompt
    # (fixed: a pad id of its own, so the score is read at the response's closing EOS)
    pad_id = PAD if fixed else EOS
    model = GRUReward()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    seed = int(torch.randint(0, 2 ** 31, ()).item())
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(chosen), steps, 32, seed):
            c, r = chosen[index], rejected[index]
            margin = model(c, score_position(c, pad_id)) - model(r, score_position(r, pad_id))
            loss = -torch.nn.functional.logsigmoid(margin).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        better = (model(test_chosen, score_position(test_chosen, pad_id))
                  > model(test_rejected, score_position(test_rejected, pad_id)))
    mon.held_out_pair_accuracy = better.float().mean().item()
    return mon
