"""Shared pieces of batch 348 (abstractive summarisation models written by hand): a small
"article -> summary" task and a pointer-generator (See et al., 2017) written from scratch.

The task: an article is 5 to 14 words: filler words, and 2 to 4 content words in order.
A content word is either a common word (ids in the fixed vocabulary), which the summary
writes as its paraphrase (another vocabulary id: the decoder must GENERATE it), or a rare
name, out of the fixed vocabulary (the encoder reads it as UNK), which the summary must
COPY from the article. The summary is the content words in order, then EOS. Rare names get
extended-vocabulary ids per article: VOCAB + k for the article's k-th distinct name.

The model: an embedding, a bidirectional LSTM encoder, a "reduce state" layer turning the
encoder's final forward and backward states into the decoder's first state, an LSTM-cell
decoder fed the previous summary word and the previous context (input feeding), additive
attention over the article (optionally with a coverage vector), and the pointer-generator
mixture p_gen * P_vocab + (1 - p_gen) * (attention scattered onto the article's extended
ids). Each piece is a method, so a case overrides the one its report got wrong.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

PAD, SOS, EOS, UNK = 0, 1, 2, 3
FILLER = list(range(4, 14))              # 10 filler words
COMMON = list(range(14, 24))             # 10 common content words ...
PARAPHRASE = {w: w + 10 for w in COMMON}  # ... each written in the summary as its paraphrase
VOCAB = 34
RARE_NAMES = 300                          # names that never enter the fixed vocabulary
MAX_SUMMARY = 5                           # 4 content words + EOS


def articles(n, rng, rare_share=0.35):
    """n examples: (article word strings as ints, with names as -1 - name index)."""
    out = []
    for _ in range(n):
        length = int(rng.integers(5, 15))
        k = int(rng.integers(2, 5))
        spots = sorted(rng.permutation(length)[:k].tolist())
        words = (FILLER[0] + rng.integers(0, len(FILLER), length)).tolist()
        rare = rng.random(k) < rare_share
        names = rng.integers(0, RARE_NAMES, k)
        common = COMMON[0] + rng.integers(0, len(COMMON), k)
        for j, s in enumerate(spots):
            words[s] = -1 - int(names[j]) if rare[j] else int(common[j])
        out.append((words, spots))
    return out


def encode_example(words, spots):
    """(article ids with names as UNK, article extended ids, summary extended ids + EOS)."""
    names = {}
    ext = []
    for w in words:
        if w < 0:
            names.setdefault(w, VOCAB + len(names))
            ext.append(names[w])
        else:
            ext.append(w)
    ids = [w if w >= 0 else UNK for w in words]
    summary = []
    for s in spots:
        w = words[s]
        summary.append(names[w] if w < 0 else PARAPHRASE[w])
    return ids, ext, summary + [EOS], len(names)


def data(seed=348, train=3000, held_out=500):
    rng = np.random.default_rng(seed)
    return ([encode_example(*a) for a in articles(train, rng)],
            [encode_example(*a) for a in articles(held_out, rng)])


def pad(seqs, value=PAD):
    longest = max(len(s) for s in seqs)
    out = torch.full((len(seqs), longest), value, dtype=torch.int64)
    for row, s in enumerate(seqs):
        out[row, :len(s)] = torch.tensor(s)
    return out


def batch(examples, index):
    """Tensors of a batch: src (B, S) fixed-vocabulary ids, src_ext (B, S) extended ids,
    src_mask (B, S) True on real words, lengths (B,), dec_in (B, T) SOS + summary[:-1]
    (names as UNK), target (B, T) extended ids, tgt_mask (B, T), max_oov (int)."""
    chosen = [examples[i] for i in index.tolist()]
    src = pad([c[0] for c in chosen])
    src_ext = pad([c[1] for c in chosen])
    lengths = torch.tensor([len(c[0]) for c in chosen])
    src_mask = torch.arange(src.shape[1])[None] < lengths[:, None]
    target = pad([c[2] for c in chosen])
    tgt_mask = torch.arange(target.shape[1])[None] < torch.tensor(
        [len(c[2]) for c in chosen])[:, None]
    dec_in = torch.cat([torch.full((len(chosen), 1), SOS), target[:, :-1]], dim=1)
    dec_in = dec_in.masked_fill(dec_in >= VOCAB, UNK)
    max_oov = max(c[3] for c in chosen)
    return dict(src=src, src_ext=src_ext, src_mask=src_mask, lengths=lengths,
                dec_in=dec_in, target=target, tgt_mask=tgt_mask, max_oov=max_oov)


class PointerGenerator(nn.Module):
    def __init__(self, emb=24, hidden=48, coverage=False):
        super().__init__()
        self.hidden, self.use_coverage = hidden, coverage
        self.embed = nn.Embedding(VOCAB, emb, padding_idx=PAD)
        self.encoder = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.reduce_h = nn.Linear(2 * hidden, hidden)
        self.reduce_c = nn.Linear(2 * hidden, hidden)
        self.w_h = nn.Linear(2 * hidden, hidden, bias=False)
        self.w_s = nn.Linear(hidden, hidden)
        if coverage:
            self.w_c = nn.Linear(1, hidden, bias=False)
        self.v = nn.Linear(hidden, 1, bias=False)
        self.cell = nn.LSTMCell(emb + 2 * hidden, hidden)
        self.out = nn.Linear(3 * hidden, VOCAB)
        self.p_gen = nn.Linear(2 * hidden + 2 * hidden + emb, 1)

    # --- the pieces a report can get wrong
    def reduce_state(self, h, c):
        """(2, B, H) final states of the two directions -> (B, H) decoder state."""
        h = h.transpose(0, 1).reshape(-1, 2 * self.hidden)
        c = c.transpose(0, 1).reshape(-1, 2 * self.hidden)
        return F.relu(self.reduce_h(h)), F.relu(self.reduce_c(c))

    def attend(self, enc_feat, enc, state_h, src_mask, coverage):
        """Additive attention over the article: (context (B, 2H), attention (B, S))."""
        feat = enc_feat + self.w_s(state_h)[:, None]
        if coverage is not None:
            feat = feat + self.w_c(coverage[..., None])
        scores = self.v(torch.tanh(feat)).squeeze(-1)
        scores = scores.masked_fill(~src_mask, float("-inf"))
        attn = F.softmax(scores, dim=1)
        return torch.bmm(attn[:, None], enc).squeeze(1), attn

    def final_distribution(self, vocab_dist, attn, p_gen, src_ext, max_oov):
        """p_gen * P_vocab over the extended vocabulary, plus the copy mass on each word."""
        extended = torch.cat([p_gen * vocab_dist,
                              vocab_dist.new_zeros(len(vocab_dist), max_oov)], dim=1)
        return extended.scatter_add(1, src_ext, (1 - p_gen) * attn)

    def step_coverage_loss(self, attn, coverage):
        """Coverage loss of one step: sum_i min(a_i^t, c_i^t), c^t the attention of the
        steps BEFORE t."""
        return torch.minimum(attn, coverage).sum(1)

    # --- the model
    def encode(self, src, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(src), lengths,
                                                   batch_first=True, enforce_sorted=False)
        out, (h, c) = self.encoder(packed)
        enc, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                  total_length=src.shape[1])
        return enc, self.reduce_state(h, c)

    def decode_step(self, word, state, context, enc, enc_feat, b, coverage):
        x = self.embed(word)
        h, c = self.cell(torch.cat([x, context], 1), state)
        context, attn = self.attend(enc_feat, enc, h, b["src_mask"], coverage)
        vocab_dist = F.softmax(self.out(torch.cat([h, context], 1)), dim=1)
        p_gen = torch.sigmoid(self.p_gen(torch.cat([context, h, c, x], 1)))
        final = self.final_distribution(vocab_dist, attn, p_gen, b["src_ext"], b["max_oov"])
        return final, (h, c), context, attn

    def forward(self, b):
        """Teacher-forced: (final distributions (B, T, V + oov), per-step coverage losses
        (B, T) or None)."""
        enc, state = self.encode(b["src"], b["lengths"])
        enc_feat = self.w_h(enc)
        context = enc.new_zeros(len(enc), 2 * self.hidden)
        coverage = enc.new_zeros(enc.shape[:2]) if self.use_coverage else None
        finals, cov_losses = [], []
        for t in range(b["dec_in"].shape[1]):
            final, state, context, attn = self.decode_step(b["dec_in"][:, t], state, context,
                                                           enc, enc_feat, b, coverage)
            finals.append(final)
            if coverage is not None:
                coverage, cov_loss = self.update_coverage(attn, coverage)
                cov_losses.append(cov_loss)
        return (torch.stack(finals, 1),
                torch.stack(cov_losses, 1) if cov_losses else None)

    def update_coverage(self, attn, coverage):
        """(next coverage, this step's coverage loss), the loss from the coverage before
        this step's attention is added."""
        loss = self.step_coverage_loss(attn, coverage)
        return coverage + attn, loss

    @torch.no_grad()
    def greedy(self, b, steps=MAX_SUMMARY):
        enc, state = self.encode(b["src"], b["lengths"])
        enc_feat = self.w_h(enc)
        context = enc.new_zeros(len(enc), 2 * self.hidden)
        coverage = enc.new_zeros(enc.shape[:2]) if self.use_coverage else None
        word = torch.full((len(enc),), SOS)
        out = []
        for _ in range(steps):
            final, state, context, attn = self.decode_step(word, state, context, enc,
                                                           enc_feat, b, coverage)
            if coverage is not None:
                coverage = coverage + attn
            chosen = final.argmax(1)
            out.append(chosen)
            word = chosen.masked_fill(chosen >= VOCAB, UNK)
        return torch.stack(out, 1)


def summary_nll(final, target, tgt_mask):
    """Negative log-likelihood of each gold word, averaged over each summary's own length,
    then over the batch (the pointer-generator's masked average)."""
    gold = final.gather(2, target[..., None]).squeeze(-1)
    nll = -torch.log(gold + 1e-12) * tgt_mask
    return (nll.sum(1) / tgt_mask.sum(1)).mean()


def exact_match(model, held):
    """Share of held-out summaries decoded greedily word for word, EOS included."""
    model.eval()
    b = batch(held, torch.arange(len(held)))
    pred = model.greedy(b)
    right = 0
    for row, example in enumerate(held):
        gold = example[2]
        right += int(pred[row, :len(gold)].tolist() == gold)
    model.train()
    return right / len(held)
