"""tf.contrib.learn.preprocessing (TF 1.15): VocabularyProcessor, CategoricalVocabulary, ByteProcessor and
TF's tokenizer, in plain Python as TF has them: the same token regex, the same ids (insertion order;
after min_frequency trimming, by descending count then alphabetically), the same pickled state, so a
vocabulary TF saved restores here (`VocabularyProcessor.restore`)."""
import collections
import io
import pickle
import re

import numpy as np

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """The tokens of each string: runs of capitals, capitalized words before a capital, words with ' and -."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Categories (words) to ids, 0 being the unknown token; frozen, unknown categories get 0."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        """How many ids, the unknown token's included."""
        return len(self._mapping)

    def freeze(self, freeze=True):
        self._freeze = freeze

    def get(self, category):
        """The id of `category`; a new one gets the next id unless frozen (then 0)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Counts `count` more of `category` (given an id if new)."""
        if self.get(category) > 0:
            self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps the categories seen more than min_frequency times (and fewer than max_frequency when it
        is > 0), re-numbered 1..n by descending count, ties alphabetically."""
        self._freq = sorted(sorted(self._freq.items(), key=lambda x: (isinstance(x[0], str), x[0])),
                            key=lambda x: x[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        idx = 1
        for category, count in self._freq:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = idx
            idx += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(self._freq[:idx - 1])

    def reverse(self, class_id):
        """The category of an id."""
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to support reverse() function.")
        return self._reverse_mapping[class_id]


class VocabularyProcessor:
    """Documents to fixed-length rows of word ids (0: unknown or padding), as TF 1.15's."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None, tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        """Learns the vocabulary of the documents (then trims it to min_frequency and freezes it)."""
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        """fit, then transform (a generator of int64 rows)."""
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields each document's word ids, an int64 row of max_document_length (cut or zero-padded)."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields each row of ids as its words joined by spaces."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        """Pickles this processor to `filename` (as TF)."""
        from tinyflow.api import gfile
        with gfile.GFile(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        """The processor pickled in `filename`, by tinyflow or by TF 1.15 (whose module paths are mapped here)."""
        from tinyflow.api import gfile
        with gfile.GFile(filename, "rb") as f:
            return _Unpickler(io.BytesIO(f.read())).load()


class ByteProcessor:
    """Documents to rows of their UTF-8 bytes (max_document_length, zero-padded)."""

    def __init__(self, max_document_length):
        self.max_document_length = max_document_length

    def fit(self, x):
        pass

    def fit_transform(self, x):
        return self.transform(x)

    def reverse(self, x):
        for data in x:
            document = np.trim_zeros(data.astype(np.int8), trim="b").tobytes()
            try:
                yield document.decode("utf-8")
            except UnicodeDecodeError:
                yield ""

    def transform(self, x):
        for document in x:
            if isinstance(document, str):
                document = document.encode("utf-8")
            buff = np.frombuffer(memoryview(document)[:self.max_document_length], dtype=np.uint8)
            yield np.pad(buff, (0, self.max_document_length - len(buff)), "constant")


_TF_MODULES = ("text", "categorical_vocabulary")


class _Unpickler(pickle.Unpickler):
    """Reads TF's pickles: its preprocessing classes (tensorflow.contrib.learn...preprocessing.text,
    .categorical_vocabulary) are this module's."""

    def find_class(self, module, name):
        parts = module.split(".")
        if parts[0] == "tensorflow" and "preprocessing" in parts and parts[-1] in _TF_MODULES + ("preprocessing",):
            return globals()[name]
        return super().find_class(module, name)
