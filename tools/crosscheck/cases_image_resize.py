"""tf.image.resize (bilinear, nearest), per_image_standardization, l2_normalize and rgb_to_grayscale: values,
dtypes, errors and the static shape a dataset function gives them. Resizing and grayscale are compared exactly;
standardization and l2_normalize sum in another order than TF's kernels (1-ulp differences), so for them each side
reports its dtype, shape and whether its values are within 1e-5 of the definition computed in float64."""

from __future__ import annotations

import numpy as np

from crosscheck.describe import Repr, error_of
from crosscheck.registry import case


def _image(dtype=np.float32):
    return np.random.default_rng(0).uniform(0, 255, (5, 7, 3)).astype(dtype)


def _close(fn, expected):
    def run():
        value = fn()
        close = bool(np.allclose(value.numpy(), expected, rtol=0, atol=1e-5))
        return {"dtype": value.dtype.name, "shape": list(value.shape), "close_to_definition": close}

    return error_of(run)


def _standardized(image):
    x = image.astype(np.float64)
    return (x - x.mean()) / max(x.std(), 1 / np.sqrt(x.size))


def _l2_normalized(x, axis=None):
    x = x.astype(np.float64)
    return x / np.sqrt(np.maximum((x * x).sum(axis=axis, keepdims=True), 1e-12))


@case()
def image_resize(tf):
    image, pixels = _image(), _image(np.uint8)
    checks = {
        "bilinear_up": lambda: tf.image.resize(image, [9, 11]), "bilinear_down": lambda: tf.image.resize(image, [3, 2]),
        "bilinear_uint8": lambda: tf.image.resize(pixels, [4, 9]),
        "bilinear_batch": lambda: tf.image.resize(np.stack([image, image[::-1]]), [6, 4]),
        "nearest_up": lambda: tf.image.resize(pixels, [9, 11], method="nearest"),
        "nearest_down": lambda: tf.image.resize(image, [2, 3], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
        "rank_2": lambda: tf.image.resize(image[0], [2, 2]), "unknown_method": lambda: tf.image.resize(image, [2, 2],
                                                                                                        method="x"),
    }
    return {name: error_of(fn) for name, fn in checks.items()}


@case()
def image_standardization_and_l2_normalize(tf):
    image, pixels, ones, zeros = _image(), _image(np.uint8), np.ones((2, 2, 3), np.float32), np.zeros((2, 3))
    return {
        "standardized": _close(lambda: tf.image.per_image_standardization(image), _standardized(image)),
        "standardized_uint8": _close(lambda: tf.image.per_image_standardization(pixels), _standardized(pixels)),
        "standardized_constant": _close(lambda: tf.image.per_image_standardization(ones), _standardized(ones)),
        "l2_last_axis": _close(lambda: tf.math.l2_normalize(image, -1), _l2_normalized(image, -1)),
        "l2_all": _close(lambda: tf.nn.l2_normalize(image), _l2_normalized(image)),
        "l2_zeros": _close(lambda: tf.math.l2_normalize(zeros.astype(np.float32), axis=1), zeros),
    }


@case()
def image_ops_static_shapes_in_map(tf):
    def decoded(x, known_channels=True):  # an image from Python code, as a decoder in a pipeline gives it
        image = tf.numpy_function(lambda v: np.full((4, 6, 3), v, np.float32), [x], tf.float32)
        if known_channels:
            image.set_shape([None, None, 3])
        return image

    def spec(fn):
        return error_of(lambda: Repr(repr(tf.data.Dataset.range(2).map(fn).element_spec)))

    return {
        "resize": spec(lambda x: tf.image.resize(decoded(x), [8, 8])),
        "resize_unknown_rank": spec(lambda x: tf.image.resize(decoded(x, False), [8, 8])),
        "standardized": spec(lambda x: tf.image.per_image_standardization(decoded(x))),
        "l2_normalized": spec(lambda x: tf.math.l2_normalize(decoded(x), -1)),
    }


@case()
def image_grayscale(tf):
    image, pixels = _image(), _image(np.uint8)
    checks = {
        "float": lambda: tf.image.rgb_to_grayscale(image / 255.0),
        "uint8": lambda: tf.image.rgb_to_grayscale(pixels),
        "batch": lambda: tf.image.rgb_to_grayscale(np.stack([pixels, pixels[::-1]])),
        "back_to_rgb": lambda: tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(pixels)),
        "two_channels": lambda: tf.image.rgb_to_grayscale(pixels[..., :2]),
    }
    return {name: error_of(fn) for name, fn in checks.items()}
