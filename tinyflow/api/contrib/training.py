"""tf.contrib.training: HParams (hyperparameters parsed from "a=1,b=[2,3]" strings and JSON, with TF
1.15's type rules and error messages) and the checkpoint watchers evaluation loops use."""
import json
import numbers
import re

from tinyflow.api.train.tf_checkpoint import checkpoints_iterator, wait_for_new_checkpoint  # noqa: F401 (contrib.training's)

_PARAM = re.compile(r"""
  (?P<name>[a-zA-Z][\w\.]*)(\[\s*(?P<index>\d+)\s*\])?\s*=\s*
  ((?P<val>[^,\[]*)|\[(?P<vals>[^\]]*)\])($|,\s*)""", re.VERBOSE)


def _parse_fail(name, var_type, value, values):
    raise ValueError("Could not parse hparam '%s' of type '%s' with value '%s' in %s"
                     % (name, var_type.__name__, value, values))


def _reuse_fail(name, values):
    raise ValueError("Multiple assignments to variable '%s' in %s" % (name, values))


def _parser(name, type_, values):
    if type_ is not bool:
        return type_

    def parse_bool(text):
        if text in ("true", "True"):
            return True
        if text in ("false", "False"):
            return False
        try:
            return bool(int(text))
        except ValueError:
            _parse_fail(name, type_, text, values)
    return parse_bool


def parse_values(values, type_map, ignore_unknown=False):
    """{name: value, list of values, or {index: value}} from "x=5,L=[1,2],arr[1]=3", each parsed with
    the type `type_map` gives its name."""
    out, pos = {}, 0
    while pos < len(values):
        m = _PARAM.match(values, pos)
        if not m:
            raise ValueError("Malformed hyperparameter value: %s" % values[pos:])
        pos = m.end()
        name, index, val, vals = m.group("name"), m.group("index"), m.group("val"), m.group("vals")
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError("Unknown hyperparameter type for %s" % name)
        type_ = type_map[name]
        parse = _parser(name, type_, values)
        if val is not None:
            try:
                parsed = parse(val)
            except ValueError:
                _parse_fail(name, type_, val, values)
            if not index:
                if name in out:
                    _reuse_fail(name, values)
                out[name] = parsed
            else:
                slots = out.setdefault(name, {})
                if not isinstance(slots, dict):
                    _reuse_fail(name, values)
                if int(index) in slots:
                    _reuse_fail("{}[{}]".format(name, int(index)), values)
                slots[int(index)] = parsed
        elif vals is not None:
            if index is not None:
                raise ValueError("Assignment of a list to a list index.")
            if name in out:
                _reuse_fail(name, values)
            try:
                out[name] = [parse(e) for e in re.split("[ ,]", vals) if e]
            except ValueError:
                _parse_fail(name, type_, vals, values)
        else:
            _parse_fail(name, type_, "", values)
    return out


def _cast(name, param_type, value):
    """value as param_type when TF allows it (ints widen to floats; never str <-> number or bool)."""
    fail = "Could not cast hparam '%s' of type '%s' from value %r" % (name, param_type, value)
    if type(value) is param_type or issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise ValueError(fail)
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise ValueError(fail)
    if issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise ValueError(fail)
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise ValueError(fail)
    return param_type(value)


class HParams:
    """Named hyperparameters, each with the type of its first value (a list: of its first element)."""

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types = {}
        self._model_structure = model_structure
        if hparam_def is not None:
            raise ValueError("tinyflow's HParams are built from keyword arguments, not an HParamDef protobuf")
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        if getattr(self, name, None) is not None:
            raise ValueError("Hyperparameter name is reserved: %s" % name)
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError("Multi-valued hyperparameters cannot be empty: %s" % name)
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError("Must not pass a list for single-valued parameter: %s" % name)
            setattr(self, name, [_cast(name, param_type, v) for v in value])
        else:
            if is_list:
                raise ValueError("Must pass a list for multi-valued parameter: %s." % name)
            setattr(self, name, _cast(name, param_type, value))

    def del_hparam(self, name):
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Overrides from a "name=value,..." string; returns self."""
        return self.override_from_dict(parse_values(values, {n: t for n, (t, _) in self._hparam_types.items()}))

    def override_from_dict(self, values_dict):
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    set_from_map = override_from_dict

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json):
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key, default=None):
        if key not in self._hparam_types:
            return default
        if default is not None:
            param_type, is_list = self._hparam_types[key]
            fail = "Hparam '%s' of type '%s' is incompatible with default=%s" % (
                key, "list<%s>" % param_type if is_list else str(param_type), default)
            if is_list != isinstance(default, list):
                raise ValueError(fail)
            try:
                for v in default if is_list else [default]:
                    _cast(key, param_type, v)
            except ValueError as e:
                raise ValueError("%s. %s" % (fail, e)) from None
        return getattr(self, key)

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return ",".join("{}={}".format(k, v) for k, v in self.values().items())

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, str(sorted(self.values().items())))
