"""Captioned pictures for the image-captioning cases of batch 118: 2x2 collages of the 8x8
digits (benchmarks/real_bugs/_digit_collages.py), each captioned by the digits it shows in
reading order (blank cells skipped), so a caption is 1 to 4 words long and names what is
where: ``<start> 3 7 1 <end>`` for a collage with 3 top left, 7 top right, a blank and 1.

Token ids: 0 padding, 1 ``<start>``, 2 ``<end>``, 3 + d the word for digit d. A caption
tensor is padded at the end with 0; its length counts ``<start>`` and ``<end>``.

Also here: a small CNN encoder giving one feature vector per image region (a 4x4 grid), a
show-attend-tell style decoder (an LSTM cell reading the previous word and an attention-
weighted region vector, attention over the regions), greedy decoding, and the held-out
scores the cases report (exact caption match, word accuracy).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._digit_collages import collages

PAD, START, END = 0, 1, 2
VOCAB = 13
MAX_WORDS = 4                       # a 2x2 collage names at most four digits
MAX_LEN = MAX_WORDS + 2             # with <start> and <end>


def captioned(count, held_out=False, seed=0):
    """(images (N, 1, 16, 16), captions (N, MAX_LEN) int64 padded with PAD, lengths (N,)
    counting <start> and <end>)."""
    x, cell_digits = collages(count, grid=2, held_out=held_out, seed=seed)
    images = x.view(count, 1, 16, 16)
    captions = torch.full((count, MAX_LEN), PAD, dtype=torch.long)
    lengths = torch.zeros(count, dtype=torch.long)
    for i in range(count):
        words = [3 + d for d in cell_digits[i].tolist() if d >= 0]
        row = [START] + words + [END]
        captions[i, :len(row)] = torch.tensor(row)
        lengths[i] = len(row)
    return images, captions, lengths


def index_batches(count, steps, batch_size, seed=0):
    """``steps`` index batches drawn without replacement, reshuffled each epoch."""
    g = torch.Generator().manual_seed(seed)
    out, order = [], torch.randperm(count, generator=g)
    position = 0
    for _ in range(steps):
        if position + batch_size > count:
            order, position = torch.randperm(count, generator=g), 0
        out.append(order[position:position + batch_size])
        position += batch_size
    return out


class Encoder(nn.Module):
    """16x16 picture -> (N, 4 regions, 32 features): a convolution with one 8x8 window per
    collage cell (a patch embedding), then a 1x1 convolution, plus a learned
    vector per cell position (what a deeper CNN's padding and receptive fields give it)."""

    def __init__(self, features=32):
        super().__init__()
        self.patches = nn.Conv2d(1, 64, 8, stride=8)
        self.mix = nn.Conv2d(64, features, 1)
        self.where = nn.Parameter(0.1 * torch.randn(4, features))   # which cell a region is

    def forward(self, images):
        h = F.relu(self.mix(F.relu(self.patches(images))))  # (N, C, 2, 2)
        return h.flatten(2).transpose(1, 2) + self.where     # (N, 4, C)


class AttentionDecoder(nn.Module):
    """An LSTM cell fed [previous word, attended region vector]; additive attention over the
    regions from the previous hidden state; the initial state from the mean region."""

    def __init__(self, features=32, hidden=64, embed=16, attend=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, embed)
        self.cell = nn.LSTMCell(embed + features, hidden)
        self.init_h = nn.Linear(features, hidden)
        self.init_c = nn.Linear(features, hidden)
        self.att_regions = nn.Linear(features, attend)
        self.att_hidden = nn.Linear(hidden, attend)
        self.att_score = nn.Linear(attend, 1)
        self.head = nn.Linear(hidden, VOCAB)

    def start(self, regions):
        mean = regions.mean(1)
        return torch.tanh(self.init_h(mean)), torch.tanh(self.init_c(mean))

    def attend(self, regions, h):
        scores = self.att_score(torch.tanh(self.att_regions(regions)
                                           + self.att_hidden(h)[:, None])).squeeze(-1)
        alpha = scores.softmax(dim=1)                        # over the regions
        return (alpha[..., None] * regions).sum(1), alpha

    def step(self, regions, word, state):
        context, alpha = self.attend(regions, state[0])
        h, c = self.cell(torch.cat([self.embed(word), context], -1), state)
        return self.head(h), (h, c), alpha

    def forward(self, regions, words):
        """Teacher forcing: logits (N, T, VOCAB), one per word of ``words`` (N, T)."""
        state, out = self.start(regions), []
        for t in range(words.shape[1]):
            logits, state, _ = self.step(regions, words[:, t], state)
            out.append(logits)
        return torch.stack(out, 1)

    def free_running(self, regions, steps=MAX_LEN - 1):
        """Logits (N, steps, VOCAB) of decoding from <start> with each chosen word fed back
        (no ground truth read): what inference does, scored against the captions."""
        word = torch.full((len(regions),), START, dtype=torch.long)
        state, out = self.start(regions), []
        for _ in range(steps):
            logits, state, _ = self.step(regions, word, state)
            word = logits.argmax(-1)
            out.append(logits)
        return torch.stack(out, 1)

    @torch.no_grad()
    def greedy(self, regions, steps=MAX_LEN - 1):
        """Words chosen one at a time from <start>, each fed back: (N, steps)."""
        return self.free_running(regions, steps).argmax(-1)


class Captioner(nn.Module):
    def __init__(self, decoder=None):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = AttentionDecoder() if decoder is None else decoder

    def forward(self, images, words):
        return self.decoder(self.encoder(images), words)

    @torch.no_grad()
    def caption(self, images):
        return self.decoder.greedy(self.encoder(images))


def masked_loss(logits, targets):
    """Cross-entropy over the real words of ``targets`` (padding skipped)."""
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=PAD)


def scores(generated, captions):
    """(exact caption match, word accuracy) of greedy ``generated`` (N, MAX_LEN - 1) words
    against ``captions`` (N, MAX_LEN) with <start>: words after <end> are not compared."""
    truth = captions[:, 1:]
    real = truth != PAD
    hit = (generated == truth) | ~real
    exact = hit.all(1).float().mean().item()
    words = ((generated == truth) & real).sum().item() / real.sum().item()
    return exact, words
