"""tf.config (TF 1.15): the devices this process sees and the runtime switches scripts set.

Devices are JAX's (device_lib.list_local_devices). XLA owns device memory: set_memory_growth is
recorded and read back by get_memory_growth (XLA's allocator grows or preallocates per
XLA_PYTHON_CLIENT_PREALLOCATE, which must be set before JAX starts); the thread counts are recorded.
Connecting to a remote cluster (experimental_connect_to_cluster / _host: TF's remote eager) raises
UnimplementedError: tinyflow's multi-process jobs start with `python -m tinyflow --coordinator`.
"""
import collections
import types

from tinyflow.api import device_lib
from tinyflow.graph import errors

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
VirtualDeviceConfiguration = collections.namedtuple("VirtualDeviceConfiguration", ["memory_limit"])
VirtualDeviceConfiguration.__new__.__defaults__ = (None,)

_STATE = {"soft_placement": False, "memory_growth": {}, "visible": None, "intra_op": 0, "inter_op": 0,
          "virtual": {}, "device_policy": None, "synchronous": None, "jit": False}


def list_physical_devices(device_type=None):
    """PhysicalDevice('/physical_device:CPU:0', 'CPU'), ... (device_type: 'CPU', 'GPU' or None for all)."""
    out = []
    for d in device_lib.list_local_devices():
        kind, index = d.device_type, d.name.rsplit(":", 1)[1]
        if device_type is None or device_type.upper() == kind:
            out.append(PhysicalDevice("/physical_device:%s:%s" % (kind, index), kind))
    return out


def list_logical_devices(device_type=None):
    """LogicalDevice('/job:localhost/replica:0/task:0/device:CPU:0', 'CPU'), ... of the visible devices."""
    visible = _STATE["visible"]
    return [LogicalDevice("/job:localhost/replica:0/task:0/device:%s" % d.name.split("/physical_device:")[1],
                          d.device_type) for d in list_physical_devices(device_type)
            if visible is None or d in visible or d.device_type == "CPU"]


def experimental_list_devices():
    """The full names of the visible devices ('/job:localhost/replica:0/task:0/device:CPU:0', ...)."""
    return [d.name for d in list_logical_devices()]


def _check(device):
    if device not in list_physical_devices():
        raise ValueError("Unrecognized device: %s" % (device,))


def set_memory_growth(device, enable):
    """Recorded (XLA's allocator decides growth; see the module docstring)."""
    _check(device)
    _STATE["memory_growth"][device] = bool(enable)


def get_memory_growth(device):
    _check(device)
    return _STATE["memory_growth"].get(device, False)


def set_visible_devices(devices, device_type=None):
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        _check(d)
    _STATE["visible"] = devices


def get_visible_devices(device_type=None):
    visible = _STATE["visible"]
    return [d for d in list_physical_devices(device_type) if visible is None or d in visible]


def set_virtual_device_configuration(device, virtual_devices):
    _check(device)
    _STATE["virtual"][device] = list(virtual_devices)


def get_virtual_device_configuration(device):
    _check(device)
    return _STATE["virtual"].get(device)


def set_soft_device_placement(enabled):
    """Recorded; tinyflow always places an op it cannot put on the requested device on one it has."""
    _STATE["soft_placement"] = bool(enabled)


def get_soft_device_placement():
    return _STATE["soft_placement"]


def experimental_connect_to_cluster(cluster_spec_or_resolver, job_name="localhost", task_index=0, protocol=None):
    raise errors.UnimplementedError(None, None, "tf.config.experimental_connect_to_cluster connects to remote TF "
                                                "servers (remote eager); tinyflow has none: run the job's processes "
                                                "with `python -m tinyflow --coordinator HOST:PORT`")


def experimental_connect_to_host(remote_host=None, job_name="worker"):
    raise errors.UnimplementedError(None, None, "tf.config.experimental_connect_to_host connects to a remote TF "
                                                "server (remote eager); tinyflow has none")


def experimental_run_functions_eagerly(run_eagerly):
    """TF 1.15: tf.function bodies run as Python, untraced, when executing eagerly (for debugging). A
    tinyflow tf.function always runs its Python body at each call (into the graph being built, or op by op
    eagerly), so the switch is recorded (experimental_functions_run_eagerly) and changes no result."""
    _STATE["run_functions_eagerly"] = bool(run_eagerly)


def experimental_functions_run_eagerly():
    return _STATE.get("run_functions_eagerly", False)


def _setter(key):
    def set_(value):
        _STATE[key] = value
    return set_


threading = types.SimpleNamespace(
    get_intra_op_parallelism_threads=lambda: _STATE["intra_op"], set_intra_op_parallelism_threads=_setter("intra_op"),
    get_inter_op_parallelism_threads=lambda: _STATE["inter_op"], set_inter_op_parallelism_threads=_setter("inter_op"))
optimizer = types.SimpleNamespace(get_jit=lambda: _STATE["jit"], set_jit=_setter("jit"),
                                  get_experimental_options=lambda: {}, set_experimental_options=lambda options: None)
experimental = types.SimpleNamespace(
    list_physical_devices=list_physical_devices, list_logical_devices=list_logical_devices,
    set_memory_growth=set_memory_growth, get_memory_growth=get_memory_growth,
    set_visible_devices=set_visible_devices, get_visible_devices=get_visible_devices,
    set_virtual_device_configuration=set_virtual_device_configuration,
    get_virtual_device_configuration=get_virtual_device_configuration,
    VirtualDeviceConfiguration=VirtualDeviceConfiguration,
    get_device_policy=lambda: _STATE["device_policy"], set_device_policy=_setter("device_policy"),
    get_synchronous_execution=lambda: _STATE["synchronous"], set_synchronous_execution=_setter("synchronous"))
