"""A character-level CNN embeds every character of every word, ``(batch, words, chars,
char_dim)``, and hands the words to a ``Conv1d`` that wants ``(words, char_dim, chars)``.
The code gets there with ``.view(batch * words, char_dim, chars)`` - the right shape, but a
view keeps the memory order, so "channel" c of the result is not embedding dimension c:
it holds pieces of several characters' embeddings laid end to end, and the "positions" the
convolution slides over jump between characters and embedding dimensions. The convolution's
locality, what it is for, is lost; training goes on without a warning.

Reported: "Is it appropriate to apply the view function in char_emb_layer?" -
https://github.com/galsang/BiDAF-pytorch/issues/17 (BiDAF's character embedding layer
"change[s] the data's shape from (batch, seq_len, word_len, char_dim) to (batch * seq_len,
char_dim, word_len)" with view; "shouldn't this be a transpose operation?"; the author:
"it looks more desirable to apply a transpose function first, then the original view
function", and merged the fix; the reporter saw the loss drop "a little faster" after it).
Here each 8x8 digit is a "sentence" of 8 rows ("words") of 8 pixels ("characters", the
pixel's 17 grey levels as ids), embedded in 8 dimensions, a width-3 convolution over each
row's pixels, max-pooled, and a linear classifier over the 8 rows.

Measured (150 steps, batch 64, Adam 3e-3; accuracy / cross-entropy on all 1797 digits):
bug 94.5% / 0.21, fixed 90.4% / 0.35 - at this scale the scrambled layout did NO harm (the
report saw the fixed loss fall only "a little faster"): the first layers are linear in every
character of the row either way, and an 8-pixel row leaves little for locality to add. Kept
as it came: a real report whose bug a monitor can only find from the structure, never from
the curve.

Fix: ``x.transpose(2, 3).reshape(batch * words, char_dim, chars)`` (transpose first, then
view).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Is it appropriate to apply the view function in char_emb_layer?"
LINK = "https://github.com/galsang/BiDAF-pytorch/issues/17"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 150
CHAR_DIM = 8
CHANNELS = 16


class CharCNN(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.char_emb = nn.Embedding(17, CHAR_DIM)
        self.char_conv = nn.Conv1d(CHAR_DIM, CHANNELS, 3, padding=1)
        self.out = nn.Linear(8 * CHANNELS, 10)

    def forward(self, ids):                       # (batch, words, chars)
        batch, words, chars = ids.shape
        x = self.char_emb(ids)                    # (batch, words, chars, char_dim)
        if self.fixed:
            x = x.transpose(2, 3).reshape(batch * words, CHAR_DIM, chars)
        else:
            x = x.view(batch * words, CHAR_DIM, chars)   # BUG: a view, not a transpose
        x = torch.relu(self.char_conv(x)).max(dim=2).values   # (batch * words, channels)
        return self.out(x.view(batch, words * CHANNELS))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    ids = (x * 16).round().long().view(-1, 8, 8)  # 8 "words" of 8 "characters" each
    model = CharCNN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(ids, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
