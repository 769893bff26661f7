"""CLIP fine-tuned on images with class prompts ("a photo of a <class>", a few templates)
where the contrastive targets are the images' CLASS IDS instead of the positions of their
own prompts in the batch. The logits are a (batch x batch) matrix: column j is the j-th
text OF THE BATCH, not class j. With 10 classes and a batch of 64, the target of each image
is one of the batch's first 10 texts - whatever class those happen to have - so the model is
trained to match every image to a random few captions of other classes, and the same for
the texts. The loss does not error (the ids are valid column indices) and does fall a
little; zero-shot classification with the class prompts is at chance.

Reported: "CLIP Training Code" - https://github.com/openai/CLIP/issues/83 (in the thread a
user fine-tuning on 10 classes judged the ``arange(BATCH_SIZE)`` ground truth wrong - with
a batch of 2 it would always give classes 0 and 1, biasing the training "saying that all
the images are 0s and 1s" - and replaced it by each prompt's class id; the targets of
CLIP's loss index the batch's texts, so ``arange`` - each image's own text - is the right
one, as the released training code and the maintainer's advice in #3, "softmax cross
entropy with the correct pairing (i.e. the identity matrix) as the target", have it).
Here: 8x8 digits paired with a prompt of two tokens (one of 5 templates, the class name),
an image tower and a text tower, CLIP's symmetric loss, Adam, 64 pairs a step. Fix:
``torch.arange(len(batch))`` as the targets.

Measured (300 steps; zero-shot accuracy on the 500 held-out digits, each class's prompt
embedding the normalised mean over the 5 templates): 0.10 with the bug against 0.95 for the
fixed twin; seeds shifted by 1000: 0.13 against 0.94.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clip import (TRAIN, TwoTower, batches, data_generator, noisy,
                                        normalised_features)
from benchmarks.real_bugs._common import classification

TITLE = "CLIP Training Code"
LINK = "https://github.com/openai/CLIP/issues/83"
EXPECTED = ("CONTRASTIVE_TARGETS_NOT_BATCH_POSITIONS", "LOSS_AT_CHANCE",
            "LABELS_UNRELATED_TO_INPUTS")
STEPS = 300
TEMPLATES = 5
CLASSES = 10


def prompts(templates, labels):
    """Two-token prompts: a template id, then the class name's id."""
    return torch.stack([templates, TEMPLATES + labels], dim=1)


def zero_shot_accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        every = prompts(torch.arange(TEMPLATES).repeat(CLASSES),
                        torch.arange(CLASSES).repeat_interleave(TEMPLATES))
        _, text = normalised_features(model, images[:1], every)
        classes = F.normalize(text.reshape(CLASSES, TEMPLATES, -1).mean(1), dim=1)
        image = F.normalize(model.image(images), dim=1)
        accuracy = ((image @ classes.T).argmax(1) == labels).float().mean().item()
    model.train()
    return accuracy


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = data_generator()
    x, y = classification()
    images, labels = x[:TRAIN], y[:TRAIN]
    model = TwoTower(vocab=TEMPLATES + CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps, generator):
            optimizer.zero_grad()
            templates = torch.randint(0, TEMPLATES, (len(index),), generator=generator)
            image, text = normalised_features(model, noisy(images[index], generator),
                                              prompts(templates, labels[index]))
            logits = model.logit_scale.exp() * image @ text.T
            if fixed:
                targets = torch.arange(len(index))
            else:
                targets = labels[index]          # BUG: class ids, not batch positions
            loss = (F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets)) / 2
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_zero_shot_accuracy = zero_shot_accuracy(model, x[TRAIN:], y[TRAIN:])
    return mon
