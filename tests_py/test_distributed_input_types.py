"""tf.distribute.DistributedDataset / DistributedIterator: the public interfaces of distributed input.

Facts from TF 2.21: both kinds of distributed dataset (experimental_distribute_dataset and
distribute_datasets_from_function) are instances of tf.distribute.DistributedDataset, their iterators of
tf.distribute.DistributedIterator; a distributed dataset is not a tf.data.Dataset; the interfaces' public
members are element_spec and reduce (dataset) and element_spec, get_next, get_next_as_optional (iterator).
"""

from __future__ import annotations

import pytest

import tpustrategy as tf


@pytest.fixture(params=["experimental_distribute_dataset", "distribute_datasets_from_function"])
def distributed(request, two_logical_cpus):  # noqa: ARG001 (the fixture splits the CPU)
    strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
    if request.param == "experimental_distribute_dataset":
        return strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
    return strategy.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(8).batch(2))


def test_distributed_datasets_and_iterators_are_instances_of_the_interfaces(distributed):
    assert isinstance(distributed, tf.distribute.DistributedDataset)
    assert not isinstance(distributed, tf.data.Dataset)
    assert isinstance(iter(distributed), tf.distribute.DistributedIterator)


def test_compat_v1_iterator_is_a_distributed_iterator(two_logical_cpus):
    strategy = tf.compat.v1.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
    iterator = strategy.make_dataset_iterator(tf.data.Dataset.range(8).batch(4))
    assert isinstance(iterator, tf.distribute.DistributedIterator)


def test_interfaces_public_members_are_tfs():
    def public(cls):
        return sorted(m for m in dir(cls) if not m.startswith("_"))

    assert public(tf.distribute.DistributedDataset) == ["element_spec", "reduce"]
    assert public(tf.distribute.DistributedIterator) == ["element_spec", "get_next", "get_next_as_optional"]
    assert tf.distribute.DistributedDataset.__name__ == "DistributedDatasetInterface"
    assert tf.distribute.DistributedIterator.__name__ == "DistributedIteratorInterface"


def test_the_interface_itself_is_abstract():
    with pytest.raises(NotImplementedError, match="get_next"):
        tf.distribute.DistributedIterator().get_next()
    with pytest.raises(NotImplementedError, match="reduce"):
        tf.distribute.DistributedDataset().reduce(0, lambda state, x: state)
