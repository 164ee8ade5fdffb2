"""Writes reference.json with the reference Keras 3.15 (TF 2.21): masks from Embedding(mask_zero) through Dense,
the masked loss, Softmax with a mask, Masking, and the merged mask of Add (developer only):

    ~/.cache/tpustrategy-references/bin/python tests_py/data/keras_masks/make_reference.py > tests_py/data/keras_masks/reference.json
"""

import json

import keras
import numpy as np

x = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)
emb = keras.layers.Embedding(5, 2, mask_zero=True)
d = keras.layers.Dense(1)
i = keras.Input((4,), dtype="int32")
h = emb(i)
o = d(h)
m = keras.Model(i, o)
m.set_weights([np.arange(10, dtype=np.float32).reshape(5, 2) / 10, np.array([[1.0], [2.0]], np.float32), np.array([0.5], np.float32)])
y = np.ones((2, 4, 1), np.float32)
m.compile("sgd", "mse")
out = {}
out["eval_loss"] = float(m.evaluate(x, y, verbose=0))
p = m(x)
out["pred"] = np.asarray(p).tolist()
out["mask"] = np.asarray(p._keras_mask).tolist() if hasattr(p, "_keras_mask") else None
sw = np.array([1.0, 3.0], np.float32)
# Softmax with mask
s = keras.layers.Softmax()
v = np.array([[1.0, 2.0, 3.0]], np.float32)
out["softmax_mask"] = np.asarray(s(v, mask=np.array([[True, False, True]]))).tolist()
# Masking layer
ml = keras.layers.Masking(mask_value=0.0)
z = np.array([[[1.0, 0.0], [0.0, 0.0], [2.0, 3.0]]], np.float32)
r = ml(z)
out["masking"] = np.asarray(r).tolist(); out["masking_mask"] = np.asarray(r._keras_mask).tolist()
out["compute_mask"] = np.asarray(emb.compute_mask(x)).tolist()
# Add merge of masks
a = keras.Input((3,), dtype="int32"); b = keras.Input((3,), dtype="int32")
e1 = keras.layers.Embedding(4, 2, mask_zero=True)(a); e2 = keras.layers.Embedding(4, 2, mask_zero=True)(b)
s2 = keras.layers.Add()([e1, e2])
mm = keras.Model([a, b], s2)
q = mm([np.array([[1, 0, 2]]), np.array([[0, 0, 3]])])
out["add_mask"] = np.asarray(q._keras_mask).tolist() if hasattr(q, "_keras_mask") else None
print(json.dumps(out))
