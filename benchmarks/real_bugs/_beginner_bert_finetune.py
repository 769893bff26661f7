"""Pieces the beginner BERT fine-tuning reports (batch 243) share: synthetic tokenised text
laid out the way a first ``BertTokenizer(..., padding="max_length")`` tutorial lays it out
(``[CLS] words [SEP] [PAD] ...`` with an ``attention_mask`` of 1s on the real tokens), a tiny
``BertForSequenceClassification`` built from a ``BertConfig`` at random init (no download),
shuffled minibatches, the held-out accuracy, and SCORES, where each case leaves the
held-out metric of its last run (so the harm each docstring states can be measured again:
run the case, read SCORES[<case name>]).

Vocabulary: 0 [PAD], 1 [CLS], 2 [SEP], 3 [MASK], 4 [UNK], then ``TOPIC_WORDS`` words for
each of up to 10 topics, then neutral filler words. Everything is drawn with ``torch`` after
``torch.manual_seed`` (the benchmark's seed shift moves it).
"""
import torch

SCORES = {}
PAD, CLS, SEP, MASK, UNK = 0, 1, 2, 3, 4
FIRST_WORD = 5
TOPIC_WORDS = 6
TOPICS = 10
FILLER = 40
VOCAB = FIRST_WORD + TOPICS * TOPIC_WORDS + FILLER
MAX_LEN = 32


def topic_words(topic):
    start = FIRST_WORD + topic * TOPIC_WORDS
    return torch.arange(start, start + TOPIC_WORDS)


def documents(n, topics=2, min_words=4, max_words=MAX_LEN - 2, signal=0.3):
    """``n`` documents as lists of word ids and their labels.

    ``topics == 2``: a review of positive (topic 0) and negative (topic 1) words among
    filler; its label is the polarity holding more words (ties are redrawn), so the
    classifier has to weigh the whole text. ``topics > 2``: a news snippet whose topic words
    are all from its label's topic (a fraction ``signal`` of the words), the rest filler."""
    filler_start = FIRST_WORD + TOPICS * TOPIC_WORDS
    docs, labels = [], []
    for _ in range(n):
        length = int(torch.randint(min_words, max_words + 1, ()))
        while True:
            words = torch.randint(filler_start, VOCAB, (length,))
            marked = torch.rand(length) < signal
            if topics == 2:
                polarity = (torch.rand(length) < 0.5).long()
                pick = torch.randint(0, TOPIC_WORDS, (length,))
                words = torch.where(marked, FIRST_WORD + polarity * TOPIC_WORDS + pick, words)
                n_pos = int((marked & (polarity == 0)).sum())
                n_neg = int((marked & (polarity == 1)).sum())
                if n_pos != n_neg:
                    label = int(n_neg > n_pos)
                    break
            else:
                label = int(torch.randint(0, topics, ()))
                pick = torch.randint(0, TOPIC_WORDS, (length,))
                words = torch.where(marked, FIRST_WORD + label * TOPIC_WORDS + pick, words)
                if bool(marked.any()):
                    break
        docs.append(words.tolist())
        labels.append(label)
    return docs, torch.tensor(labels)


def encode(docs, max_length=MAX_LEN):
    """What ``tokenizer(texts, padding="max_length", truncation=True, max_length=...)``
    returns: ``input_ids`` ([CLS] words [SEP], end-padded with [PAD] = 0) and
    ``attention_mask`` (1 on the real tokens, 0 on the padding)."""
    ids = torch.full((len(docs), max_length), PAD, dtype=torch.int64)
    mask = torch.zeros((len(docs), max_length), dtype=torch.int64)
    for row, words in enumerate(docs):
        tokens = [CLS] + list(words)[:max_length - 2] + [SEP]
        ids[row, :len(tokens)] = torch.tensor(tokens)
        mask[row, :len(tokens)] = 1
    return ids, mask


def split(n_train=800, n_test=400, topics=2, **kw):
    """(ids, mask, labels) for training and held-out documents."""
    docs, labels = documents(n_train + n_test, topics=topics, **kw)
    ids, mask = encode(docs)
    return ((ids[:n_train], mask[:n_train], labels[:n_train]),
            (ids[n_train:], mask[n_train:], labels[n_train:]))


def tiny_bert(num_labels=2, hidden=32, layers=2, heads=2, **config):
    """A ``BertForSequenceClassification`` from a ``BertConfig`` at random init."""
    import transformers
    transformers.logging.set_verbosity_error()
    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=hidden,
                                  num_hidden_layers=layers, num_attention_heads=heads,
                                  intermediate_size=2 * hidden, max_position_embeddings=64,
                                  num_labels=num_labels, **config)
    return transformers.BertForSequenceClassification(cfg)


def minibatches(n, steps, batch_size=32):
    """Row indices of ``steps`` shuffled minibatches (epochs of a shuffling DataLoader)."""
    g = torch.Generator()
    g.manual_seed(int(torch.randint(10 ** 6, ())))
    order = torch.empty(0, dtype=torch.int64)
    for _ in range(steps):
        if len(order) < batch_size:
            order = torch.cat([order, torch.randperm(n, generator=g)])
        rows, order = order[:batch_size], order[batch_size:]
        yield rows


@torch.no_grad()
def accuracy(model, ids, mask, labels, **inputs):
    """Held-out accuracy of a sequence classifier called as ``model(input_ids=...,
    attention_mask=...)``, in eval mode (the mode is restored)."""
    was_training = model.training
    model.eval()
    logits = model(input_ids=ids, attention_mask=mask, **inputs).logits
    model.train(was_training)
    return float((logits.argmax(-1) == labels).float().mean())
