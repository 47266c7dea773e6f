"""gluon.data: datasets and the DataLoader give MXNet 1.9.1's batches, in order, with 0 or 2 workers."""
import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime.gluon import data as gdata
from recorded import RECORDED, as_plain

REC = RECORDED["dataloader"]
DATA = np.arange(22, dtype=np.float32).reshape(11, 2)
LABEL = np.arange(11) * 10


def _double_plus_one(x):
    return x * 2 + 1


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("last", ["keep", "discard", "rollover"])
def test_batches_and_last_batch_handling_equal_mxnet_over_two_epochs(workers, last):
    loader = gdata.DataLoader(gdata.ArrayDataset(DATA, LABEL), batch_size=4, last_batch=last, num_workers=workers)
    epochs = [[as_plain(b) for b in loader] for _ in range(2)]
    assert epochs == REC[f"workers{workers}_{last}"]


@pytest.mark.parametrize("workers", [0, 2])
def test_shuffled_transformed_batches_follow_numpys_seed_as_mxnet(workers):
    np.random.seed(7)
    ds = gdata.ArrayDataset(mx.nd.array(DATA), LABEL).transform_first(_double_plus_one)
    loader = gdata.DataLoader(ds, batch_size=3, shuffle=True, num_workers=workers)
    assert [as_plain(b) for b in loader] == REC[f"workers{workers}_shuffle_transform"]


def test_thread_pool_workers_give_the_same_batches():
    loader = gdata.DataLoader(gdata.ArrayDataset(DATA, LABEL), batch_size=4, last_batch="rollover",
                              num_workers=2, thread_pool=True)
    assert [[as_plain(b) for b in loader] for _ in range(2)] == REC["workers0_rollover"]


def test_tuples_of_python_numbers_keep_their_dtypes():
    loader = gdata.DataLoader(gdata.SimpleDataset([(i, float(i) / 2) for i in range(5)]), batch_size=2)
    assert [as_plain(b) for b in loader] == REC["simple_tuples"]


def test_custom_batchify_fn_and_batch_sampler():
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(7))), batch_size=3,
                              batchify_fn=lambda s: mx.nd.array(s) * 3)
    assert [as_plain(b) for b in loader] == REC["batchify_fn"]
    bs = gdata.BatchSampler(gdata.SequentialSampler(7, start=2), 3, "keep")
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(10))), batch_sampler=bs)
    assert [as_plain(b) for b in loader] == REC["batch_sampler"]
    assert len(loader) == 3


def test_workers_can_use_a_lambda_batchify_fn():
    loader = gdata.DataLoader(gdata.SimpleDataset(list(range(7))), batch_size=3, num_workers=2,
                              batchify_fn=lambda s: mx.nd.array(s) * 3)
    assert [as_plain(b) for b in loader] == REC["batchify_fn"]


def test_dataset_filter_shard_take_sample():
    ds = gdata.SimpleDataset(list(range(10)))
    got = {"filter": list(ds.filter(lambda x: x % 3 == 0)), "shard": list(ds.shard(3, 1)),
           "take": list(ds.take(4)), "sample": list(ds.sample(gdata.SequentialSampler(3, 5)))}
    assert got == REC["dataset_ops"]


def test_transform_eager_and_lazy():
    ds = gdata.ArrayDataset(np.arange(4), np.arange(4) * 2)
    lazy = ds.transform(lambda x, y: (x + 1, y))
    eager = ds.transform(lambda x, y: (x + 1, y), lazy=False)
    assert isinstance(eager, gdata.SimpleDataset)
    assert [tuple(map(int, s)) for s in lazy] == [tuple(map(int, s)) for s in eager] == [(1, 0), (2, 2), (3, 4), (4, 6)]


def test_argument_conflicts_are_refused_as_mxnet():
    ds = gdata.SimpleDataset(list(range(4)))
    with pytest.raises(ValueError, match="batch_size must be specified"):
        gdata.DataLoader(ds)
    with pytest.raises(ValueError, match="shuffle must not be specified"):
        gdata.DataLoader(ds, batch_size=2, shuffle=True, sampler=gdata.SequentialSampler(4))
    with pytest.raises(ValueError, match="must not be specified if batch_sampler"):
        gdata.DataLoader(ds, batch_size=2, batch_sampler=gdata.BatchSampler(gdata.SequentialSampler(4), 2))


def test_worker_loader_can_be_abandoned_midway_and_iterated_again():
    loader = gdata.DataLoader(gdata.ArrayDataset(DATA, LABEL), batch_size=4, num_workers=2, prefetch=3)
    for i, _ in enumerate(loader):
        if i == 0:
            break
    assert [as_plain(b) for b in loader] == REC["workers2_keep"][0]
