"""Small two-speaker dialogues, tokenised by hand and padded by a collate function, for
the batch-315 cases (tokenisation and collation slips in hand-written loops)."""
import numpy as np
import torch
from torch import nn

PAD, SP1, SP2 = 0, 1, 2          # padding and the two speaker tokens
KEYS = (3, 4)                    # two request words; the rest are filler
FILLER = range(5, 60)
VOCAB = 60
CLASSES = 4                      # which request word, said by which speaker


def dialogues(n, rng):
    """``n`` dialogues as (input ids, speaker-token ids, label) lists: [SP1] turn 1 [SP2]
    turn 2, one request word in one of the turns; label = 2 * word + speaker."""
    out = []
    for _ in range(n):
        turns = [list(rng.choice(FILLER, size=rng.integers(3, 9))) for _ in range(2)]
        word, speaker = int(rng.integers(2)), int(rng.integers(2))
        turn = turns[speaker]
        turn.insert(int(rng.integers(len(turn) + 1)), KEYS[word])
        ids = [SP1] + turns[0] + [SP2] + turns[1]
        types = [SP1] * (len(turns[0]) + 1) + [SP2] * (len(turns[1]) + 1)
        out.append(([int(i) for i in ids], types, 2 * word + speaker))
    return out


def pad_collate(batch, fixed=True):
    """Right-pads a list of dialogues: ids, token types, labels. ``fixed=False`` builds the
    token types from each sample's input ids (the slip of the reported collate)."""
    ids = nn.utils.rnn.pad_sequence([torch.tensor(b[0]) for b in batch], batch_first=True,
                                    padding_value=PAD)
    source = 1 if fixed else 0
    types = nn.utils.rnn.pad_sequence([torch.tensor(b[source]) for b in batch],
                                      batch_first=True, padding_value=PAD)
    labels = torch.tensor([b[2] for b in batch])
    return ids, types, labels


class DialogueClassifier(nn.Module):
    """GPT-2 style inputs: the token types are looked up in the word embedding table and
    added to the words; a per-token MLP, a mean over real tokens, a linear head."""
    def __init__(self, dim=32):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, CLASSES)

    def forward(self, ids, types):
        h = self.mlp(self.wte(ids) + self.wte(types))
        real = (ids != PAD).unsqueeze(-1).float()
        return self.head((h * real).sum(1) / real.sum(1))


def accuracy(model, data, fixed=True):
    model.eval()
    with torch.no_grad():
        ids, types, labels = pad_collate(data, fixed)
        acc = (model(ids, types).argmax(-1) == labels).float().mean().item()
    model.train()
    return acc


def rng(seed):
    return np.random.default_rng(seed)


TOPIC_WORDS = 4                  # topics 0..3 own ids 1 + 4 * topic + (0..3)
TOPIC_VOCAB = 80                 # id 0 pads; 1..16 topic words; 17..79 filler


def topic_texts(n, rng, max_length=32):
    """``n`` texts of 8-32 ids, each holding three words of its topic among filler,
    padded with 0 to ``max_length``; returns (list of id lists, list of labels)."""
    texts, labels = [], []
    for _ in range(n):
        topic = int(rng.integers(4))
        length = int(rng.integers(8, max_length + 1))
        ids = list(rng.integers(17, TOPIC_VOCAB, size=length))
        for spot in rng.choice(length, size=3, replace=False):
            ids[spot] = 1 + TOPIC_WORDS * topic + int(rng.integers(TOPIC_WORDS))
        texts.append([int(i) for i in ids] + [0] * (max_length - length))
        labels.append(topic)
    return texts, labels


class MeanOfWords(nn.Module):
    """Embedding, a mean over the non-padding ids, a hidden layer, four topics."""
    def __init__(self, dim=32):
        super().__init__()
        self.emb = nn.Embedding(TOPIC_VOCAB, dim)
        self.out = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, ids):
        real = (ids != 0).unsqueeze(-1).float()
        return self.out((self.emb(ids) * real).sum(1) / real.sum(1).clamp(min=1))


EOS, USER, SYS = 0, 1, 2         # the end-of-text id doubles as the padding id
AMBIGUOUS, CLEAR = range(3, 7), range(7, 11)
CHAT_VOCAB = 70                  # 11..69 filler


def chats(n, rng):
    """``n`` shop dialogues ([USER] turn [SYS] turn ... [USER] last turn) with 0-2 earlier
    turn pairs; label 1 when the last user turn holds an ambiguous-reference word, 0 when
    it holds a clear one (earlier turns hold cue words of either kind, at random)."""
    out = []
    for _ in range(n):
        ids = []
        for _ in range(int(rng.integers(0, 3))):
            for speaker in (USER, SYS):
                turn = list(rng.integers(11, CHAT_VOCAB, size=rng.integers(3, 9)))
                if rng.random() < 0.5:
                    turn[int(rng.integers(len(turn)))] = int(rng.integers(3, 11))
                ids += [speaker] + turn
        label = int(rng.integers(2))
        last = list(rng.integers(11, CHAT_VOCAB, size=rng.integers(3, 9)))
        cues = AMBIGUOUS if label else CLEAR
        last[int(rng.integers(len(last)))] = int(rng.choice(cues))
        out.append(([int(i) for i in ids + [USER] + last], label))
    return out


def pad_batch(rows, side):
    """Pads a list of id lists with EOS to the longest, on ``side``; returns ids and the
    attention mask, as a tokenizer with that padding side does."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), EOS, dtype=torch.int64)
    mask = torch.zeros((len(rows), width), dtype=torch.int64)
    for i, r in enumerate(rows):
        if side == "left":
            ids[i, width - len(r):], mask[i, width - len(r):] = torch.tensor(r), 1
        else:
            ids[i, :len(r)], mask[i, :len(r)] = torch.tensor(r), 1
    return ids, mask


class CausalClassifier(nn.Module):
    """A small decoder-only stand-in (embedding, one causal GRU layer) with a sequence
    classification head read, as GPT2ForSequenceClassification did, at the position
    ``(ids != pad_id).sum(-1) - 1``."""
    def __init__(self, dim=32):
        super().__init__()
        self.emb = nn.Embedding(CHAT_VOCAB, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.score = nn.Linear(dim, 2)

    def forward(self, ids, mask):
        h, _ = self.rnn(self.emb(ids) * mask.unsqueeze(-1))
        logits = self.score(h)
        last = (ids != EOS).sum(-1) - 1
        return logits[torch.arange(len(ids)), last]
