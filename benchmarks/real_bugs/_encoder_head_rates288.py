"""Pieces the batch-288 cases (beginner fine-tuning of small pretrained-style text encoders
in plain PyTorch) share: a tiny ``BertModel`` from a ``BertConfig`` at random init (no
download) used as the encoder under a hand-written head, on the synthetic tokenised text of
``_beginner_bert_finetune`` (``[CLS] words [SEP] [PAD] ...`` with its ``attention_mask``).
"""
import torch

from benchmarks.real_bugs._beginner_bert_finetune import VOCAB

SCORES = {}


def tiny_encoder(hidden=32, layers=2, heads=2):
    """A ``BertModel`` (no task head) from a ``BertConfig`` at random init."""
    import transformers
    transformers.logging.set_verbosity_error()
    cfg = transformers.BertConfig(vocab_size=VOCAB, hidden_size=hidden,
                                  num_hidden_layers=layers, num_attention_heads=heads,
                                  intermediate_size=2 * hidden, max_position_embeddings=64)
    return transformers.BertModel(cfg, add_pooling_layer=False)


def masked_mean(states, mask):
    """Mean of the token states over the real tokens of each text."""
    m = mask.unsqueeze(-1).to(states.dtype)
    return (states * m).sum(1) / m.sum(1).clamp(min=1.0)


@torch.no_grad()
def accuracy(model, ids, mask, labels):
    """Held-out accuracy of ``model(ids, mask) -> logits`` in eval mode (mode restored)."""
    was_training = model.training
    model.eval()
    logits = model(ids, mask)
    model.train(was_training)
    return float((logits.argmax(-1) == labels).float().mean())


_PRETRAINED = {}


def pretrained_encoder(steps=150, seed=1, topics=10):
    """A tiny encoder "pretrained" the way a downloaded checkpoint would be: ``steps`` AdamW
    steps (lr 1e-3) on a separate draw of the synthetic 10-topic snippets, read by a masked
    mean and a throwaway Linear head. Returned as a fresh copy (cached per seed)."""
    import copy

    from benchmarks.real_bugs._beginner_bert_finetune import minibatches, split
    torch.manual_seed(seed)
    key = (torch.initial_seed(), steps, topics)
    # the random state after this call must not depend on whether the weights were cached:
    # what the caller draws next (a new head's initial weights) would otherwise differ
    # between a first call and a later one in the same process
    after = torch.get_rng_state()
    if key not in _PRETRAINED:
        (ids, mask, labels), _ = split(n_train=800, n_test=0, topics=topics)
        body = tiny_encoder()
        head = torch.nn.Linear(32, topics)
        params = list(body.parameters()) + list(head.parameters())
        optimizer = torch.optim.AdamW(params, lr=1e-3)
        for rows in minibatches(len(ids), steps):
            states = body(input_ids=ids[rows], attention_mask=mask[rows]).last_hidden_state
            loss = torch.nn.functional.cross_entropy(head(masked_mean(states, mask[rows])),
                                                     labels[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        _PRETRAINED[key] = body.state_dict()
    torch.set_rng_state(after)
    body = tiny_encoder()
    body.load_state_dict(copy.deepcopy(_PRETRAINED[key]))
    return body
