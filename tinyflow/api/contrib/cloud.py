"""tf.contrib.cloud: Google Cloud's GCS and Bigtable clients, as errors naming what tinyflow has no client for."""
from tinyflow.graph import errors


def _needs_cloud(name):
    def fn(*args, **kwargs):
        raise errors.UnimplementedError(None, None, "tf.contrib.cloud.%s talks to Google Cloud (GCS / Bigtable), "
                                                    "which tinyflow has no client for; read local files, or copy "
                                                    "gs:// data to local disk first" % name)
    fn.__name__ = name
    return fn


configure_gcs = _needs_cloud("configure_gcs")


class BigtableClient:
    """tf.contrib.cloud.BigtableClient: an UnimplementedError naming Cloud Bigtable."""

    def __init__(self, project_id, instance_id, connection_pool_size=None, max_receive_message_size=None):
        _needs_cloud("BigtableClient")()
