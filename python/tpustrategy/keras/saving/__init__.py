"""Keras 3 weight files (``.weights.h5``)."""
