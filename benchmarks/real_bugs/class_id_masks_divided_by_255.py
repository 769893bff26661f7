"""A U-Net tutorial's Dataset runs one `preprocess` on the image and on the mask, and
`preprocess` divides by 255 whenever the array's maximum is above 1 - written for 0/255
binary masks. With a multi-class mask of class ids 0..10 the ids become 0..0.04, and the
training loop's `true_masks.to(dtype=torch.long)` truncates them to 0: background. (Not
every mask: a digit-0 mask holds ids 0 and 1 only, its maximum is not above 1, and it
keeps them - so the targets are 0 everywhere except the zeros' ink, class 1; corrected
after scoring, the run is unchanged.) The network learns to predict little else.

Reported: "My imput mask is 0" - https://github.com/milesial/Pytorch-UNet/issues/228 (a
KITTI mask of class ids 0 to 18 with n_classes=20: "the predict result is 0 ... My
true mask_type is all 0, before line 75, the value is pixel value/255"; the answer: "In
dataset.py the images are normalized: `if img_trans.max() > 1: img_trans = img_trans / 255`
... If your masks include values over 1, which they do, the masks also get normalized and
rounded to zero"). Here the 8x8 digits as 8-bit images, each ink pixel labelled with its
digit + 1 (background 0), a small fully convolutional net (four 3x3 convolutions, so a
pixel sees the whole digit) with 11 output classes, Adam, the
repository's loop (masks cast to long, cross-entropy). Fix: scale the images only; keep
the mask's class ids.

Measured harm (held-out foreground IoU - a pixel counts when its class is right - on 400
held-out digits): 0.03 vs 0.47 at seed 0; seeds + 1000: 0.07 vs 0.36.
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._beginner_dataset import (INK, foreground_iou, record, segmenter,
                                                    shuffled_digits)

TITLE = "My imput mask is 0"
LINK = "https://github.com/milesial/Pytorch-UNet/issues/228"
EXPECTED = ("TARGETS_ALL_ONE_CLASS", "BINARY_TARGETS_SCALED_DOWN")
STEPS = 250
HELD_OUT = 400
CLASSES = 11                # background + the ten digits


class BasicDataset(Dataset):
    def __init__(self, images, masks, scale_masks):
        self.images, self.masks, self.scale_masks = images, masks, scale_masks

    def __len__(self):
        return len(self.images)

    @classmethod
    def preprocess(cls, img_nd):
        if len(img_nd.shape) == 2:
            img_nd = np.expand_dims(img_nd, axis=2)
        img_trans = img_nd.transpose((2, 0, 1))         # HWC to CHW
        if img_trans.max() > 1:
            img_trans = img_trans / 255
        return img_trans

    def __getitem__(self, i):
        img = self.preprocess(self.images[i])
        if self.scale_masks:                            # BUG: the image's scaling
            mask = self.preprocess(self.masks[i])
        else:
            mask = self.masks[i][None]
        return {"image": torch.from_numpy(img).type(torch.FloatTensor),
                "mask": torch.from_numpy(np.asarray(mask)).type(torch.FloatTensor)}


def images_and_masks():
    """(images, masks): uint8 (N, 8, 8) images and (N, 8, 8) class-id masks (digit + 1 on
    the ink, 0 elsewhere), in an order drawn from torch's generator."""
    x, y = shuffled_digits()
    x = x[:, 0]
    masks = torch.where(x > INK, y[:, None, None] + 1, torch.zeros_like(y)[:, None, None])
    return (x * 255).round().to(torch.uint8).numpy(), masks.to(torch.uint8).numpy()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, masks = images_and_masks()
    train = BasicDataset(images[:-HELD_OUT], masks[:-HELD_OUT], scale_masks=not fixed)
    loader = DataLoader(train, batch_size=32, shuffle=True)
    model = segmenter(CLASSES, layers=4, width=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for batch in loader:
                imgs = batch["image"].to(dtype=torch.float32)
                true_masks = batch["mask"].to(dtype=torch.long).squeeze(1)
                optimizer.zero_grad()
                loss = criterion(model(imgs), true_masks)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    held_x = torch.from_numpy(images[-HELD_OUT:]).float()[:, None] / 255
    held_masks = torch.from_numpy(masks[-HELD_OUT:]).long()
    record(__name__, foreground_iou(model, held_x, held_masks))
    return mon
