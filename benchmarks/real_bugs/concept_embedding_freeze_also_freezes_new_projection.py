"""A text classifier reads a BERT encoder's pooled tokens together with "concept"
embeddings (pretrained vectors of the entities a text mentions). The concept module holds
the pretrained table AND a new ``nn.Linear`` that projects the wide pretrained vectors down
to the width the head reads. The author freezes the pretrained table by freezing the whole
module (``for p in model.concept_emb.parameters(): p.requires_grad = False``), which also
freezes the new projection at its random initialisation: the concepts reach the head only
through a random 64 -> 8 map that mixes their few informative directions with the noise in
the others, so the concept branch adds little and accuracy stays at what the words alone
give.

Reported: "Fix a bug in freezing the concept embeddings" -
https://github.com/INK-USC/MHGRN/pull/14 (freezing the concept embedding module "could
addtionally freeze `self.cpt_transform = nn.Linear(concept_in_dim, concept_out_dim)`
... which is not desired"). Here a tiny ``BertModel`` (2 layers of width 32,
"pretrained" on a separate draw of the snippets, ``_encoder_head_rates288``) over
synthetic 10-topic snippets whose topic is the class only 30% of the time (the words are
weak evidence), plus three concepts per snippet from a fixed 64-wide table (a class code in
4 of the 64 dimensions under unit noise in all of them; concepts drawn from the snippet's
class 60% of the time); masked-mean token pooling and the projected mean concept vector
concatenated into a Linear head; AdamW 1e-3. Fix: freeze only the pretrained table
(``model.concept_emb.table.weight.requires_grad = False``) and train the projection.

Measured (held-out accuracy, 400 snippets, 300 steps): 0.338 with the bug, 0.543 fixed;
seeds + 1000: 0.338 vs 0.478 (0.278 vs 0.543 and 0.322 vs 0.477 before the shared
``pretrained_encoder`` was made to leave the same random state whether or not its weights were
cached; the verdict is the same).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import minibatches, split
from benchmarks.real_bugs._encoder_head_rates288 import (SCORES, masked_mean,
                                                         pretrained_encoder)

TITLE = "Fix a bug in freezing the concept embeddings"
LINK = "https://github.com/INK-USC/MHGRN/pull/14"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 300
TOPICS = 10
CONCEPTS_PER_TOPIC = 20
CONCEPT_DIM, CONCEPT_OUT = 64, 8
PER_TEXT = 3


def concept_table():
    """Pretrained concept vectors: concept c of topic t = 3 x a topic code in dims 0-3,
    plus unit noise in all 64 dims."""
    codes = torch.randn(TOPICS, 4)
    table = torch.randn(TOPICS * CONCEPTS_PER_TOPIC, CONCEPT_DIM)
    table[:, :4] += 3.0 * codes.repeat_interleave(CONCEPTS_PER_TOPIC, 0)
    return table


def label_from(text_topic):
    """The class: the text's own topic 30% of the time, else another drawn at random (the
    words are weak evidence; the concepts carry most of it)."""
    other = torch.randint(0, TOPICS, text_topic.shape)
    return torch.where(torch.rand(text_topic.shape) < 0.3, text_topic, other)


def concepts_for(labels):
    """PER_TEXT concept ids per text: from its topic with probability 0.6, else any."""
    n = len(labels)
    own = labels.unsqueeze(1) * CONCEPTS_PER_TOPIC + torch.randint(
        0, CONCEPTS_PER_TOPIC, (n, PER_TEXT))
    other = torch.randint(0, TOPICS * CONCEPTS_PER_TOPIC, (n, PER_TEXT))
    return torch.where(torch.rand(n, PER_TEXT) < 0.6, own, other)


class ConceptEmbedding(nn.Module):
    def __init__(self, vectors):
        super().__init__()
        self.table = nn.Embedding.from_pretrained(vectors, freeze=False)
        self.cpt_transform = nn.Linear(CONCEPT_DIM, CONCEPT_OUT)   # new, random init

    def forward(self, ids):
        return self.cpt_transform(self.table(ids).mean(1))


class TextWithConcepts(nn.Module):
    def __init__(self, vectors):
        super().__init__()
        self.bert = pretrained_encoder()
        self.concept_emb = ConceptEmbedding(vectors)
        self.head = nn.Linear(32 + CONCEPT_OUT, TOPICS)

    def forward(self, ids, mask, concepts):
        states = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
        return self.head(torch.cat([masked_mean(states, mask),
                                    self.concept_emb(concepts)], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, mask, text_topic), (test_ids, test_mask, test_topic) = split(topics=TOPICS)
    labels, test_labels = label_from(text_topic), label_from(test_topic)
    vectors = concept_table()
    cpts, test_cpts = concepts_for(labels), concepts_for(test_labels)
    model = TextWithConcepts(vectors)      # encoder "pretrained" (seed 1); new layers after it
    if fixed:
        model.concept_emb.table.weight.requires_grad = False
    else:
        for p in model.concept_emb.parameters():      # BUG: freezes cpt_transform too
            p.requires_grad = False
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            loss = loss_fn(model(ids[rows], mask[rows], cpts[rows]), labels[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        pred = model(test_ids, test_mask, test_cpts).argmax(-1)
    model.train()
    mon.held_out_accuracy = float((pred == test_labels).float().mean())
    SCORES[__name__.rsplit(".", 1)[-1]] = mon.held_out_accuracy
    return mon
