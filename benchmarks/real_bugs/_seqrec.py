"""Sequential recommendation pieces the batch-129 cases share: users' item histories drawn
from a hidden chain, a small SASRec-style self-attentive model and a
next-item hit rate on held-out users.

Items are ids 1..ITEMS; 0 pads (histories are left-padded to LENGTH). Each user's next item
follows the one before it through a fixed random table with probability FOLLOW, else it is
any item: a model that reads the last item can predict most of the next ones.

Sessions (the GRU4Rec cases): sessions of 3-8 items whose first item sets one of MOODS
'moods'; each next item is table[mood, last item] with probability 0.8, else any item, so a
model must remember the session's start as well as read its last item. They are streamed
as GRU4Rec's session-parallel mini-batches.
"""
import numpy as np
import torch
from torch import nn

ITEMS = 60
LENGTH = 20            # window a model reads (the history without its held-out last item)
FOLLOW = 0.5
TRAIN_USERS, TEST_USERS = 1000, 400
DIM = 32


def histories(seed=0):
    """(train, test) LongTensors (users, LENGTH + 1), left-padded with 0; the last column
    is each user's last item (the held-out target for the test users)."""
    rng = np.random.default_rng(seed)
    table = rng.integers(1, ITEMS + 1, size=ITEMS + 1)

    def draw(users):
        rows = np.zeros((users, LENGTH + 1), dtype=np.int64)
        for row in rows:
            length = int(rng.integers(6, LENGTH + 2))
            seq = [int(rng.integers(1, ITEMS + 1))]
            while len(seq) < length:
                seq.append(int(table[seq[-1]]) if rng.random() < FOLLOW
                           else int(rng.integers(1, ITEMS + 1)))
            row[-length:] = seq
        return torch.from_numpy(rows)
    return draw(TRAIN_USERS), draw(TEST_USERS)


def user_batches(users, steps, batch=64, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield users[torch.from_numpy(rng.integers(0, len(users), batch))]


class SelfAttentive(nn.Module):
    """SASRec-like: item and position embeddings, two transformer layers, scores against
    the item table. ``causal``: each position reads only itself and earlier ones;
    ``padding_mask``: padded positions are never attended to."""

    def __init__(self, vocab=ITEMS + 1, causal=True, padding_mask=True, padding_idx=0):
        super().__init__()
        self.causal, self.padding_mask = causal, padding_mask
        self.items = nn.Embedding(vocab, DIM, padding_idx=padding_idx)
        self.positions = nn.Embedding(LENGTH, DIM)
        layer = nn.TransformerEncoderLayer(DIM, 2, 64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(DIM)

    def forward(self, seq):
        length = seq.shape[1]
        x = self.items(seq) + self.positions(torch.arange(length))
        blocked = torch.zeros(len(seq), length, length, dtype=torch.bool)
        if self.causal:
            blocked |= torch.triu(torch.ones(length, length, dtype=torch.bool), 1)
        if self.padding_mask:          # no position reads a padded one (but itself)
            blocked |= (seq == 0)[:, None, :] & ~torch.eye(length, dtype=torch.bool)
        heads = self.encoder.layers[0].self_attn.num_heads
        hidden = self.encoder(x, mask=blocked.repeat_interleave(heads, 0))
        return self.norm(hidden) @ self.items.weight.T          # (B, T, vocab)


def next_item_loss(scores, targets):
    """Cross-entropy at every position whose target is an item (0: padding, skipped)."""
    return nn.functional.cross_entropy(scores.transpose(1, 2), targets, ignore_index=0)


def hit_rate(scores_last, targets, k=10):
    """Share of held-out users whose last item is among the k best-scored items (padding
    id 0 never counts as a recommendation)."""
    scores_last = scores_last.clone()
    scores_last[:, 0] = -float("inf")
    top = scores_last[:, 1:ITEMS + 1].topk(k, dim=1).indices + 1
    return round((top == targets[:, None]).any(1).float().mean().item(), 3)


# GRU4Rec-style sessions
LANES, HIDDEN, MOODS = 64, 48, 8
TRAIN_SESSIONS, TEST_SESSIONS = 3000, 400


def sessions(count, rng, table):
    """Sessions of 3-8 items: the first item sets one of MOODS moods; each next item is
    table[mood, last item] with probability 0.8, else any item."""
    out = []
    for _ in range(count):
        first = int(rng.integers(1, ITEMS + 1))
        mood, seq, length = first % MOODS, [first], int(rng.integers(3, 9))
        while len(seq) < length:
            seq.append(int(table[mood, seq[-1]]) if rng.random() < 0.8
                       else int(rng.integers(1, ITEMS + 1)))
        out.append(seq)
    return out


def session_parallel(all_sessions, rng, shuffle=True):
    """(items, next items, starts) per step: LANES lanes, each taking the next session
    when its current one ends (GRU4Rec's session-parallel mini-batches)."""
    order = rng.permutation(len(all_sessions)) if shuffle else np.arange(len(all_sessions))
    queue = iter(order.tolist())
    lanes = [[all_sessions[next(queue)], 0] for _ in range(LANES)]
    while True:
        items, targets, starts = [], [], []
        for lane in lanes:
            if lane[1] == len(lane[0]) - 1:
                index = next(queue, None)
                if index is None:
                    return
                lane[0], lane[1] = all_sessions[index], 0
            items.append(lane[0][lane[1]])
            targets.append(lane[0][lane[1] + 1])
            starts.append(lane[1] == 0)
            lane[1] += 1
        yield torch.tensor(items), torch.tensor(targets), torch.tensor(starts)


def hit_at_1(model, stream):
    """Share of next items ranked first (with eight moods, recall@10 would cover them all)."""
    hits, total, hidden = 0, 0, torch.zeros(1, LANES, HIDDEN)
    with torch.no_grad():
        for item, target, start in stream:
            scores, hidden = model(item, hidden * (~start)[None, :, None])
            scores[:, 0] = -float("inf")
            hits += (scores.argmax(1) == target).sum().item()
            total += len(target)
    return round(hits / total, 3)


def session_data(rng):
    """(train sessions, test sessions) from one hidden mood table."""
    table = rng.integers(1, ITEMS + 1, size=(MOODS, ITEMS + 1))
    return sessions(TRAIN_SESSIONS, rng, table), sessions(TEST_SESSIONS, rng, table)
