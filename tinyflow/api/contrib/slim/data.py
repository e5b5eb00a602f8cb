"""slim's data pipeline (TF 1.15): dataset.Dataset, parallel_reader (parallel_read, ParallelReader,
get_data_files) and dataset_data_provider.DatasetDataProvider, on tinyflow's queues and readers:
files -> readers -> a common queue of (key, serialized record) -> the dataset's decoder."""
from tinyflow.api.gfile import Glob
from tinyflow.api.train.input import string_input_producer
from tinyflow.api.train.queue_runner import QueueRunner, add_queue_runner
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import name_scope
from tinyflow.ops.queue_ops import FIFOQueue, RandomShuffleQueue


class Dataset:
    """The files of a dataset, how to read them (reader class) and decode them (decoder)."""

    def __init__(self, data_sources, reader, decoder, num_samples, items_to_descriptions, **kwargs):
        kwargs.update(data_sources=data_sources, reader=reader, decoder=decoder, num_samples=num_samples,
                      items_to_descriptions=items_to_descriptions)
        self.__dict__.update(kwargs)


def get_data_files(data_sources):
    """The files matched by data_sources (a pattern or a list of them); ValueError when none."""
    sources = data_sources if isinstance(data_sources, (list, tuple)) else [data_sources]
    files = []
    for source in sources:
        files.extend(Glob(source) if any(c in source for c in "*?[") else [source])
    if not files:
        raise ValueError("No data files found in %s" % (data_sources,))
    return files


class ParallelReader:
    """num_readers readers of one filename queue, each enqueueing (key, value) into common_queue
    through a QueueRunner; read() dequeues from it."""

    def __init__(self, reader_class, common_queue, num_readers=4, reader_kwargs=None):
        if len(common_queue.dtypes) != 2:
            raise TypeError("common_queue.dtypes must be [tf.string, tf.string]")
        self._readers = [reader_class(**(reader_kwargs or {})) for _ in range(num_readers)]
        self._common_queue = common_queue

    @property
    def common_queue(self):
        return self._common_queue

    def read(self, queue, name=None):
        enqueue_ops = [self._common_queue.enqueue(reader.read(queue)) for reader in self._readers]
        add_queue_runner(QueueRunner(self._common_queue, enqueue_ops))
        return self._common_queue.dequeue(name=name)


def parallel_read(data_sources, reader_class, num_epochs=None, num_readers=4, reader_kwargs=None, shuffle=True,
                  dtypes=None, capacity=256, min_after_dequeue=128, seed=None, scope=None):
    """(key, value) tensors of the records of data_sources, read by num_readers readers."""
    data_files = get_data_files(data_sources)
    with name_scope(scope, "parallel_read"):
        filename_queue = string_input_producer(data_files, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                               name="filenames")
        dtypes = dtypes or [dt.string, dt.string]
        if shuffle:
            common_queue = RandomShuffleQueue(capacity, min_after_dequeue, dtypes, seed=seed, name="common_queue")
        else:
            common_queue = FIFOQueue(capacity, dtypes, name="common_queue")
        return ParallelReader(reader_class, common_queue, num_readers, reader_kwargs).read(filename_queue)


class DataProvider:
    """Named tensors of one sample: get(items) gives them in order."""

    def __init__(self, items_to_tensors, num_samples):
        self._items_to_tensors = items_to_tensors
        self._num_samples = num_samples

    def get(self, items):
        for item in items:
            if item not in self._items_to_tensors:
                raise ValueError("Item %s is not a valid item. Valid items are %s" % (
                    item, list(self._items_to_tensors)))
        return [self._items_to_tensors[item] for item in items]

    def list_items(self):
        return list(self._items_to_tensors)

    def num_samples(self):
        return self._num_samples


class DatasetDataProvider(DataProvider):
    """The decoded items of a Dataset's records (plus record_key, the record's key), read by
    parallel_read (start the queue runners to run it)."""

    def __init__(self, dataset, num_readers=1, reader_kwargs=None, shuffle=True, num_epochs=None,
                 common_queue_capacity=256, common_queue_min=128, record_key="record_key", seed=None, scope=None):
        key, data = parallel_read(dataset.data_sources, reader_class=dataset.reader, num_epochs=num_epochs,
                                  num_readers=num_readers, reader_kwargs=reader_kwargs, shuffle=shuffle,
                                  capacity=common_queue_capacity, min_after_dequeue=common_queue_min, seed=seed,
                                  scope=scope)
        items = dataset.decoder.list_items()
        items_to_tensors = dict(zip(items, dataset.decoder.decode(data, items)))
        if record_key in items_to_tensors:
            raise ValueError("The item name used for `record_key` cannot also be used for a dataset item: %s"
                             % record_key)
        items_to_tensors[record_key] = key
        super().__init__(items_to_tensors=items_to_tensors, num_samples=dataset.num_samples)
