"""tf.keras conv and pooling layers against naive numpy convolutions (forward and gradients).

Conv1D / Conv2D / DepthwiseConv2D / MaxPooling2D / AveragePooling2D run on ``tf.nn`` kernels built in C++
(branch nnops); on a build without them these tests are skipped with that reason, and the layers raise
NotImplementedError naming the missing op.
"""

from __future__ import annotations

import numpy as np
import pytest
from keras_helpers import check_layer

import tpustrategy as tf
from tpustrategy import keras

layers = keras.layers
RNG = np.random.default_rng(2)
needs_conv_ops = pytest.mark.skipif(not hasattr(tf.nn, "conv2d"),
                                    reason="tf.nn.conv2d / conv1d / depthwise_conv2d / pools not in this build (nnops)")


def _pad_same(x, k, s, d=1):
    """TF's SAME padding of the spatial axes of x [B, H, W, C] for window k, stride s, dilation d."""
    pads = []
    for axis, (kk, ss) in enumerate(zip(k, s, strict=True)):
        size = x.shape[1 + axis]
        effective = (kk - 1) * d + 1
        out = -(-size // ss)
        total = max((out - 1) * ss + effective - size, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def np_conv2d(x, kernel, strides=(1, 1), padding="valid", dilation=1, bias=None):
    kh, kw, cin, cout = kernel.shape
    if padding == "same":
        (t, b), (left, r) = _pad_same(x, (kh, kw), strides, dilation)
        x = np.pad(x, ((0, 0), (t, b), (left, r), (0, 0)))
    eh, ew = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    oh = (x.shape[1] - eh) // strides[0] + 1
    ow = (x.shape[2] - ew) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, cout))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * strides[0]:i * strides[0] + eh:dilation, j * strides[1]:j * strides[1] + ew:dilation, :]
            out[:, i, j, :] = np.tensordot(patch, kernel, axes=([1, 2, 3], [0, 1, 2]))
    return out + (bias if bias is not None else 0)


def np_pool(x, k, s, padding, reduce):
    if padding == "same":
        (t, b), (left, r) = _pad_same(x, k, s)
        fill = -np.inf if reduce is np.max else np.nan
        x = np.pad(x, ((0, 0), (t, b), (left, r), (0, 0)), constant_values=fill)
    oh, ow = (x.shape[1] - k[0]) // s[0] + 1, (x.shape[2] - k[1]) // s[1] + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for i in range(oh):
        for j in range(ow):
            window = x[:, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1], :]
            out[:, i, j, :] = reduce(window, axis=(1, 2))
    return out


@needs_conv_ops
@pytest.mark.parametrize("padding,strides", [("valid", 1), ("same", 1), ("same", 2), ("valid", 2)])
def test_conv2d(padding, strides):
    # tanh, not relu: finite differences across relu's kink are not the derivative
    layer = layers.Conv2D(3, (3, 2), strides=strides, padding=padding, activation="tanh")
    check_layer(layer, RNG.normal(size=(2, 6, 5, 2)),
                lambda x, k, b: np.tanh(np_conv2d(x, k, (strides, strides), padding, bias=b)))


@needs_conv_ops
def test_conv2d_dilated_and_output_shape():
    layer = layers.Conv2D(2, 3, dilation_rate=2, padding="same", use_bias=False)
    check_layer(layer, RNG.normal(size=(1, 7, 7, 1)), lambda x, k: np_conv2d(x, k, (1, 1), "same", dilation=2))
    assert layers.Conv2D(4, 3, strides=2)(keras.Input((28, 28, 1))).shape == (None, 13, 13, 4)


@needs_conv_ops
@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_conv1d(padding):
    layer = layers.Conv1D(2, 3, padding=padding)

    def reference(x, k, b):
        x4 = x[:, None]
        if padding == "causal":
            x4 = np.pad(x4, ((0, 0), (0, 0), (2, 0), (0, 0)))
        return np_conv2d(x4, k[None], (1, 1), "valid" if padding == "causal" else padding, bias=b)[:, 0]

    check_layer(layer, RNG.normal(size=(2, 7, 3)), reference)


@needs_conv_ops
def test_depthwise_conv2d():
    layer = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")

    def reference(x, k, b):
        outs = []
        for c in range(x.shape[-1]):
            for m in range(k.shape[-1]):
                outs.append(np_conv2d(x[..., c:c + 1], k[:, :, c:c + 1, m:m + 1], (1, 1), "same")[..., 0])
        return np.stack(outs, -1) + b

    check_layer(layer, RNG.normal(size=(1, 5, 5, 2)), reference)


@needs_conv_ops
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_max_and_average_pooling(padding):
    x = RNG.normal(size=(2, 5, 5, 3))
    check_layer(layers.MaxPooling2D(2, padding=padding), x, lambda x: np_pool(x, (2, 2), (2, 2), padding, np.max))
    check_layer(layers.AveragePooling2D(3, strides=2, padding=padding), x,
                lambda x: np_pool(x, (3, 3), (2, 2), padding, np.nanmean))
    assert layers.MaxPooling2D()(keras.Input((28, 28, 4))).shape == (None, 14, 14, 4)


def test_global_average_pooling2d():
    x = RNG.normal(size=(2, 4, 3, 5))
    check_layer(layers.GlobalAveragePooling2D(), x, lambda x: x.mean(axis=(1, 2)))
    assert layers.GlobalAveragePooling2D(keepdims=True)(keras.Input((4, 4, 2))).shape == (None, 1, 1, 2)


def test_conv_layer_argument_errors():
    with pytest.raises(ValueError, match="kernel_size"):
        layers.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="padding"):
        layers.Conv2D(2, 3, padding="full")
    with pytest.raises(ValueError, match="filters"):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match="divisible"):
        layers.Conv2D(3, 3, groups=2)
