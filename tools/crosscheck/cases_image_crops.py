"""tf.image crops, pads, brightness and contrast (#14): values, shapes and errors of the deterministic ones,
and the seeded random ones under tf.random.set_seed (op seed given and not)."""

from __future__ import annotations

import numpy as np

from crosscheck.describe import error_of
from crosscheck.registry import case

_IMAGE = np.arange(5 * 6 * 2, dtype=np.float32).reshape(5, 6, 2) / 60.0
_BATCH = np.stack([_IMAGE, 1.0 - _IMAGE])
_UINT8 = (np.arange(4 * 4 * 3).reshape(4, 4, 3) * 5).astype(np.uint8)


def _each(checks: dict) -> dict:
    return {name: error_of(fn) for name, fn in checks.items()}


@case()
def image_crops_and_pads(tf):
    image = tf.image
    return _each({
        "crop": lambda: image.crop_to_bounding_box(_IMAGE, 1, 2, 3, 3),
        "crop_batch": lambda: image.crop_to_bounding_box(_BATCH, 0, 1, 5, 4),
        "crop_too_big": lambda: image.crop_to_bounding_box(_IMAGE, 3, 0, 3, 6),
        "crop_negative_offset": lambda: image.crop_to_bounding_box(_IMAGE, -1, 0, 2, 2),
        "pad": lambda: image.pad_to_bounding_box(_IMAGE, 1, 2, 7, 9),
        "pad_batch_uint8": lambda: image.pad_to_bounding_box(_UINT8[None], 0, 1, 5, 6),
        "pad_too_small": lambda: image.pad_to_bounding_box(_IMAGE, 1, 0, 5, 6),
        "crop_or_pad_smaller": lambda: image.resize_with_crop_or_pad(_IMAGE, 2, 3),
        "crop_or_pad_larger": lambda: image.resize_with_crop_or_pad(_IMAGE, 8, 9),
        "crop_or_pad_mixed": lambda: image.resize_with_crop_or_pad(_BATCH, 8, 3),
        "crop_or_pad_zero": lambda: image.resize_with_crop_or_pad(_IMAGE, 0, 3),
        "central_half": lambda: image.central_crop(_IMAGE, 0.5),
        "central_0_7_batch": lambda: image.central_crop(_BATCH, 0.7),
        "central_0_33": lambda: image.central_crop(np.ones((17, 23, 1), np.float32), 0.33),
        "central_one": lambda: image.central_crop(_IMAGE, 1.0),
        "central_zero": lambda: image.central_crop(_IMAGE, 0.0),
        "rank_2": lambda: image.crop_to_bounding_box(np.ones((4, 4), np.float32), 0, 0, 2, 2),
    })


@case()
def image_brightness_contrast(tf):
    image = tf.image
    return _each({
        "brightness": lambda: image.adjust_brightness(_IMAGE, 0.25),
        "brightness_negative": lambda: image.adjust_brightness(_BATCH, -0.5),
        "brightness_uint8": lambda: image.adjust_brightness(_UINT8, 0.2),
        "brightness_float64": lambda: image.adjust_brightness(_IMAGE.astype(np.float64), 0.1),
        "contrast": lambda: image.adjust_contrast(_IMAGE, 1.7),
        "contrast_batch": lambda: image.adjust_contrast(_BATCH, 0.3),
        "contrast_uint8": lambda: image.adjust_contrast(_UINT8, 2.0),
        "contrast_negative": lambda: image.adjust_contrast(_IMAGE, -1.0),
        "random_brightness_negative_delta": lambda: image.random_brightness(_IMAGE, -0.1),
        "random_contrast_bad_range": lambda: image.random_contrast(_IMAGE, 0.5, 0.5),
        "random_contrast_negative_lower": lambda: image.random_contrast(_IMAGE, -0.5, 0.5),
    })


@case()
def image_random_crops_brightness_contrast_seeded(tf):
    tf.random.set_seed(7)
    return {
        "crop_op_seed": [tf.image.random_crop(_IMAGE, [3, 4, 2], seed=5) for _ in range(3)],
        "crop_batch": tf.image.random_crop(_BATCH, [1, 2, 2, 1], seed=11),
        "crop_global_only": tf.image.random_crop(_IMAGE, [2, 2, 2]),
        "crop_too_big": error_of(lambda: tf.image.random_crop(_IMAGE, [6, 2, 2], seed=1)),
        "brightness": [tf.image.random_brightness(_IMAGE, 0.3, seed=3) for _ in range(2)],
        "contrast": [tf.image.random_contrast(_IMAGE, 0.2, 1.8, seed=4) for _ in range(2)],
        "brightness_global_only": tf.image.random_brightness(_UINT8, 0.2),
    }
