"""Variables created under a multi-process TPUStrategy start from process 0's initial value (as
MultiWorkerMirroredStrategy broadcasts the chief's), and ``distribute_datasets_from_function`` hands each process's
``dataset_fn`` the whole slice's InputContext: one input pipeline per host, ``input_pipeline_id`` the host's. With
``InputOptions(experimental_fetch_to_device=False)`` a distributed dataset's elements stay on their hosts' CPUs."""

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
on_host = tf.distribute.InputOptions(experimental_fetch_to_device=False)
first = next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(32), on_host)))
inputs = [[t.device, t.numpy().tolist()] for t in strategy.experimental_local_results(first)]
result = {"constant": components[0], "computed": [float(x) for x in np.asarray(computed.values[0])],
          "contexts": contexts, "inputs": inputs}
print(f"RESULT process {process}: {json.dumps(result)}", flush=True)
