"""Ragged tensors (``tf.RaggedTensor``) and the ``tf.ragged`` namespace."""
