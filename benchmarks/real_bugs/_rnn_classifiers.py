"""Pieces the batch-251 cases (first-tutorial RNN name and sequence classifiers) share: a
generator of made-up surnames from six "languages of origin", as character ids (1..26, id 0
is padding), with their language as the label; padding to a batch (on the right or on the
left); batches drawn at random; and the held-out accuracy.

Each language has its own stock of syllables (half of them shared with every other
language) and its own endings, which most of its names carry - so a name's language is
read mostly from how it ends, partly from its body (as in the PyTorch tutorial's
"Classifying Names with a Character-Level RNN": -ov Russian, -ski Polish, -ez Spanish...).
"""
import numpy as np
import torch

LETTERS = "abcdefghijklmnopqrstuvwxyz"
VOCAB = len(LETTERS) + 1                 # id 0 pads
SHARED = ("ma", "li", "no", "ta", "ri", "se", "lo", "ve", "ka", "du", "an", "el")
LANGUAGES = (
    (("bor", "vla", "dim", "ser", "gei"), ("ov", "ev", "in", "sky")),
    (("prz", "kow", "wal", "szc", "jan"), ("ski", "czyk", "wicz", "ak")),
    (("gar", "fer", "rod", "her", "jim"), ("ez", "es", "ado", "illo")),
    (("smi", "wil", "joh", "bro", "tho"), ("son", "ton", "ley", "field")),
    (("sch", "mul", "wag", "bec", "hof"), ("mann", "er", "berg", "stein")),
    (("ros", "bia", "fer", "col", "gio"), ("ini", "elli", "etti", "one")),
)
CLASSES = len(LANGUAGES)
ENDING_RATE = 0.75                       # the rest end in a syllable of another language


def _name(language, rng, ending_rate=ENDING_RATE):
    own, endings = LANGUAGES[language]
    parts = []
    for _ in range(rng.integers(1, 4)):
        parts.append(own[rng.integers(len(own))] if rng.random() < 0.5
                     else SHARED[rng.integers(len(SHARED))])
    if rng.random() < ending_rate:
        parts.append(endings[rng.integers(len(endings))])
    else:
        other = LANGUAGES[rng.integers(CLASSES)][1]
        parts.append(other[rng.integers(len(other))])
    return "".join(parts)


def surnames(count, seed, classes=CLASSES, ending_rate=ENDING_RATE):
    """(list of 1-D id tensors, labels): ``count`` names, languages drawn uniformly from the
    first ``classes``; ``ending_rate`` of them end in their own language's ending."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, count)
    names = [torch.tensor([LETTERS.index(c) + 1 for c in _name(int(k), rng, ending_rate)])
             for k in labels]
    return names, torch.from_numpy(labels).long()


def pad(names, left=False, length=None):
    """(ids (B, T), lengths (B,)): the names padded with id 0 to ``length`` (default: the
    longest), after the name (``left=False``) or before it."""
    lengths = torch.tensor([len(n) for n in names])
    length = int(lengths.max()) if length is None else length
    ids = torch.zeros(len(names), length, dtype=torch.int64)
    for row, name in enumerate(names):
        name = name[:length]
        if left:
            ids[row, length - len(name):] = name
        else:
            ids[row, :len(name)] = name
    return ids, lengths.clamp(max=length)


def random_batches(count, steps, batch_size=32):
    """``steps`` lists of row indices drawn at random (from the seeded global generator)."""
    for _ in range(steps):
        yield torch.randint(0, count, (batch_size,)).tolist()


@torch.no_grad()
def accuracy(predict, names, labels, batch_size=100):
    """Held-out accuracy of ``predict(list of names) -> logits``, in batches of
    ``batch_size`` consecutive names."""
    correct = 0
    for start in range(0, len(names), batch_size):
        logits = predict(names[start:start + batch_size])
        correct += (logits.argmax(1) == labels[start:start + batch_size]).sum().item()
    return correct / len(names)
