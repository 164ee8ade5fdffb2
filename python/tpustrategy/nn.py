"""``tpustrategy.nn``: activations, convolutions, pooling, normalisation, dropout (mirrors ``tf.nn``)."""

from __future__ import annotations

from tpustrategy.ops.losses_util import compute_average_loss, scale_regularization_loss  # noqa: F401
from tpustrategy.ops.math_ops import sigmoid, tanh  # noqa: F401  (tf.nn's are tf.math's, as in TF)
from tpustrategy.ops.nn_conv3d_ops import avg_pool3d, conv3d, conv3d_transpose, max_pool3d  # noqa: F401
from tpustrategy.ops.nn_conv_ops import (  # noqa: F401
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    conv2d_transpose,
    convolution,
    depthwise_conv2d,
    max_pool,
    max_pool1d,
    max_pool2d,
)
from tpustrategy.ops.nn_impl_ops import (  # noqa: F401
    batch_normalization,
    dropout,
    embedding_lookup,
    l2_normalize,
    moments,
)
from tpustrategy.ops.nn_ops import (  # noqa: F401
    l2_loss,
    leaky_relu,
    log_softmax,
    relu,
    relu6,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from tpustrategy.ops.top_k_ops import in_top_k, top_k  # noqa: F401
