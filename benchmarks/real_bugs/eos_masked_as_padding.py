"""A language model fine-tuned with the padding id set to the end-of-sequence id, and a
collator that masks every padding position out of the labels (-100): the real end token of
each example is masked with the padding, so the model is never taught to end a sequence
and, at generation time, never stops.

Reported: "DataCollatorForCompletionOnlyLM defaults can create a model that never generates
`eos_token_id`" - https://github.com/huggingface/trl/issues/976 (``pad_token_id`` set to
``eos_token_id``; the collator "sets label=-100 for all the pad tokens ... this means that
the eos_token is getting a label of -100, meaning we never teach the model to end a
sentence"). Here a character GRU on the sonnets' verse lines, each ended by an end id and
right-padded with it. Fix: a padding id of its own (or mask by the attention mask), so the
first end token of each line keeps its label.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "DataCollatorForCompletionOnlyLM defaults can create a model that never generates " \
        "`eos_token_id`"
LINK = "https://github.com/huggingface/trl/issues/976"
EXPECTED = ("END_TOKEN_NEVER_A_TARGET",)
STEPS = 120
IGNORE = -100


class CharModel(nn.Module):
    def __init__(self, vocab, width=48):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.rnn = nn.GRU(width, width, batch_first=True)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


def examples(fixed):
    """Each line followed by the end id; padded with the end id (bug) or with 0, a padding
    id of its own (fixed). Labels: the next id, -100 wherever the collator sees padding."""
    lines, vocab = padded_lines()                  # 0 pads, characters are 1..vocab - 1
    end = vocab                                    # the end-of-sequence id
    lengths = (lines != 0).sum(1)
    ids = torch.zeros(len(lines), lines.shape[1] + 1, dtype=torch.int64)
    ids[:, :-1] = lines
    ids[torch.arange(len(lines)), lengths] = end
    pad = 0 if fixed else end                      # BUG when not fixed: pad id = end id
    ids[ids == 0] = pad
    labels = ids[:, 1:].clone()
    labels[labels == pad] = IGNORE                 # the collator masks the padding id
    return ids[:, :-1], labels, vocab + 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    inputs, labels, vocab = examples(fixed)
    model = CharModel(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE)
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(inputs), (32,), generator=generator)
            optimizer.zero_grad()
            logits = model(inputs[rows])
            loss = loss_fn(logits.transpose(1, 2), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
