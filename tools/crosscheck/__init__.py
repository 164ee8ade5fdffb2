"""Cases for tools/crosscheck_tf.py: small tf.distribute programs that run unchanged on `tf` and `tpustrategy`."""
