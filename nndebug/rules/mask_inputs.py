"""TARGETS_IN_INPUTS for segmentation: the input image replaced by its own (transformed) mask
(``run.observed.mask_placement_rows``, ``monitor/mask_placement.py``).

Public report: "CSVDataset copies label to input", https://github.com/nitrain/nitrain/issues/92
(real-bug batch 22): a joint transform's result unpacked as ``input, input =
co_transform(input, target)``, so the model's input is the transformed mask and its target
the untransformed one. The image never reaches the model; it learns to copy, or un-flip, a
mask, and is useless on real images. The loss falls to a floor only the flips keep up.

Named when nearly every kept sample's input IS its mask value for value under some flip or
turn (``INPUT_IS_MASK_SHARE``) and a good share of them under another placement than as
given (``MOVED_COPY_SHARE``): an input moved by a random augmentation that its target did
not get. An autoencoder of masks (input and target the same mask on purpose, as given) is
left silent.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

INPUT_IS_MASK_SHARE = 0.9   # [design] samples whose input is their mask under some placement
MOVED_COPY_SHARE = 0.2      # [design] ...under another placement than as given: nitrain#92's
                            # random flip moves half (0.48 of 192 kept samples)


@rule(produces="TARGETS_IN_INPUTS", explains={"LOSS_PLATEAU", "LABELS_MISALIGNED"})
def mask_fed_as_input(ctx):
    rows = observed_list(ctx, "mask_placement_rows")
    if not rows:
        return None
    step, read, _, _, _, copied, copied_moved = rows[0]
    if read <= 0 or copied < INPUT_IS_MASK_SHARE * read or \
            copied_moved < MOVED_COPY_SHARE * read:
        return None
    return Finding(
        code="TARGETS_IN_INPUTS", severity="error", where="inputs", step=step,
        message=f"In {copied} of {read} kept training samples the input image IS the "
                f"target mask, value for value ({copied_moved} of them flipped or turned): "
                "the model is fed its own labels, moved by an augmentation the targets did "
                "not get, instead of the images. It learns to copy or un-flip masks, which "
                "is useless on real images.",
        evidence={"samples_read": read, "inputs_equal_to_mask": copied,
                  "of_those_moved": copied_moved, "threshold_share": INPUT_IS_MASK_SHARE},
        fix="Check where the batch is assembled: a joint transform returns (image, mask) - "
            "unpack it into both (input, target = transform(input, target)), not into the "
            "input twice.")
