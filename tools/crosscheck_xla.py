"""Developer cross-check of the SPMD partitioner against XLA's (issue 13). Not a test dependency.

A catalogue of cases (reshards of every kind, elementwise, reductions, every dot rule, data movement, softmax,
cross-entropy, vocabulary-sharded gather, convolutions with halos (strided, dilated, explicit asymmetric padding,
depthwise split spatially or on channels), the backward of convolutions, gather and slice, sub-axis all-to-alls,
a Megatron-style MLP forward and backward, the windowed einsum loops — both operands' windows, the reduce-scatter
variant, batched dots, a windowed dot's backward) is run in two systems on 8 devices:

* XLA, through JAX on 8 CPU host devices (``--jax``, run with the reference venv's python):
  ``jax.jit(f, in_shardings=..., out_shardings=...).lower(...).compile().as_text()``; the collectives are parsed
  from the optimized HLO and written to tests_py/data/spmd_xla_crosscheck.json (small; checked in).
* tpustrategy's partitioner (default mode, or tests_py/test_spmd_crosscheck.py without JAX): the same case on
  ``_core.spmd`` over 8 simulated logical cores; the collectives come from the step's SpmdRecord.

Compared per case: the kinds of the collectives in order, their device groups (all-gather / all-reduce /
reduce-scatter / all-to-all) or source-target pairs (collective-permute), and each core's result shard shape.
Normalisations of XLA's CPU output (documented, as the CPU pipeline differs from TPU's): an all-reduce whose
only use is a dynamic-slice is a reduce-scatter (TPU's ReduceScatterCreator forms exactly that pair; CPU has no
reduce-scatter); a tuple all-to-all is one all-to-all; a tuple all-reduce (XLA's all-reduce combiner) counts as
one all-reduce per element; a while loop's collectives count once per iteration (its known trip count; the
windowed einsum's permute is skipped on the last, as XLA's conditional does); consecutive collective-permutes
compare as a set (XLA schedules a halo exchange's
independent permutes in either order). Where the two plans differ for a known reason, the
catalogue says why (``KNOWN``); the closing line reports agreement counts.

    ~/.cache/tpustrategy-references/bin/python tools/crosscheck_xla.py --jax    # refresh the XLA side
    PYTHONPATH=python python3 tools/crosscheck_xla.py                          # compare
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests_py" / "data" / "spmd_xla_crosscheck.json"
MESHES = {"1d": ((8,), ("x",)), "2d": ((2, 4), ("a", "b"))}

# name: (mesh, function, [(shape, spec, dtype)], out_spec or None)
X = (16, 32)
CASES: dict[str, tuple] = {
    # ---- reshards (identity with different in / out shardings) ----
    "reshard_rows_to_replicated": ("1d", "identity", [(X, ("x", None), "f32")], ()),
    "reshard_cols_to_replicated": ("1d", "identity", [(X, (None, "x"), "f32")], ()),
    "reshard_replicated_to_rows": ("1d", "identity", [(X, (), "f32")], ("x", None)),
    "reshard_replicated_to_cols": ("1d", "identity", [(X, (), "f32")], (None, "x")),
    "reshard_rows_to_cols_all_to_all": ("1d", "identity", [(X, ("x", None), "f32")], (None, "x")),
    "reshard_cols_to_rows_all_to_all": ("1d", "identity", [(X, (None, "x"), "f32")], ("x", None)),
    "reshard_2d_to_replicated": ("2d", "identity", [(X, ("a", "b"), "f32")], ()),
    "reshard_2d_to_partial_rows": ("2d", "identity", [(X, ("a", "b"), "f32")], ("a", None)),
    "reshard_2d_to_partial_cols": ("2d", "identity", [(X, ("a", "b"), "f32")], (None, "b")),
    "reshard_partial_to_2d_local": ("2d", "identity", [(X, ("a", None), "f32")], ("a", "b")),
    "reshard_replicated_to_2d_local": ("2d", "identity", [(X, (), "f32")], ("a", "b")),
    "reshard_device_order_permute": ("2d", "identity", [(X, (("a", "b"), None), "f32")], (("b", "a"), None)),
    "reshard_partial_a_to_replicated": ("2d", "identity", [(X, ("a", None), "f32")], ()),
    "reshard_partial_b_to_replicated": ("2d", "identity", [(X, (None, "b"), "f32")], ()),
    "reshard_2d_all_to_all_on_b": ("2d", "identity", [((16, 32, 8), ("a", "b", None), "f32")], ("a", None, "b")),
    "reshard_2d_swap_axes": ("2d", "identity", [(X, ("a", "b"), "f32")], ("b", "a")),
    # ---- elementwise ----
    "add_rows_rows": ("1d", "add", [(X, ("x", None), "f32"), (X, ("x", None), "f32")], None),
    "add_2d_2d": ("2d", "add", [(X, ("a", "b"), "f32"), (X, ("a", "b"), "f32")], None),
    "add_rows_replicated": ("1d", "add", [(X, ("x", None), "f32"), (X, (), "f32")], None),
    "add_rows_cols_to_rows": ("1d", "add", [(X, ("x", None), "f32"), (X, (None, "x"), "f32")], ("x", None)),
    "add_2d_partial": ("2d", "add", [(X, ("a", "b"), "f32"), (X, ("a", None), "f32")], None),
    "mul_bias_broadcast": ("1d", "multiply", [(X, ("x", None), "f32"), ((32,), (), "f32")], None),
    "relu_rows": ("1d", "relu", [(X, ("x", None), "f32")], None),
    "exp_2d": ("2d", "exp", [(X, ("a", "b"), "f32")], None),
    "tanh_cols": ("1d", "tanh", [(X, (None, "x"), "f32")], None),
    # ---- reductions ----
    "sum_axis0_rows": ("1d", "sum0", [(X, ("x", None), "f32")], None),
    "sum_axis1_rows": ("1d", "sum1", [(X, ("x", None), "f32")], None),
    "sum_all_2d": ("2d", "sumall", [(X, ("a", "b"), "f32")], None),
    "sum_axis1_2d": ("2d", "sum1", [(X, ("a", "b"), "f32")], None),
    "sum_axis0_2d": ("2d", "sum0", [(X, ("a", "b"), "f32")], None),
    "max_axis0_rows": ("1d", "max0", [(X, ("x", None), "f32")], None),
    "mean_axis0_rows": ("1d", "mean0", [(X, ("x", None), "f32")], None),
    "sum_axis1_cols": ("1d", "sum1", [(X, (None, "x"), "f32")], None),
    # ---- dot ----
    "dot_lhs_rows_rhs_replicated": ("1d", "dot", [(X, ("x", None), "f32"), ((32, 8), (), "f32")], None),
    "dot_rhs_cols": ("1d", "dot", [(X, (), "f32"), ((32, 8), (None, "x"), "f32")], None),
    "dot_contracting_both_all_reduce": ("1d", "dot", [(X, (None, "x"), "f32"), ((32, 8), ("x", None), "f32")], ()),
    "dot_contracting_both_reduce_scatter_rows": (
        "1d",
        "dot",
        [(X, (None, "x"), "f32"), ((32, 8), ("x", None), "f32")],
        ("x", None),
    ),
    "dot_contracting_both_reduce_scatter_cols": (
        "1d",
        "dot",
        [(X, (None, "x"), "f32"), ((32, 8), ("x", None), "f32")],
        (None, "x"),
    ),
    "dot_contracting_lhs_only": ("1d", "dot", [(X, (None, "x"), "f32"), ((32, 8), (), "f32")], ()),
    "dot_contracting_rhs_only": ("1d", "dot", [(X, (), "f32"), ((32, 8), ("x", None), "f32")], ()),
    "dot_rows_and_cols_all_gather_rhs": (
        "1d",
        "dot",
        [(X, ("x", None), "f32"), ((32, 16), (None, "x"), "f32")],
        ("x", None),
    ),
    "dot_2d_contracting_b": ("2d", "dot", [(X, ("a", "b"), "f32"), ((32, 8), ("b", None), "f32")], None),
    "dot_2d_rows_a_cols_b": ("2d", "dot", [(X, ("a", None), "f32"), ((32, 8), (None, "b"), "f32")], None),
    "dot_2d_lhs_2d_rhs_replicated": ("2d", "dot", [(X, ("a", "b"), "f32"), ((32, 8), (), "f32")], None),
    "dot_batch_alike": (
        "1d",
        "dot",
        [((8, 16, 32), ("x", None, None), "f32"), ((8, 32, 8), ("x", None, None), "f32")],
        None,
    ),
    # ---- data movement, softmax, cross-entropy, gather ----
    "transpose_rows": ("1d", "transpose", [(X, ("x", None), "f32")], None),
    "transpose_2d": ("2d", "transpose", [(X, ("a", "b"), "f32")], None),
    "reshape_split_minor": ("1d", "reshape_16_4_8", [(X, ("x", None), "f32")], None),
    "reshape_flatten_rows": ("1d", "reshape_flat", [(X, ("x", None), "f32")], None),
    "slice_rows_of_cols": ("1d", "slice_rows", [(X, (None, "x"), "f32")], None),
    "concat_untiled_axis": ("1d", "concat1", [(X, ("x", None), "f32"), (X, ("x", None), "f32")], None),
    "softmax_untiled_axis": ("1d", "softmax", [(X, ("x", None), "f32")], None),
    "softmax_tiled_axis": ("1d", "softmax", [(X, (None, "x"), "f32")], None),
    "xent_vocab_sharded": ("1d", "xent", [((8, 32), (None, "x"), "f32"), ((8,), (), "s32")], ()),
    "xent_batch_sharded": ("1d", "xent", [((8, 32), ("x", None), "f32"), ((8,), ("x",), "s32")], None),
    "gather_vocab_sharded": ("1d", "gather", [((32, 8), ("x", None), "f32"), ((2, 3), (), "s32")], ()),
    "gather_dim_sharded": ("1d", "gather", [((32, 8), (None, "x"), "f32"), ((2, 3), (), "s32")], None),
    # ---- convolutions with halos ----
    "conv_halo_width_8": (
        "1d",
        "conv",
        [((2, 8, 16, 3), (None, None, "x", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    "conv_halo_seed_h2_w4": (
        "2d",
        "conv",
        [((2, 8, 16, 3), (None, "a", "b", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    "conv_batch_and_width": (
        "2d",
        "conv",
        [((2, 8, 16, 3), ("a", None, "b", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    "conv_strided_seed_h2_w4": (
        "2d",
        "conv_s2",
        [((2, 8, 16, 3), (None, "a", "b", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    "conv_strided_5x5_width_8": (
        "1d",
        "conv_s2",
        [((2, 8, 32, 3), (None, None, "x", None), "f32"), ((5, 5, 3, 4), (), "f32")],
        None,
    ),
    "conv_dilated_width_4": (
        "2d",
        "conv_d2",
        [((2, 8, 16, 3), (None, None, "b", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    # ---- convolution and gather / slice backward ----
    "conv_input_grad_seed_h2_w4": (
        "2d",
        "conv_dx",
        [
            ((2, 8, 16, 3), (None, "a", "b", None), "f32"),
            ((3, 3, 3, 4), (), "f32"),
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
        ],
        (None, "a", "b", None),
    ),
    "conv_input_grad_strided_width_4": (
        "2d",
        "conv_dx_s2",
        [
            ((2, 8, 16, 3), (None, None, "b", None), "f32"),
            ((3, 3, 3, 4), (), "f32"),
            ((2, 4, 8, 4), (None, None, "b", None), "f32"),
        ],
        (None, None, "b", None),
    ),
    "conv_filter_grad_seed_h2_w4": (
        "2d",
        "conv_df",
        [
            ((2, 8, 16, 3), (None, "a", "b", None), "f32"),
            ((3, 3, 3, 4), (), "f32"),
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
        ],
        (),
    ),
    "gather_vocab_sharded_table_grad": (
        "1d",
        "gather_dt",
        [((32, 8), ("x", None), "f32"), ((2, 3), (), "s32"), ((2, 3, 8), (), "f32")],
        ("x", None),
    ),
    "slice_grad_rows_of_cols": (
        "1d",
        "slice_dx",
        [(X, (None, "x"), "f32"), ((8, 32), (None, "x"), "f32")],
        (None, "x"),
    ),
    # ---- depthwise convolutions and explicit (asymmetric) padding lists, forward and backward ----
    "depthwise_halo_seed_h2_w4": (
        "2d",
        "dwconv",
        [((2, 8, 16, 4), (None, "a", "b", None), "f32"), ((3, 3, 4, 2), (), "f32")],
        None,
    ),
    "depthwise_channels_8_filter_tiled": (
        "1d",
        "dwconv",
        [((2, 8, 16, 8), (None, None, None, "x"), "f32"), ((3, 3, 8, 2), (None, None, "x", None), "f32")],
        None,
    ),
    "depthwise_channels_8_filter_replicated": (
        "1d",
        "dwconv",
        [((2, 8, 16, 8), (None, None, None, "x"), "f32"), ((3, 3, 8, 2), (), "f32")],
        None,
    ),
    "depthwise_width_a_channels_b": (
        "2d",
        "dwconv",
        [((2, 8, 16, 8), (None, None, "a", "b"), "f32"), ((3, 3, 8, 2), (None, None, "b", None), "f32")],
        None,
    ),
    "depthwise_explicit_pads_width_8": (
        "1d",
        "dwconv_pads",
        [((2, 8, 16, 4), (None, None, "x", None), "f32"), ((3, 3, 4, 2), (), "f32")],
        None,
    ),
    "conv_explicit_pads_seed_h2_w4": (
        "2d",
        "conv_pads",
        [((2, 8, 16, 3), (None, "a", "b", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    "conv_explicit_pads_misaligned_width_8": (
        "1d",
        "conv_pads_misaligned",
        [((2, 8, 16, 3), (None, None, "x", None), "f32"), ((3, 3, 3, 4), (), "f32")],
        None,
    ),
    "conv_explicit_pads_input_grad_seed_h2_w4": (
        "2d",
        "conv_pads_dx",
        [
            ((2, 8, 16, 3), (None, "a", "b", None), "f32"),
            ((3, 3, 3, 4), (), "f32"),
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
        ],
        (None, "a", "b", None),
    ),
    "conv_explicit_pads_filter_grad_seed_h2_w4": (
        "2d",
        "conv_pads_df",
        [
            ((2, 8, 16, 3), (None, "a", "b", None), "f32"),
            ((3, 3, 3, 4), (), "f32"),
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
        ],
        (),
    ),
    "depthwise_input_grad_seed_h2_w4": (
        "2d",
        "dwconv_dx",
        [
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
            ((3, 3, 4, 2), (), "f32"),
            ((2, 8, 16, 8), (None, "a", "b", None), "f32"),
        ],
        (None, "a", "b", None),
    ),
    "depthwise_input_grad_multiplier_1_seed_h2_w4": (
        "2d",
        "dwconv_dx",
        [
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
            ((3, 3, 4, 1), (), "f32"),
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
        ],
        (None, "a", "b", None),
    ),
    "depthwise_filter_grad_seed_h2_w4": (
        "2d",
        "dwconv_df",
        [
            ((2, 8, 16, 4), (None, "a", "b", None), "f32"),
            ((3, 3, 4, 2), (), "f32"),
            ((2, 8, 16, 8), (None, "a", "b", None), "f32"),
        ],
        (),
    ),
    "depthwise_filter_grad_channels_8": (
        "1d",
        "dwconv_df",
        [
            ((2, 8, 16, 8), (None, None, None, "x"), "f32"),
            ((3, 3, 8, 2), (None, None, "x", None), "f32"),
            ((2, 8, 16, 16), (None, None, None, "x"), "f32"),
        ],
        (None, None, "x", None),
    ),
    # ---- sub-axis all-to-alls ----
    "reshard_rows_ab_to_2d": ("2d", "identity", [(X, (("a", "b"), None), "f32")], ("a", "b")),
    "reshard_2d_to_cols_ab": ("2d", "identity", [(X, ("a", "b"), "f32")], (None, ("a", "b"))),
    # ---- Megatron-style MLP ----
    "mlp_megatron_forward": (
        "1d",
        "mlp",
        [((16, 32), (), "f32"), ((32, 64), (None, "x"), "f32"), ((64, 8), ("x", None), "f32")],
        (),
    ),
    "mlp_megatron_backward": (
        "1d",
        "mlp_grad",
        [((16, 32), (), "f32"), ((32, 64), (None, "x"), "f32"), ((64, 8), ("x", None), "f32")],
        None,
    ),
    "mlp_megatron_backward_with_input_gradient": (
        "1d",
        "mlp_grad_all",
        [((16, 32), (), "f32"), ((32, 64), (None, "x"), "f32"), ((64, 8), ("x", None), "f32")],
        None,
    ),
    # ---- propagation choices and uneven tiles ----
    "add_rows_cols_propagation": ("1d", "add", [(X, ("x", None), "f32"), (X, (None, "x"), "f32")], None),
    "dot_rows_and_cols_propagation": ("1d", "dot", [(X, ("x", None), "f32"), ((32, 16), (None, "x"), "f32")], None),
    # (uneven tiles are tested in GoogleTest only: jax.jit's in_shardings demand even division)
    # ---- windowed einsum (XLA runs them with every dimension scaled by WINDOWED[name], see below) ----
    "windowed_lhs_rows_rhs_cols": ("1d", "dot", [(X, ("x", None), "f32"), ((32, 16), (None, "x"), "f32")], ("x", None)),
    "windowed_propagation_lhs_rows_rhs_cols": (
        "1d",
        "dot",
        [(X, ("x", None), "f32"), ((32, 16), (None, "x"), "f32")],
        None,
    ),
    "windowed_lhs_rows_rhs_contracting": (
        "1d",
        "dot",
        [(X, ("x", None), "f32"), ((32, 16), ("x", None), "f32")],
        ("x", None),
    ),
    "windowed_rhs_cols_lhs_contracting": (
        "1d",
        "dot",
        [(X, (None, "x"), "f32"), ((32, 16), (None, "x"), "f32")],
        (None, "x"),
    ),
    "windowed_rhs_cols_lhs_rows": ("1d", "dot", [(X, ("x", None), "f32"), ((32, 16), (None, "x"), "f32")], (None, "x")),
    "windowed_reduce_scatter_rows": (
        "1d",
        "dot",
        [(X, (None, "x"), "f32"), ((32, 16), ("x", None), "f32")],
        ("x", None),
    ),
    "windowed_reduce_scatter_cols": (
        "1d",
        "dot",
        [(X, (None, "x"), "f32"), ((32, 16), ("x", None), "f32")],
        (None, "x"),
    ),
    # Agrees as compared (kinds, pairs, shapes in order), though not loop for loop: XLA's dots read transposed
    # operands through dimension numbers and it runs dw's reduce-scatter loop first, while matmul_grad transposes
    # first and runs dx's loop first — each of our loops permutes blocks of the other XLA loop's shape.
    "windowed_dot_backward": (
        "1d",
        "dot_grad",
        [(X, ("x", None), "f32"), ((32, 16), (None, "x"), "f32"), ((16, 16), ("x", None), "f32")],
        [("x", None), (None, "x")],
    ),
    "windowed_batched_lhs_m_rhs_n": (
        "1d",
        "bdot",
        [((8, 16, 32), (None, "x", None), "f32"), ((8, 32, 16), (None, None, "x"), "f32")],
        (None, "x", None),
    ),
    "windowed_batched_lhs_m_rhs_k": (
        "1d",
        "bdot",
        [((8, 16, 32), (None, "x", None), "f32"), ((8, 32, 16), (None, "x", None), "f32")],
        (None, "x", None),
    ),
    "windowed_batched_lhs_m_rhs_batch": (
        "1d",
        "bdot",
        [((8, 16, 32), (None, "x", None), "f32"), ((8, 32, 16), ("x", None, None), "f32")],
        (None, "x", None),
    ),
    "windowed_batched_reduce_scatter": (
        "1d",
        "bdot",
        [((8, 16, 32), (None, None, "x"), "f32"), ((8, 32, 16), (None, "x", None), "f32")],
        (None, "x", None),
    ),
    "windowed_batched_2d_batch_groups": (
        "2d",
        "bdot",
        [((8, 16, 32), ("a", "b", None), "f32"), ((8, 32, 16), ("a", None, "b"), "f32")],
        ("a", "b", None),
    ),
    "windowed_batched_2d_reduce_scatter": (
        "2d",
        "bdot",
        [((8, 16, 32), ("a", None, "b"), "f32"), ((8, 32, 16), ("a", "b", None), "f32")],
        ("a", "b", None),
    ),
}

# The explicit padding of the *_pads cases: rows 0 before / 2 after, columns 2 before / 0 after (asymmetric halos).
PADS = ((0, 2), (2, 0))
# The example padding list [[0, 0], [1, 2], [0, 1], [0, 0]]: 17 x 15 outputs of 16 x 16, not tile-aligned.
PADS_MISALIGNED = ((1, 2), (0, 1))

# The windowed einsum cases. XLA's CPU compiler gives its SPMD partitioner no options, so the windowed einsum
# threshold is StatefulRngSpmdPartitioner's default, 100000 MiB (the debug option XLA_FLAGS=
# --xla_threshold_for_windowed_einsum_mib does not exist — XLA aborts on the unknown flag — and
# --xla_gpu_threshold_for_windowed_einsum_mib reaches only the GPU compiler). So XLA compiles these cases with
# every dimension multiplied by the scale here (operands of 100+ GiB: compiled, never allocated) and the
# stored shapes are divided back; tpustrategy runs the small case with its threshold scaled the same way
# (XLA_CPU_WINDOWED_THRESHOLD / scale**rank, so the same operands cross it).
WINDOWED: dict[str, int] = {name: 16384 if CASES[name][1] != "bdot" else 256 for name in CASES if "windowed" in name}
XLA_CPU_WINDOWED_THRESHOLD = 100000 << 20

# Cases whose plans differ from XLA's for a documented reason (see the README's SPMD section).
KNOWN: dict[str, str] = {
    "conv_explicit_pads_misaligned_width_8": (
        "15 output columns of 16 inputs do not line up with 8 tiles of 2: tpustrategy gathers the width first (one "
        "all-gather of x); XLA exchanges a 2-column halo, convolves tiles of 2 outputs padded to 16 and all-gathers "
        "the output (replicated here, as jit's out sharding of an uneven 15). Same values."
    ),
    "depthwise_input_grad_seed_h2_w4": (
        "XLA does not halo-partition a grouped convolution whose groups read more than one input feature: the "
        "transposed depthwise convolution with multiplier 2 (dy's C·M features in C groups) all-gathers dy and "
        "computes the whole dx on every core, then slices; with multiplier 1 (the case after) it exchanges dy's "
        "halos as here. tpustrategy exchanges the halos for any multiplier: same values, 1/L of the work."
    ),
}


def spec_tuple(spec, rank):
    spec = tuple(spec) + (None,) * (rank - len(spec))
    return [() if s is None else (s if isinstance(s, tuple) else (s,)) for s in spec]


# ======================================================================== JAX side
def run_jax() -> dict:
    os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def mlp(x, w1, w2):
        return jax.nn.relu(x @ w1) @ w2

    def conv(x, f, strides=(1, 1), dilation=(1, 1), padding="SAME"):
        return jax.lax.conv_general_dilated(
            x, f, strides, padding, rhs_dilation=dilation, dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    def dwconv(x, f, padding="SAME"):  # TF's depthwise filter [kh, kw, in, m] as XLA's grouped convolution
        kernel = f.reshape(f.shape[0], f.shape[1], 1, f.shape[2] * f.shape[3])
        return jax.lax.conv_general_dilated(
            x, kernel, (1, 1), padding, dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=x.shape[3]
        )

    fns = {
        "identity": lambda x: x,
        "add": lambda a, b: a + b,
        "multiply": lambda a, b: a * b,
        "relu": jax.nn.relu,
        "exp": jnp.exp,
        "tanh": jnp.tanh,
        "sum0": lambda x: x.sum(0),
        "sum1": lambda x: x.sum(1),
        "sumall": lambda x: x.sum(),
        "max0": lambda x: x.max(0),
        "mean0": lambda x: x.mean(0),
        "dot": lambda a, b: a @ b,
        "bdot": lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
        "dot_grad": lambda a, b, g: jax.vjp(lambda a, b: a @ b, a, b)[1](g),
        "transpose": lambda x: x.T,
        "reshape_16_4_8": lambda x: x.reshape(16, 4, 8),
        "reshape_flat": lambda x: x.reshape(-1),
        "slice_rows": lambda x: x[2:10],
        "concat1": lambda a, b: jnp.concatenate([a, b], 1),
        "softmax": lambda x: jax.nn.softmax(x, -1),
        "xent": lambda lg, lb: -jnp.take_along_axis(jax.nn.log_softmax(lg, -1), lb[:, None], 1)[:, 0],
        "gather": lambda t, i: t[i],
        "conv": conv,
        "conv_s2": lambda x, f: conv(x, f, (2, 2)),
        "conv_d2": lambda x, f: conv(x, f, dilation=(2, 2)),
        "conv_dx": lambda x, f, g: jax.vjp(lambda x: conv(x, f), x)[1](g)[0],
        "conv_dx_s2": lambda x, f, g: jax.vjp(lambda x: conv(x, f, (2, 2)), x)[1](g)[0],
        "conv_df": lambda x, f, g: jax.vjp(lambda f: conv(x, f), f)[1](g)[0],
        "dwconv": dwconv,
        "dwconv_pads": lambda x, f: dwconv(x, f, PADS),
        "dwconv_dx": lambda x, f, g: jax.vjp(lambda x: dwconv(x, f), x)[1](g)[0],
        "dwconv_df": lambda x, f, g: jax.vjp(lambda f: dwconv(x, f), f)[1](g)[0],
        "conv_pads": lambda x, f: conv(x, f, padding=PADS),
        "conv_pads_misaligned": lambda x, f: conv(x, f, padding=PADS_MISALIGNED),
        "conv_pads_dx": lambda x, f, g: jax.vjp(lambda x: conv(x, f, padding=PADS), x)[1](g)[0],
        "conv_pads_df": lambda x, f, g: jax.vjp(lambda f: conv(x, f, padding=PADS), f)[1](g)[0],
        "gather_dt": lambda t, i, g: jax.vjp(lambda t: t[i], t)[1](g)[0],
        "slice_dx": lambda x, g: jax.vjp(lambda x: x[2:10], x)[1](g)[0],
        "mlp": mlp,
        "mlp_grad": jax.value_and_grad(lambda x, w1, w2: mlp(x, w1, w2).sum(), argnums=(1, 2)),
        "mlp_grad_all": jax.value_and_grad(lambda x, w1, w2: mlp(x, w1, w2).sum(), argnums=(0, 1, 2)),
    }
    devices = np.array(jax.devices()[:8])
    out = {"jax_version": jax.__version__, "cases": {}}
    for name, (mesh_name, fn, args, out_spec) in CASES.items():
        shape, axes = MESHES[mesh_name]
        mesh = Mesh(devices.reshape(shape), axes)
        in_sh = tuple(NamedSharding(mesh, P(*spec)) for _, spec, _ in args)
        kwargs = {"in_shardings": in_sh}
        if isinstance(out_spec, list):
            kwargs["out_shardings"] = tuple(NamedSharding(mesh, P(*o)) for o in out_spec)
        elif out_spec is not None:
            kwargs["out_shardings"] = NamedSharding(mesh, P(*out_spec))
        scale = WINDOWED.get(name, 1)
        # Shapes only (nothing allocated): the windowed cases' operands are far beyond host memory.
        values = [
            jax.ShapeDtypeStruct(tuple(d * scale for d in s), jnp.int32 if d == "s32" else jnp.float32)
            for s, _, d in args
        ]
        compiled = jax.jit(fns[fn], **kwargs).lower(*values).compile()
        text = compiled.as_text()
        outs = jax.tree_util.tree_leaves(compiled.output_shardings)
        avals = jax.tree_util.tree_leaves(jax.eval_shape(fns[fn], *values))
        out["cases"][name] = {
            "collectives": [unscaled(e, scale) for e in parse_hlo(text)],
            "out_shard_shapes": [
                [d // scale for d in s.shard_shape(a.shape)] for s, a in zip(outs, avals, strict=True)
            ],
        }
    return out


def unscaled(entry: dict, scale: int) -> dict:
    if scale == 1:
        return entry
    assert all(d % scale == 0 for d in entry["shape"]), entry
    return dict(entry, shape=[d // scale for d in entry["shape"]])


_COLLECTIVE = re.compile(
    r"%([\w.\-]+) = (\(.*\)|\w+\[[\d,]*\][^ ]*) (all-gather|all-reduce|reduce-scatter|"
    r"all-to-all|collective-permute)\("
)


def parse_groups(line: str):
    m = re.search(
        r"replica_groups=mesh\[([^\]]*)\](?:, device_ids=\(\[([\d,]+)\](?:T\(([\d,]+)\))?\))?\s*\{([^}]*)\}", line
    )
    if m:
        dims = [(k.strip("'"), int(v)) for k, v in (p.split("=") for p in m.group(1).split(","))]
        total = math.prod(v for _, v in dims)
        ids = np.arange(total)
        if m.group(2):
            ids = ids.reshape([int(v) for v in m.group(2).split(",")])
            if m.group(3):
                ids = ids.transpose([int(v) for v in m.group(3).split(",")])
        # Split every axis named with a sub-axis 'name':(pre)size into [pre, size, rest]; vary over the parts named.
        shape, labels = [], []
        subaxes = {a: (int(p), int(z)) for a, p, z in re.findall(r"'(\w+)':\((\d+)\)(\d+)", m.group(4))}
        for name, size in dims:
            if name in subaxes:
                pre, sub = subaxes[name]
                shape += [pre, sub, size // (pre * sub)]
                labels += [name + ":pre", name, name + ":rest"]
            else:
                shape.append(size)
                labels.append(name)
        grid = ids.reshape(shape)
        vary = [labels.index(a) for a in re.findall(r"'(\w+)'", m.group(4))]
        keep = [i for i in range(len(shape)) if i not in vary]
        size = math.prod(shape[i] for i in vary) if vary else 1
        return [list(map(int, g)) for g in grid.transpose(keep + vary).reshape(-1, size)]
    m = re.search(r"replica_groups=\[([\d,]+)\]<=\[([\d,]+)\](T\(([\d,]+)\))?", line)
    if m:
        shape = [int(v) for v in m.group(1).split(",")]
        base = np.arange(math.prod(int(v) for v in m.group(2).split(","))).reshape(
            [int(v) for v in m.group(2).split(",")]
        )
        if m.group(4):
            base = base.transpose([int(v) for v in m.group(4).split(",")])
        return [list(map(int, g)) for g in base.reshape(shape)]
    m = re.search(r"replica_groups=\{(\{[\d,{}]*\})\}", line)
    if m:
        return [list(map(int, g.split(","))) for g in re.findall(r"\{([\d,]+)\}", m.group(1))]
    return None


def _computations(lines: list[str]) -> tuple[dict[str, tuple[int, int]], str | None]:
    """Each computation's line range (body lines only) and the entry computation's name."""
    comps: dict[str, tuple[int, int]] = {}
    entry, name, start = None, None, 0
    for i, line in enumerate(lines):
        m = re.match(r"(ENTRY )?%([\w.\-]+) \(.*\{\s*$", line)
        if m:
            name, start = m.group(2), i + 1
            entry = name if m.group(1) else entry
        elif line.startswith("}") and name is not None:
            comps[name] = (start, i)
            name = None
    return comps, entry


def parse_hlo(text: str) -> list[dict]:
    """The collectives in execution order: the entry computation's, with every while loop's body expanded once
    per iteration (its known trip count). In XLA's windowed einsum loop the collective-permute sits in a
    conditional taken on every iteration but the last (window_collective_permute / last_iteration_noop)."""
    lines = text.splitlines()
    comps, entry = _computations(lines)
    entries: list[dict] = []
    if entry is None:
        for i in range(len(lines)):
            entries += _collectives_at(lines, i)
        return entries

    def visit(name: str, loop: tuple[int, int] | None) -> None:
        for i in range(*comps[name]):
            line = lines[i]
            w = re.search(r" while\(.*\bbody=%([\w.\-]+)", line)
            if w:
                trips = int(re.search(r'"known_trip_count":\{"n":"(\d+)"\}', line).group(1))
                for iteration in range(trips):
                    visit(w.group(1), (iteration, trips))
                continue
            c = re.search(r" conditional\(.*\btrue_computation=%(window_collective_permute[\w.\-]*)", line)
            if c:
                if loop is not None and loop[0] + 1 < loop[1]:
                    visit(c.group(1), loop)
                continue
            entries.extend(_collectives_at(lines, i))

    visit(entry, None)
    return entries


def _collectives_at(lines: list[str], i: int) -> list[dict]:
    line = lines[i]
    m = _COLLECTIVE.search(line)
    if not m or "-start" in line.split("=")[1][:40]:
        return []
    name, shape_text, kind = m.groups()
    shape = [int(v) for v in re.search(r"\[([\d,]*)\]", shape_text).group(1).split(",") if v]
    entry = {"kind": kind, "shape": shape}
    if kind == "collective-permute":
        pairs = re.search(r"source_target_pairs=\{([\d,{}]*)\}", line)
        entry["pairs"] = sorted([list(map(int, p.split(","))) for p in re.findall(r"\{(\d+,\d+)\}", pairs.group(1))])
    else:
        entry["groups"] = parse_groups(line)
    dims = re.search(r"dimensions=\{(\d+)\}", line)
    if dims:
        entry["dimension"] = int(dims.group(1))
    if kind == "all-reduce":  # all-reduce + dynamic-slice of it = reduce-scatter on TPU
        for later in lines[i + 1 :]:
            if re.search(rf"\(%{re.escape(name)}[,)]", later) and "dynamic-slice" in later.split("=")[0]:
                entry["kind"] = "reduce-scatter"
                entry["shape"] = [int(v) for v in re.search(r"= \w+\[([\d,]*)\]", later).group(1).split(",") if v]
                break
    if kind == "all-reduce" and shape_text.startswith("("):
        # XLA's all-reduce combiner merged independent all-reduces into one tuple: one entry per element.
        return [
            dict(entry, shape=[int(v) for v in element.split(",") if v])
            for element in re.findall(r"\w+\[([\d,]*)\]", shape_text)
        ]
    return [entry]


# ======================================================================== tpustrategy side
def to_sharding(core, mesh_name: str, spec, rank: int):
    shape, names = MESHES[mesh_name]
    dims_axes = spec_tuple(spec, rank)
    used = [a for axes in dims_axes for a in axes]
    unused = [a for a in names if a not in used]
    grid = np.arange(math.prod(shape)).reshape(shape).transpose([names.index(a) for a in used + unused])
    tiles = [math.prod(shape[names.index(a)] for a in axes) for axes in dims_axes]
    repl = math.prod(shape[names.index(a)] for a in unused)
    if math.prod(tiles) == 1:
        return core.spmd.Sharding.replicated()
    devices = [int(d) for d in grid.reshape(tiles + [repl]).reshape(-1)]
    return core.spmd.Sharding.tiled(tiles + ([repl] if repl > 1 else []), devices, last_tile_dim_replicate=repl > 1)


def run_tpustrategy(name: str) -> dict:
    from tpustrategy import _core
    from tpustrategy.tpu import spmd_partitioner  # noqa: F401  (registers devices)

    mesh_name, fn, args, out_spec = CASES[name]
    cores = _cores()
    spmd = _core.spmd
    ctx = spmd.SpmdContext(cores)
    if name in WINDOWED:
        rank = len(args[0][0])
        ctx.windowed_einsum_threshold_bytes = -(-XLA_CPU_WINDOWED_THRESHOLD // WINDOWED[name] ** rank)
    rng = np.random.default_rng(0)
    values = []
    for shape, spec, dtype in args:
        data = (
            rng.integers(0, 8, shape).astype(np.int32)
            if dtype == "s32"
            else rng.standard_normal(shape).astype(np.float32)
        )
        values.append(
            _core.spmd.ShardedTensor.shard(
                _core.tensor.convert_to_tensor(data), to_sharding(_core, mesh_name, spec, len(shape)), cores
            )
        )
    out_sharding = None
    if out_spec is not None and not isinstance(out_spec, list):
        rank = {
            "sum0": 1,
            "sum1": 1,
            "max0": 1,
            "mean0": 1,
            "sumall": 0,
            "xent": 1,
            "gather": 3,
            "reshape_flat": 1,
            "reshape_16_4_8": 3,
        }.get(fn, len(args[0][0]))
        out_sharding = to_sharding(_core, mesh_name, out_spec, rank)
    v = values
    if fn == "identity":
        results = [spmd.reshard(ctx, v[0], out_sharding)]
        out_sharding = None
    elif fn in ("add", "multiply"):
        results = [spmd.binary(ctx, fn, v[0], v[1])]
    elif fn in ("relu", "exp", "tanh"):
        results = [spmd.unary(ctx, fn, v[0])]
    elif fn in ("sum0", "sum1", "max0", "mean0", "sumall"):
        kind = {"sum0": "sum", "sum1": "sum", "max0": "max", "mean0": "mean", "sumall": "sum"}[fn]
        axes = {"sum0": [0], "sum1": [1], "max0": [0], "mean0": [0], "sumall": [0, 1]}[fn]
        results = [spmd.reduce(ctx, kind, v[0], axes, keepdims=False)]
    elif fn in ("dot", "bdot"):
        results = [spmd.matmul(ctx, v[0], v[1], out_sharding=out_sharding)]
    elif fn == "dot_grad":  # the gradients come in the operands' shardings, as the case's out_shardings ask
        results = list(spmd.matmul_grad(ctx, v[0], v[1], v[2]))
    elif fn == "transpose":
        results = [spmd.transpose(ctx, v[0], [1, 0])]
    elif fn == "reshape_16_4_8":
        results = [spmd.reshape(ctx, v[0], [16, 4, 8])]
    elif fn == "reshape_flat":
        results = [spmd.reshape(ctx, v[0], [512])]
    elif fn == "slice_rows":
        results = [spmd.slice(ctx, v[0], [2, 0], [8, 32])]
    elif fn == "concat1":
        results = [spmd.concat(ctx, [v[0], v[1]], 1)]
    elif fn == "softmax":
        results = [spmd.softmax(ctx, v[0], -1)]
    elif fn == "xent":
        results = [spmd.sparse_softmax_cross_entropy(ctx, v[0], v[1])]
    elif fn == "gather":
        results = [spmd.gather(ctx, v[0], v[1])]
    elif fn == "conv":
        results = [spmd.conv2d(ctx, v[0], v[1], "SAME")]
    elif fn in ("conv_s2", "conv_d2"):
        window = {"strides": [2, 2]} if fn == "conv_s2" else {"dilations": [2, 2]}
        results = [spmd.conv2d(ctx, v[0], v[1], "SAME", **window)]
    elif fn in ("conv_dx", "conv_dx_s2"):
        results = [
            spmd.conv2d_input_grad(ctx, v[0], v[1], v[2], "SAME", strides=[2, 2] if fn == "conv_dx_s2" else [1, 1])
        ]
    elif fn == "conv_df":
        results = [spmd.conv2d_filter_grad(ctx, v[0], v[1], v[2], "SAME")]
    elif fn in ("dwconv", "dwconv_pads", "conv_pads", "conv_pads_misaligned"):
        forward = spmd.conv2d if fn.startswith("conv") else spmd.depthwise_conv2d
        pads = PADS_MISALIGNED if fn == "conv_pads_misaligned" else PADS
        window = {"padding": "EXPLICIT", "explicit_paddings": [v for p in pads for v in p]} if "pads" in fn else {}
        results = [forward(ctx, v[0], v[1], **window)]
    elif fn in ("dwconv_dx", "dwconv_df", "conv_pads_dx", "conv_pads_df"):
        op = "conv2d" if fn.startswith("conv") else "depthwise_conv2d"
        grad = getattr(spmd, op + ("_input_grad" if fn.endswith("dx") else "_filter_grad"))
        window = {"padding": "EXPLICIT", "explicit_paddings": [v for p in PADS for v in p]} if "pads" in fn else {}
        results = [grad(ctx, v[0], v[1], v[2], **window)]
    elif fn == "gather_dt":
        results = [spmd.gather_grad(ctx, v[0], v[1], v[2])]
    elif fn == "slice_dx":
        results = [spmd.slice_grad(ctx, v[0], [2, 0], v[1])]
    elif fn == "mlp":
        results = [spmd.matmul(ctx, spmd.unary(ctx, "relu", spmd.matmul(ctx, v[0], v[1])), v[2])]
    elif fn in ("mlp_grad", "mlp_grad_all"):
        h = spmd.matmul(ctx, v[0], v[1])
        r = spmd.unary(ctx, "relu", h)
        y = spmd.matmul(ctx, r, v[2])
        loss = spmd.reduce(ctx, "sum", y, [0, 1], keepdims=False)
        ones = _core.spmd.ShardedTensor.shard(
            _core.tensor.convert_to_tensor(np.ones((), np.float32)), _core.spmd.Sharding.replicated(), cores
        )
        dy = spmd.reduce_grad(ctx, "sum", y, [0, 1], ones)
        dr, dw2 = spmd.matmul_grad(ctx, r, v[2], dy)
        dh = spmd.unary_grad(ctx, "relu", h, dr)
        # x's gradient only when asked for (otherwise XLA drops it as dead code, and its all-reduce)
        dx, dw1 = spmd.matmul_grad(ctx, v[0], v[1], dh, want_a=fn == "mlp_grad_all")
        results = [loss, dx, dw1, dw2] if fn == "mlp_grad_all" else [loss, dw1, dw2]
    else:
        raise ValueError(fn)
    if out_sharding is not None and fn not in ("dot", "bdot"):
        results = [spmd.reshard(ctx, results[0], out_sharding, why="out_shardings")]
    record = ctx.record
    collectives = []
    for e in record.entries:
        if e.kind != "collective":
            continue
        entry = {"kind": e.name, "shape": list(next(s for s in e.shard_shapes if s is not None))}
        if e.pairs:
            entry["pairs"] = sorted([list(p) for p in e.pairs])
        else:
            entry["groups"] = [list(g) for g in e.groups]
        collectives.append(entry)
    shapes = [list(next(s.shape.as_list() for s in r.shards if s is not None)) for r in results]
    return {"collectives": collectives, "out_shard_shapes": shapes}


_CORES = []


def _cores():
    if not _CORES:
        import tpustrategy as tf
        from tpustrategy.tpu.device_assignment import DeviceAssignment

        topology = tf.tpu.experimental.initialize_tpu_system()
        da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
        strategy = tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=True)
        # Logical core k must be device k of the JAX mesh: order the cores by their logical index.
        _CORES.extend(strategy.extended._logical_grid[0])
    return _CORES


def normalized(entries: list[dict]) -> list[tuple]:
    out = []
    for e in entries:
        if e["kind"] == "collective-permute":
            pairs = tuple(tuple(p) for p in e["pairs"] if p[0] != p[1])
            if pairs:
                out.append(("collective-permute", pairs, tuple(d for d in e["shape"] if d != 1)))
            continue
        groups = e.get("groups") or []
        if groups and all(len(g) == 1 for g in groups):
            continue  # a collective over groups of one moves nothing
        # Shapes compare without size-1 dimensions (XLA reduces without keepdims; ours may keep them), and not
        # for all-to-all (XLA's tuple all-to-all exchanges reshaped pieces, ours whole chunks).
        shape = () if e["kind"] == "all-to-all" else tuple(d for d in e["shape"] if d != 1)
        out.append((e["kind"], tuple(sorted(tuple(g) for g in groups)), shape))
    return out


def permute_runs_sorted(entries: list[tuple]) -> list[tuple]:
    """Each run of consecutive collective-permutes in a canonical order: XLA schedules the independent permutes of
    a halo exchange in either order (its filter-gradient convolution sends the width halos in the other order than
    its forward one), and the shapes still tell a width halo (carrying the height halo) from a height one."""
    out, run = [], []
    for e in [*entries, None]:
        if e is not None and e[0] == "collective-permute":
            run.append(e)
            continue
        out += sorted(run)
        run = []
        if e is not None:
            out.append(e)
    return out


def compare(ours: dict, xla: dict) -> tuple[bool, str]:
    a, b = permute_runs_sorted(normalized(ours["collectives"])), permute_runs_sorted(normalized(xla["collectives"]))
    if [k for k, *_ in a] != [k for k, *_ in b]:
        return False, f"kinds differ: ours {[k for k, *_ in a]} vs XLA {[k for k, *_ in b]}"
    for (k, ga, sa), (_, gb, sb) in zip(a, b, strict=True):
        if ga != gb:
            return False, f"{k} groups differ: ours {ga} vs XLA {gb}"
        if sa != sb:
            return False, f"{k} shapes differ: ours {list(sa)} vs XLA {list(sb)}"
    if ours["out_shard_shapes"] != xla["out_shard_shapes"]:
        return False, f"result shard shapes differ: ours {ours['out_shard_shapes']} vs XLA {xla['out_shard_shapes']}"
    return True, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jax", action="store_true", help="run the XLA side and rewrite " + str(DATA))
    args = parser.parse_args()
    if args.jax:
        DATA.write_text(json.dumps(run_jax(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {DATA}")
        return 0
    xla = json.loads(DATA.read_text())["cases"]
    agree, known, differ = [], [], []
    for name in CASES:
        ok, why = compare(run_tpustrategy(name), xla[name])
        (agree if ok else known if name in KNOWN else differ).append((name, why))
    for name, why in known:
        print(f"KNOWN   {name}: {why}\n        reason: {KNOWN[name]}")
    for name, why in differ:
        print(f"DIFFER  {name}: {why}")
    print(
        f"{len(agree)} of {len(CASES)} cases agree with XLA; {len(known)} differ for a documented reason; "
        f"{len(differ)} differ without one"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
