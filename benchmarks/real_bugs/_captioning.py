"""Shared pieces for the image-captioning and visual-question-answering cases of batch 227.

Pictures: the 2x2 collages of the 8x8 digits captioned by the digits they show in reading
order (benchmarks/real_bugs/_caption_collages.py: token ids 0 padding, 1 ``<start>``,
2 ``<end>``, 3 + d the word for digit d).

Here:

- ``PrefixCaptioner``: a small vision-language decoder in the style of today's VLMs: the
  four region vectors of the collage encoder are put in front of the caption's tokens and a
  causal transformer reads the whole sequence; ``forward`` gives the logits of every
  position from the last region on, so position 0 predicts the first text token and
  position k the token after text token k - 1 (the next-token shift done by the caller).
- ``caption_scores``: greedy decoding from a given text prefix and the held-out scores
  (exact caption - the words up to the first ``<end>`` equal the truth and nothing more -
  and words right at their positions).
- ``vqa_data``: questions about the collages ("which digit is in cell c?", "is there a d?")
  with a 13-answer vocabulary, the regions given as pre-extracted feature vectors (the
  raw pixels of each cell and its box, as bottom-up region features are read from disk), and a
  small top-down-attention VQA model (``TopDownVQA``: attention from the product of the
  projected region and question vectors, as in bottom-up-attention-vqa).
"""
import torch
from torch import nn

from benchmarks.real_bugs._caption_collages import (END, MAX_WORDS, PAD, START, VOCAB,
                                                    Encoder, captioned)
from benchmarks.real_bugs._digit_collages import collages

__all__ = ["PAD", "START", "END", "VOCAB", "MAX_WORDS", "captioned", "PrefixCaptioner",
           "caption_scores", "drawn_seed", "shuffled_batches", "vqa_data", "TopDownVQA",
           "ANSWERS", "QUESTION_VOCAB", "QUESTION_LEN"]


def drawn_seed():
    """A data seed drawn from torch's generator (so a shifted torch.manual_seed moves it)."""
    return int(torch.randint(10 ** 6, ()))


def shuffled_batches(count, steps, batch_size):
    """``steps`` index batches drawn without replacement, reshuffled each epoch (the order
    from torch's global generator)."""
    out, order, position = [], torch.randperm(count), 0
    for _ in range(steps):
        if position + batch_size > count:
            order, position = torch.randperm(count), 0
        out.append(order[position:position + batch_size])
        position += batch_size
    return out


class PrefixCaptioner(nn.Module):
    """Region vectors as a prefix, then the text tokens; a 2-layer causal transformer."""

    def __init__(self, width=32, layers=2, heads=2, max_text=MAX_WORDS + 3):
        super().__init__()
        self.encoder = Encoder(features=width)
        self.embed = nn.Embedding(VOCAB, width)
        self.position = nn.Parameter(0.02 * torch.randn(4 + max_text, width))
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                           batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, VOCAB)

    def forward(self, images, text):
        """Logits (N, 1 + T, VOCAB) of the positions from the last region on."""
        regions = self.encoder(images)                       # (N, 4, width)
        x = torch.cat([regions, self.embed(text)], 1)
        x = x + self.position[:x.shape[1]]
        causal = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.body(x, mask=causal, is_causal=True)
        return self.head(self.norm(h[:, 3:]))

    @torch.no_grad()
    def generate(self, images, prefix, steps=MAX_WORDS + 1):
        """Greedy decoding after the text ``prefix`` (N, P) (P may be 0): (N, steps)."""
        text = prefix
        for _ in range(steps):
            word = self(images, text)[:, -1].argmax(-1)
            text = torch.cat([text, word[:, None]], 1)
        return text[:, prefix.shape[1]:]


def caption_scores(generated, captions):
    """(exact, words) of greedy ``generated`` (N, S) against ``captions`` (N, L) with
    ``<start>`` ... ``<end>``: a caption is exact when the words before the first ``<end>``
    are the truth's words (a caption that never ends runs on and is not exact); words: the
    truth's words found at their positions."""
    exact, hits, total = 0, 0, 0
    for row, truth in zip(generated.tolist(), captions.tolist()):
        words = row[:row.index(END)] if END in row else row
        true_words = [t for t in truth if t not in (PAD, START, END)]
        exact += words == true_words
        hits += sum(1 for i, t in enumerate(true_words) if i < len(words) and words[i] == t)
        total += len(true_words)
    return exact / len(generated), hits / total


# ---- visual question answering -------------------------------------------------------

# question tokens: 0 padding, 1 "which", 2 "is", 3 "there", 4 "digit", 5 "in", 6 "cell",
# 7 "?", 8..11 cell 0..3, 12..21 digit 0..9
QUESTION_VOCAB = 22
QUESTION_LEN = 6
# answers: 0..9 the digit, 10 "blank", 11 "yes", 12 "no"
ANSWERS = 13


def _question(kind, arg):
    if kind == 0:                                  # which digit is in cell c ?
        return [1, 4, 5, 6, 8 + arg, 7]
    return [2, 3, 12 + arg, 7]                     # is there d ?   (padded)


def vqa_data(count, held_out=False, seed=0):
    """(regions (N, 4, 68) pre-extracted region features, questions (N, QUESTION_LEN)
    int64 padded with 0, answers (N,) int64)."""
    x, cell_digits = collages(count, grid=2, held_out=held_out, seed=seed)
    cells = x.view(count, 2, 8, 2, 8).permute(0, 1, 3, 2, 4).reshape(count, 4, 64)
    g = torch.Generator().manual_seed(seed + 31)
    kinds = torch.randint(0, 2, (count,), generator=g)
    cell = torch.randint(0, 4, (count,), generator=g)
    digit = torch.randint(0, 10, (count,), generator=g)
    questions = torch.zeros(count, QUESTION_LEN, dtype=torch.long)
    answers = torch.zeros(count, dtype=torch.long)
    for i in range(count):
        if kinds[i] == 0:
            q = _question(0, int(cell[i]))
            d = int(cell_digits[i, cell[i]])
            answers[i] = 10 if d < 0 else d
        else:
            present = set(cell_digits[i].tolist())
            # half the "is there" questions ask about a digit that is shown
            shown = [d for d in present if d >= 0]
            d = shown[int(digit[i]) % len(shown)] if int(digit[i]) % 2 == 0 else int(digit[i])
            q = _question(1, d)
            answers[i] = 11 if d in present else 12
        questions[i, :len(q)] = torch.tensor(q)
    boxes = torch.eye(4).expand(count, 4, 4)      # where each region is (its box)
    # region features on a detector's scale, with the box appended
    return torch.cat([cells * 4.0, boxes * 4.0], -1), questions, answers


class TopDownVQA(nn.Module):
    """Bottom-up/top-down VQA in small: the mean word vector of the question, attention
    over the region features from the product of their projections, the attended region
    and the question projected and multiplied, an MLP classifier over the answers."""

    def __init__(self, features=68, hidden=64):
        super().__init__()
        self.words = nn.Embedding(QUESTION_VOCAB, hidden, padding_idx=0)
        self.att_v = nn.Sequential(nn.Linear(features, hidden), nn.ReLU())
        self.att_q = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())
        self.att = nn.Linear(hidden, 1)
        self.v_proj = nn.Sequential(nn.Linear(features, hidden), nn.ReLU())
        self.q_proj = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())
        self.classifier = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.ReLU(),
                                        nn.Linear(2 * hidden, ANSWERS))

    def forward(self, v, questions):
        real = (questions != 0).float()[..., None]
        q = (self.words(questions) * real).sum(1) / real.sum(1)      # mean of the words
        scores = self.att(self.att_v(v) * self.att_q(q)[:, None])    # (N, regions, 1)
        attended = (scores.softmax(1) * v).sum(1)
        return self.classifier(self.v_proj(attended) * self.q_proj(q))
