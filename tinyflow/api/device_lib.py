"""The devices this process sees, as TF 1.15's device_lib.list_local_devices and Session.list_devices
describe them ('/device:CPU:0', 'CPU', memory limit)."""
import collections

DeviceAttributes = collections.namedtuple("DeviceAttributes", ["name", "device_type", "memory_limit",
                                                               "incarnation", "physical_device_desc"])


def list_local_devices(session_config=None):
    """One record per JAX device: '/device:CPU:0', '/device:GPU:0', ... (XLA owns the memory)."""
    import jax
    out = []
    for kind, jax_kind in (("CPU", "cpu"), ("GPU", "gpu")):
        try:
            devices = jax.devices(jax_kind)
        except RuntimeError:
            continue
        for i, d in enumerate(devices):
            stats = getattr(d, "memory_stats", lambda: None)() or {}
            out.append(DeviceAttributes("/device:%s:%d" % (kind, i), kind, int(stats.get("bytes_limit", 268435456)),
                                        int(d.id), "" if kind == "CPU" else "device: %d, name: %s" % (
                                            i, getattr(d, "device_kind", "GPU"))))
    return out
