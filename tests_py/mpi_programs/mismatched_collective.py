"""Process 0's replicas reach an all_reduce with other shapes, dtypes or nest structure than the other processes'
(argv[1]: shape, dtype or structure); every process must leave with TF's error for the mistake, naming the
processes and their replicas, before any data moves (the local replicas agree with each other)."""

import sys

import tpustrategy as tf
from tpustrategy import errors

case = sys.argv[1]
strategy = tf.distribute.TPUStrategy()
process = strategy.cluster_resolver.task_id


def step():
    first = process == 0
    if case == "shape":  # the same element count: only the shapes say they differ
        value = tf.zeros([2, 3]) if first else tf.zeros([3, 2])
    elif case == "dtype":
        value = tf.zeros([4]) if first else tf.zeros([4], tf.int32)
    else:
        value = {"a": tf.zeros([2])} if first else {"b": tf.zeros([2])}
    return tf.distribute.get_replica_context().all_reduce("SUM", value)


try:
    strategy.run(step)
except errors.InvalidArgumentError as error:
    print(f"INVALID process {process}: {error}", flush=True)
    sys.exit(3)
except ValueError as error:
    print(f"VALUE process {process}: {error}", flush=True)
    sys.exit(4)
print(f"FINISHED process {process}", flush=True)
