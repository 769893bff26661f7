"""fairseq's ``Embedding`` helper draws the table from N(0, dim^-0.5) and then zeroes the
padding row with ``nn.init.constant_(m.weight[padding_idx], 0)``. Built with
``padding_idx=None``, ``m.weight[None]`` is the WHOLE table (indexing with None adds an axis),
so every token's vector is set to zero: the model starts reading the same (zero) input for
every token, the first layer's input weights get no gradient until the embeddings have moved,
and the embeddings move only through the few units the zero input leaves alive.

Reported: "transformer_base.Embedding zero out all the embedding weights if padding_idx is
None" - https://github.com/facebookresearch/fairseq/issues/4076 ("this line
``nn.init.constant_(m.weight[padding_idx], 0)`` sets all the weights to 0.0, which is never
desired. Indeed, pytorch's default initialization checks first if padding_idx is not None").
Here: a character-level GRU language model of the sonnets whose embedding is built by that
helper without a padding id, SGD with momentum. Measured (mean loss on the last 20 batches
after 300 steps): bug 1.465, fixed 1.102 (uniform over the characters: 4.14).
Fix: ``if padding_idx is not None:`` before zeroing the padding row.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import characters, next_character_batches, \
    next_id_loss, train_watched

TITLE = ("transformer_base.Embedding zero out all the embedding weights if padding_idx is "
         "None")
LINK = "https://github.com/facebookresearch/fairseq/issues/4076"
EXPECTED = ("EMBEDDING_INIT_ZERO",)
STEPS = 300


def Embedding(num_embeddings, embedding_dim, padding_idx, fixed):
    m = nn.Embedding(num_embeddings, embedding_dim, padding_idx=padding_idx)
    nn.init.normal_(m.weight, mean=0, std=embedding_dim ** -0.5)
    if fixed:
        if padding_idx is not None:
            nn.init.constant_(m.weight[padding_idx], 0)
    else:
        nn.init.constant_(m.weight[padding_idx], 0)      # BUG: weight[None] is every row
    return m


class CharLM(nn.Module):
    def __init__(self, vocab, fixed, width=64):
        super().__init__()
        self.embed = Embedding(vocab, width, None, fixed)
        self.rnn = nn.GRU(width, 128, batch_first=True)
        self.out = nn.Linear(128, vocab)

    def forward(self, ids):
        hidden, _ = self.rnn(self.embed(ids))
        return self.out(hidden)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLM(vocab, fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, length=32), **watch)
