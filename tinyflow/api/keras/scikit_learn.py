"""tf.keras.wrappers.scikit_learn (TF 1.15): a Keras model behind scikit-learn's estimator interface.
`build_fn(**params)` returns a compiled model; the other sk_params go to fit / predict / evaluate."""
import copy
import inspect

import numpy as np


def _args(fn):
    return set(inspect.signature(fn).parameters)


class BaseWrapper:
    def __init__(self, build_fn=None, **sk_params):
        self.build_fn, self.sk_params = build_fn, sk_params
        self.check_params(sk_params)

    def check_params(self, params):
        """ValueError for a parameter neither the model's methods nor build_fn takes."""
        from tinyflow.api.keras.models import Sequential
        legal = [Sequential.fit, Sequential.predict, Sequential.evaluate]
        if self.build_fn is None:
            legal.append(self.__call__)
        elif not isinstance(self.build_fn, type) and callable(self.build_fn) and not inspect.isfunction(
                self.build_fn) and not inspect.ismethod(self.build_fn):
            legal.append(self.build_fn.__call__)
        else:
            legal.append(self.build_fn)
        for name in params:
            if not any(name in _args(fn) for fn in legal):
                if name != "nb_epoch":
                    raise ValueError("{} is not a legal parameter".format(name))

    def get_params(self, **params):
        res = copy.deepcopy(self.sk_params)
        res.update({"build_fn": self.build_fn})
        return res

    def set_params(self, **params):
        self.check_params(params)
        self.sk_params.update(params)
        return self

    def filter_sk_params(self, fn, override=None):
        """The sk_params (and `override`) that fn takes."""
        res = {k: v for k, v in self.sk_params.items() if k in _args(fn)}
        res.update({k: v for k, v in (override or {}).items() if k in _args(fn)})
        return res

    def fit(self, x, y, **kwargs):
        """Builds the model (build_fn with the parameters it takes) and fits it; returns the History."""
        from tinyflow.api.keras.models import Sequential
        if self.build_fn is None:
            self.model = self.__call__(**self.filter_sk_params(self.__call__))
        elif not isinstance(self.build_fn, type) and not inspect.isfunction(self.build_fn) and not \
                inspect.ismethod(self.build_fn):
            self.model = self.build_fn(**self.filter_sk_params(self.build_fn.__call__))
        else:
            self.model = self.build_fn(**self.filter_sk_params(self.build_fn))
        loss = self.model.loss
        if (loss == "categorical_crossentropy" or getattr(loss, "__name__", None) == "categorical_crossentropy") \
                and len(np.shape(y)) != 2:
            from tinyflow.api.keras.utils import to_categorical
            y = to_categorical(y)
        fit_args = self.filter_sk_params(Sequential.fit)
        fit_args.update(kwargs)
        return self.model.fit(x, y, **fit_args)


class KerasClassifier(BaseWrapper):
    """A classifier: fit takes class labels (any values), predict returns them."""

    def fit(self, x, y, sample_weight=None, **kwargs):
        y = np.array(y)
        if len(y.shape) == 2 and y.shape[1] > 1:
            self.classes_ = np.arange(y.shape[1])
        elif (len(y.shape) == 2 and y.shape[1] == 1) or len(y.shape) == 1:
            self.classes_ = np.unique(y)
            y = np.searchsorted(self.classes_, y)
        else:
            raise ValueError("Invalid shape for y: " + str(y.shape))
        self.n_classes_ = len(self.classes_)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return super().fit(x, y, **kwargs)

    def predict_proba(self, x, **kwargs):
        """Class probabilities; one sigmoid output becomes two columns [1 - p, p]."""
        from tinyflow.api.keras.models import Sequential
        probs = self.model.predict(x, **self.filter_sk_params(Sequential.predict, kwargs))
        if probs.shape[1] == 1:
            probs = np.hstack([1 - probs, probs])
        return probs

    def predict(self, x, **kwargs):
        return self.classes_[np.argmax(self.predict_proba(x, **kwargs), axis=-1)]

    def score(self, x, y, **kwargs):
        """The model's accuracy on (x, y) (it must be compiled with metrics=['accuracy'])."""
        from tinyflow.api.keras.models import Sequential
        y = np.searchsorted(self.classes_, y)
        loss = self.model.loss
        if (loss == "categorical_crossentropy" or getattr(loss, "__name__", None) == "categorical_crossentropy") \
                and len(np.shape(y)) != 2:
            from tinyflow.api.keras.utils import to_categorical
            y = to_categorical(y)
        outputs = self.model.evaluate(x, y, **self.filter_sk_params(Sequential.evaluate, kwargs))
        outputs = outputs if isinstance(outputs, list) else [outputs]
        for name, value in zip(self.model.metrics_names, outputs):
            if name in ("acc", "accuracy"):
                return value
        raise ValueError("The model is not configured to compute accuracy. You should pass `metrics=[\"accuracy\"]` "
                         "to the `model.compile()` method.")


class KerasRegressor(BaseWrapper):
    """A regressor: predict returns the outputs squeezed; score is minus the loss."""

    def predict(self, x, **kwargs):
        from tinyflow.api.keras.models import Sequential
        return np.squeeze(self.model.predict(x, **self.filter_sk_params(Sequential.predict, kwargs)))

    def score(self, x, y, **kwargs):
        from tinyflow.api.keras.models import Sequential
        loss = self.model.evaluate(x, y, **self.filter_sk_params(Sequential.evaluate, kwargs))
        return -(loss[0] if isinstance(loss, list) else loss)
