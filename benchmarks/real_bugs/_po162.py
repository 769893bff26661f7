"""Preference pairs for batch 162 (DPO and reward models written by hand).

A toy instruction task: a prompt of PROMPT random symbols, a separator (which is also the
end-of-sequence token, as in many chat templates), then a response. The preferred
("chosen") response is the prompt's FIRST symbol; the rejected one is another symbol.
Responses end with EOS; shorter ones are right-padded with PAD. A small GRU language model
(or a GRU reward model) is trained on the pairs; held-out metrics read fresh prompts.
"""
import copy

import torch

PAD, EOS, FIRST, SYMBOLS, PROMPT = 0, 1, 2, 16, 4
VOCAB = FIRST + SYMBOLS


class GRULM(torch.nn.Module):
    """A causal LM: logits[:, t] predict token t + 1."""

    def __init__(self, width=64):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 32)
        self.rnn = torch.nn.GRU(32, width, batch_first=True)
        self.head = torch.nn.Linear(width, VOCAB)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


class GRUReward(torch.nn.Module):
    """A reward model: a scalar read from the hidden state at a chosen position."""

    def __init__(self, width=64):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 32)
        self.rnn = torch.nn.GRU(32, width, batch_first=True)
        self.score = torch.nn.Linear(width, 1)

    def forward(self, ids, position):
        hidden = self.rnn(self.embed(ids))[0]
        return self.score(hidden[torch.arange(len(ids)), position]).squeeze(-1)


def prompts(count, generator):
    return torch.randint(FIRST, FIRST + SYMBOLS, (count, PROMPT), generator=generator)


def wrong_symbols(prompt, generator):
    """A symbol other than the prompt's first, per row."""
    shift = torch.randint(1, SYMBOLS, (len(prompt),), generator=generator)
    return FIRST + (prompt[:, 0] - FIRST + shift) % SYMBOLS


def pairs(count, generator, chosen_len=1, rejected_len=1):
    """(chosen ids, rejected ids, prompt length): prompt, EOS, response, EOS, PAD...; the
    chosen response is the first symbol repeated chosen_len times, the rejected a wrong
    symbol repeated rejected_len times; both padded to one width."""
    prompt = prompts(count, generator)
    good = prompt[:, :1]
    bad = wrong_symbols(prompt, generator)[:, None]
    width = PROMPT + 1 + max(chosen_len, rejected_len) + 1
    rows = []
    for answer, length in ((good, chosen_len), (bad, rejected_len)):
        ids = torch.full((count, width), PAD)
        ids[:, :PROMPT] = prompt
        ids[:, PROMPT] = EOS
        ids[:, PROMPT + 1:PROMPT + 1 + length] = answer
        ids[:, PROMPT + 1 + length] = EOS
        rows.append(ids)
    return rows[0], rows[1], PROMPT + 1


def response_logps(logits, ids, prompt_len, mask_padding=True, shift=True):
    """Summed log-probabilities of the response tokens (after the prompt and its EOS)."""
    if shift:
        logits, labels = logits[:, :-1], ids[:, 1:]
        start = prompt_len - 1
    else:       # the label at t read from the logits at t (no shift)
        labels = ids
        start = prompt_len
    per_token = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
    mask = torch.zeros_like(per_token)
    mask[:, start:] = 1
    if mask_padding:
        mask = mask * (labels != PAD)
    return (per_token * mask).sum(-1)


def answer_accuracy(model, generator, count=1024):
    """The most likely symbol after prompt + EOS (argmax over the symbols) is the prompt's
    first symbol."""
    prompt = prompts(count, generator)
    ids = torch.cat([prompt, torch.full((count, 1), EOS)], dim=1)
    model.eval()
    with torch.no_grad():
        guess = FIRST + model(ids)[:, -1, FIRST:].argmax(-1)
    model.train()
    return (guess == prompt[:, 0]).float().mean().item()


def frozen_copy(model):
    reference = copy.deepcopy(model)
    for p in reference.parameters():
        p.requires_grad_(False)
    return reference.eval()


def train_dpo(model, reference, steps, watch, logps, chosen_len=1, rejected_len=1,
              beta=0.5, lr=3e-3, batch=32, pairs_count=2048):
    """DPO on fixed training pairs: -log sigmoid(beta * (policy margin - reference margin)).
    ``logps(model, chosen, rejected, prompt_len)`` gives each pair's response
    log-probabilities (chosen, rejected)."""
    import nndebug as nd
    from benchmarks.real_bugs._common import index_batches
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    chosen, rejected, prompt_len = pairs(pairs_count, generator, chosen_len, rejected_len)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    seed = int(torch.randint(0, 2 ** 31, ()).item())
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(pairs_count, steps, batch, seed):
            c, r = chosen[index], rejected[index]
            with torch.no_grad():
                ref_chosen, ref_rejected = logps(reference, c, r, prompt_len)
            policy_chosen, policy_rejected = logps(model, c, r, prompt_len)
            margin = (policy_chosen - policy_rejected) - (ref_chosen - ref_rejected)
            loss = -torch.nn.functional.logsigmoid(beta * margin).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_answer_accuracy = answer_accuracy(model, generator)
    return mon
