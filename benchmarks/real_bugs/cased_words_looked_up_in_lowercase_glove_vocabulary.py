"""The word vectors come with their own vocabulary, all lower case (as GloVe 6B's and
wikipedia2vec's are), and the model looks each word of its sentences up in it as written:
every word with a capital letter misses the vocabulary and reads the one unknown-word
vector. Most of the words - the topic words among them - reach the frozen embedding as
<unk>, so a sentence whose topic words are all capitalised carries no topic at all.

Reported: "Case sensitivity issue with embeddings used for ED model 2019" -
https://github.com/informagi/REL/issues/73 (the embeddings "are only for lower case words",
so "all words with at least a single upper case letter default to the None or unknown
embedding"; the maintainers: "you're correct on the casing issue"). Here the topic corpus
of ``_hand_loaded_vectors`` written headline style (70% of the words capitalised), looked
up in the vector file's lower-case vocabulary (0 padding, 1 <unk> with a random vector as in
the report), the table frozen (``from_pretrained``), mean-pooled into a small MLP head,
Adam, 200 steps of 32 sentences.

Fix: lower-case each word before the lookup, as the vectors' vocabulary was built.

Measured (held-out accuracy, 1000 sentences): 0.636 with the bug, 0.998 fixed; seeds + 1000:
0.703 vs 1.000.
"""
import numpy as np
import torch

from benchmarks.real_bugs._hand_loaded_vectors import (DIM, STEPS, BagOfVectors, corpus,
                                                       train)

TITLE = "Case sensitivity issue with embeddings used for ED model 2019"
LINK = "https://github.com/informagi/REL/issues/73"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
PAD, UNK = 0, 1
CAPITALISED = 0.7


def written(texts, rng):
    """The sentences as they appear in the data: most words capitalised (headline style)."""
    return [[w.title() if rng.random() < CAPITALISED else w for w in text] for text in texts]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train_texts, train_labels, held_texts, held_labels, vector_file = corpus(rng)
    train_texts, held_texts = written(train_texts, rng), written(held_texts, rng)
    vocabulary = {word: i + 2 for i, (word, _) in enumerate(vector_file)}
    table = torch.zeros(len(vocabulary) + 2, DIM)
    table[UNK] = torch.randn(DIM)
    for word, vector in vector_file:
        table[vocabulary[word]] = torch.from_numpy(vector)

    def encode(texts):
        if fixed:
            return torch.tensor([[vocabulary.get(w.lower(), UNK) for w in t] for t in texts])
        # BUG: "Love" is looked up as written in the lower-case vocabulary and misses
        return torch.tensor([[vocabulary.get(w, UNK) for w in t] for t in texts])

    ids, held_ids = encode(train_texts), encode(held_texts)
    lengths = torch.full((len(ids),), ids.shape[1])
    held = held_ids, torch.full((len(held_ids),), held_ids.shape[1]), held_labels
    model = BagOfVectors(torch.nn.Embedding.from_pretrained(table, freeze=True,
                                                            padding_idx=PAD))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train(model, optimizer, ids, lengths, train_labels, held, steps, rng, **watch)
