"""Variables created under a multi-process TPUStrategy start from process 0's initial value (as
MultiWorkerMirroredStrategy broadcasts the chief's), and ``distribute_datasets_from_function`` hands each process's
``dataset_fn`` the whole slice's InputContext: one input pipeline per host, ``input_pipeline_id`` the host's."""

import json

import numpy as np

import tpustrategy as tf

strategy = tf.distribute.TPUStrategy()
process = strategy.cluster_resolver.task_id
with strategy.scope():
    constant = tf.Variable(np.full([3], float(process + 1), np.float32))  # differs per process
    computed = tf.Variable(lambda: tf.constant([float(process), 10.0 * (process + 1)]))
components = [[float(x) for x in np.asarray(c)] for c in constant.values]
assert all(c == components[0] for c in components), components  # this process's replicas agree too

contexts = []


def dataset_fn(context):
    contexts.append([context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync])
    return tf.data.Dataset.range(64).shard(context.num_input_pipelines, context.input_pipeline_id).batch(2)


strategy.distribute_datasets_from_function(dataset_fn)
result = {"constant": components[0], "computed": [float(x) for x in np.asarray(computed.values[0])],
          "contexts": contexts}
print(f"RESULT process {process}: {json.dumps(result)}", flush=True)
