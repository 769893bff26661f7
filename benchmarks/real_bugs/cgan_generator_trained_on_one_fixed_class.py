"""A conditional GAN whose generator step feeds the same class to the generator on every
step: the discriminator step judges real digits with their labels and fakes drawn for those
labels, but the generator's own update always asks for one digit (a 6), so only that one
class's one-hot input is ever trained to produce its digit; asked for any other class, the
generator draws whatever that input happens to give. The generator loss falls and
oscillates like any GAN's; nothing errors.

Reported: "Bug in training code and pre-trained model" -
https://github.com/kmualim/CGAN-Pytorch/issues/1 (the reporter: the training code holds
the condition at 6 for every epoch, so the model only learns to generate 6; the released
model draws one digit whatever class it is given). Here: a fully connected
cGAN on the 8x8 digits, the class concatenated as a one-hot vector to the noise and to the
discriminator's input. Fix: draw the generator step's classes at random over all ten.

Measured (1,500 Adam steps, batch 64, seed 0; a digit classifier trained on real digits,
0.92 held out, judges 100 generated images per requested class): the judged class is the
requested one for 0.10 of the bug's images (0.87 for class 6, at most 0.06 for every other
class) and for 0.95 of the fixed twin's (0.79 to 1.00 per class); seeds shifted by 1000: 0.10
against 0.94. (Measured with the reports' cross-entropy losses; the case first used
least-squares ones, which gave 0.10 against 0.93.)
"""
import torch

from benchmarks.real_bugs._cgan import CLASSES, train_cgan

TITLE = "Bug in training code and pre-trained model"
LINK = "https://github.com/kmualim/CGAN-Pytorch/issues/1"
EXPECTED = ("CONDITION_CONSTANT",)
STEPS = 1500
FIXED_CLASS = 6


def generator_labels(fixed):
    def draw(n):
        if fixed:
            return torch.randint(0, CLASSES, (n,))
        return torch.full((n,), FIXED_CLASS)          # BUG: the same condition every step
    return draw


def run(fixed=False, steps=STEPS, **watch):
    return train_cgan(generator_labels(fixed), steps, **watch)
