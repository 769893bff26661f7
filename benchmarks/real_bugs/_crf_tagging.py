"""A small named-entity task and a hand-written linear-chain CRF for the cases of real-bug
batch 128 (BiLSTM-CRF taggers, the forward algorithm, Viterbi decoding).

Sentences of 4-16 word ids; entities of one or two types (PER, LOC) one to three words
long, tagged BIO: O=0, B-PER=1, I-PER=2, B-LOC=3, I-LOC=4. An entity's last word comes
from its type's own words; its earlier words come from a set both types share (and O
words sometimes do too), so whether a shared word is B-PER or B-LOC is read from what
comes after it (what a CRF's transitions and a bidirectional LSTM's context are for).
Id 0 is the padding; padded tag positions hold 0 and are masked.

``BiLstmCrf`` computes emissions (B, T, K) with a BiLSTM (packed by length) and owns the
CRF's parameters: ``start`` (K), ``end`` (K) and ``transitions`` (K, K),
``transitions[i, j]`` the score of tag j following tag i. ``log_likelihood`` is the
forward algorithm (log-sum-exp over the previous tag) against the gold path's score, per
sentence; ``viterbi`` decodes with back-pointers.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches

TAGS = 5                      # O, B-PER, I-PER, B-LOC, I-LOC
O_WORDS = range(1, 41)
PER_WORDS = range(41, 56)
LOC_WORDS = range(56, 71)
SHARED_WORDS = range(71, 86)
VOCAB = 86
TRAIN, HELD_OUT = 1200, 400


def sentences(count, seed):
    """``count`` sentences: ids and tags (count, 16) padded with 0, and lengths (count,)."""
    rng = np.random.default_rng(seed)
    longest = 16
    ids = np.zeros((count, longest), dtype=np.int64)
    tags = np.zeros((count, longest), dtype=np.int64)
    lengths = rng.integers(4, longest + 1, count)
    for row, length in enumerate(lengths):
        k = 0
        while k < length:
            if rng.random() < 0.25:
                kind = rng.integers(0, 2)                         # 0 PER, 1 LOC
                span = min(int(rng.integers(1, 4)), length - k)
                last = PER_WORDS if kind == 0 else LOC_WORDS
                for j in range(span):
                    # the entity's type shows in its last word only
                    ids[row, k + j] = rng.choice(last if j == span - 1 else SHARED_WORDS)
                    tags[row, k + j] = (1 if j == 0 else 2) + 2 * kind
                k += span
            else:
                # an O word now and then is one of the shared words (so they are ambiguous)
                ids[row, k] = rng.choice(SHARED_WORDS) if rng.random() < 0.15 \
                    else rng.choice(O_WORDS)
                k += 1
    return torch.from_numpy(ids), torch.from_numpy(tags), torch.from_numpy(lengths)


def data():
    """(train, held_out): each (ids, tags, lengths)."""
    return sentences(TRAIN, seed=0), sentences(HELD_OUT, seed=1)




def trimmed(ids, tags, lengths, index):
    """A batch cut to its longest sentence (as a collate function pads)."""
    width = int(lengths[index].max())
    return ids[index, :width], tags[index, :width], lengths[index]


def length_mask(lengths, width):
    return torch.arange(width)[None, :] < lengths[:, None]


class BiLstmCrf(nn.Module):
    def __init__(self, dim=24, hidden=24, bidirectional=True, vocab=VOCAB):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=bidirectional)
        self.emit = nn.Linear((2 if bidirectional else 1) * hidden, TAGS)
        self.start = nn.Parameter(torch.randn(TAGS) * 0.1)
        self.end = nn.Parameter(torch.randn(TAGS) * 0.1)
        self.transitions = nn.Parameter(torch.randn(TAGS, TAGS) * 0.1)

    def forward(self, ids, lengths):
        """Emissions (B, T, K); the LSTM reads each sentence up to its length only (packed)."""
        x = nn.utils.rnn.pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                              enforce_sorted=False)
        out, _ = self.lstm(x)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                  total_length=ids.shape[1])
        return self.emit(out)

    def gold_score(self, emissions, tags, mask):
        """The score of the tagged path, per sentence. ``mask`` (B, T) is taken to be a
        length mask (ones, then zeros): each transition is read from the tag at the previous
        position, the end score at position ``mask.sum() - 1``."""
        batch = torch.arange(len(tags))
        score = self.start[tags[:, 0]] + emissions[batch, 0, tags[:, 0]]
        for t in range(1, tags.shape[1]):
            step = self.transitions[tags[:, t - 1], tags[:, t]] + emissions[batch, t, tags[:, t]]
            score = score + step * mask[:, t]
        last = mask.sum(1) - 1
        return score + self.end[tags[batch, last]]

    def log_partition(self, emissions, mask):
        """The forward algorithm: log of the sum over every tag path, per sentence (masked
        steps carry the scores over)."""
        alpha = self.start + emissions[:, 0]                          # (B, K)
        for t in range(1, emissions.shape[1]):
            nxt = torch.logsumexp(alpha[:, :, None] + self.transitions[None], dim=1) \
                + emissions[:, t]
            alpha = torch.where(mask[:, t, None], nxt, alpha)
        return torch.logsumexp(alpha + self.end, dim=1)

    def log_likelihood(self, emissions, tags, mask):
        """log p(tags | sentence) per sentence (<= 0)."""
        return self.gold_score(emissions, tags, mask) - self.log_partition(emissions, mask)

    @torch.no_grad()
    def viterbi(self, emissions, lengths, chained=True):
        """Best tag path per sentence (a list of lists). ``chained``: each back-pointer is
        read at the tag the previous one chose."""
        score = self.start + emissions[:, 0]
        pointers = []
        for t in range(1, emissions.shape[1]):
            total = score[:, :, None] + self.transitions[None]           # (B, prev, next)
            best, pointer = total.max(dim=1)
            pointers.append(pointer)
            live = (t < lengths)[:, None]
            score = torch.where(live, best + emissions[:, t], score)
        paths = []
        for b, length in enumerate(lengths.tolist()):
            final = score[b] + self.end
            tag = int(final.argmax())
            last = tag
            path = [tag]
            for t in range(length - 1, 0, -1):
                if chained:
                    tag = int(pointers[t - 1][b, tag])
                else:              # the back-pointer read at the final tag every time
                    tag = int(pointers[t - 1][b, last])
                path.append(tag)
            paths.append(path[::-1])
        return paths


def spans(tags):
    """The (start, end, type) entities of one BIO tag list."""
    found, start, kind = set(), None, None
    for k, tag in enumerate(list(tags) + [0]):
        if tag in (0, 1, 3) or (tag in (2, 4) and kind != (tag - 1) // 2 * 2 + 1):
            if start is not None:
                found.add((start, k, kind))
                start, kind = None, None
            if tag in (1, 3):
                start, kind = k, tag
            elif tag in (2, 4):                        # an I- with no B-: its own entity
                start, kind = k, tag - 1
    return found


def entity_f1(predicted, gold):
    """Entity-level F1 of lists of tag lists."""
    hit = guessed = true = 0
    for p, g in zip(predicted, gold):
        ps, gs = spans(p), spans(g)
        hit += len(ps & gs)
        guessed += len(ps)
        true += len(gs)
    precision = hit / max(guessed, 1)
    recall = hit / max(true, 1)
    return 2 * precision * recall / max(precision + recall, 1e-12)


def gold_lists(tags, lengths):
    return [tags[b, :n].tolist() for b, n in enumerate(lengths.tolist())]


@torch.no_grad()
def held_out_f1(model, held, batch_size=100, chained=True):
    """Entity F1 of Viterbi paths on the held-out sentences, decoded in batches."""
    ids, tags, lengths = held
    was = model.training
    model.eval()
    predicted = []
    for start in range(0, len(ids), batch_size):
        index = torch.arange(start, min(start + batch_size, len(ids)))
        bi, _, bl = trimmed(ids, tags, lengths, index)
        predicted += model.viterbi(model(bi, bl), bl, chained)
    model.train(was)
    return entity_f1(predicted, gold_lists(tags, lengths))


def negative_mean(likelihood):
    """The loss of a CRF: the mean negative log-likelihood of the gold paths."""
    return -likelihood.mean()


def train_tagger(steps, emissions_of=None, loss_of=negative_mean, **watch):
    """Adam on a fresh ``BiLstmCrf`` under ``nd.watch``, 32 training sentences a step; the
    cases put their bug in ``emissions_of(model, words, lengths)`` (default: the model's
    emissions) or ``loss_of(log_likelihoods)``, or after training. Returns the closed
    monitor, the model and the held-out split."""
    torch.manual_seed(0)
    (ids, tags, lengths), held = data()
    model = BiLstmCrf()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            emissions = model(words, size) if emissions_of is None else \
                emissions_of(model, words, size)
            loss = loss_of(model.log_likelihood(emissions, gold,
                                                length_mask(size, words.shape[1])))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model, held
