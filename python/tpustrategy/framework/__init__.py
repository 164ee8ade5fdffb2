"""Tensors, shapes, dtypes and device placement (mirrors ``tensorflow.python.framework``)."""
