"""tf.contrib.data (TF 1.15): the tf.data.experimental transformations under their contrib names, and
the two contrib-only ones (batch_and_drop_remainder, padded_batch_and_drop_remainder)."""
from tinyflow.api.data.experimental import (AUTOTUNE, Counter, CsvDataset, TFRecordWriter,  # noqa: F401
                                            assert_element_shape, bucket_by_sequence_length, choose_from_datasets,
                                            copy_to_device, enumerate_dataset, get_single_element, group_by_window,
                                            make_batched_features_dataset, make_csv_dataset, map_and_batch,
                                            parallel_interleave, parse_example_dataset, prefetch_to_device, scan,
                                            shuffle_and_repeat, sliding_window_batch, unbatch, unique)


def batch_and_drop_remainder(batch_size):
    """`ds.batch(batch_size, drop_remainder=True)`: full batches only, so their size is static."""
    return lambda ds: ds.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """`ds.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)`."""
    return lambda ds: ds.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)


def sloppy_interleave(map_func, cycle_length, block_length=1):
    """parallel_interleave(sloppy=True): tinyflow gives the deterministic order, which TF allows."""
    return parallel_interleave(map_func, cycle_length, block_length, sloppy=True)
