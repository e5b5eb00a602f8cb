"""tf.keras.preprocessing.text: Tokenizer, text_to_word_sequence, one_hot, hashing_trick, as
Keras-Preprocessing 1.1 (TF 1.15's) has them, down to the order of word_index (counts descending,
ties in first-seen order) and the JSON of to_json / tokenizer_from_json.

`one_hot` and `hashing_trick` without `hash_function` use Python's built-in `hash`, which is salted per
process (PYTHONHASHSEED): their indices differ from run to run, as in TF. `hash_function='md5'` is stable.
"""
import json
from collections import OrderedDict, defaultdict
from hashlib import md5

import numpy as np

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(text, filters=_FILTERS, lower=True, split=" "):
    """The words of `text`: lower-cased, each character of `filters` turned into `split`, split on it,
    empty pieces dropped."""
    if lower:
        text = text.lower()
    text = text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in text.split(split) if w]


def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" "):
    """Each word's `hash_function(word) % (n - 1) + 1` (index 0 is never used). None: Python's salted
    `hash` (not stable across runs); 'md5': the md5 digest as an integer (stable)."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(w):
            return int(md5(w.encode()).hexdigest(), 16)
    return [hash_function(w) % (n - 1) + 1 for w in text_to_word_sequence(text, filters, lower, split)]


def one_hot(text, n, filters=_FILTERS, lower=True, split=" "):
    """hashing_trick with Python's `hash` (indices in [1, n), not stable across runs)."""
    return hashing_trick(text, n, hash_function=hash, filters=filters, lower=lower, split=split)


class Tokenizer:
    """Text -> integer sequences / matrices over a vocabulary learned by fit_on_texts. Index 0 is
    reserved; with `num_words`, only indices below it are kept; `oov_token` (index 1 when given) stands
    for unknown words."""

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ", char_level=False, oov_token=None,
                 document_count=0, **kwargs):
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts = OrderedDict()
        self.word_docs = defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.document_count = num_words, document_count
        self.char_level, self.oov_token = char_level, oov_token
        self.index_docs = defaultdict(int)
        self.word_index, self.index_word = {}, {}

    def _tokens(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts):
        """Counts the words of `texts` (strings, or lists of tokens) and rebuilds word_index: the most
        frequent word first (a stable sort, so ties keep first-seen order), oov_token before all."""
        for text in texts:
            self.document_count += 1
            seq = self._tokens(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        wcounts = sorted(self.word_counts.items(), key=lambda x: x[1], reverse=True)
        vocab = ([] if self.oov_token is None else [self.oov_token]) + [w for w, _ in wcounts]
        self.word_index = dict(zip(vocab, range(1, len(vocab) + 1)))
        self.index_word = {c: w for w, c in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences):
        """Counts document frequencies of integer sequences (for sequences_to_matrix's tfidf)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts):
        """A list of integer sequences, one per text."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        """Yields one integer sequence per text: unknown words, and words at index >= num_words, become
        the oov index or are dropped."""
        oov = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._tokens(text):
                i = self.word_index.get(w)
                if i is not None:
                    if not (self.num_words and i >= self.num_words):
                        vect.append(i)
                    elif oov is not None:
                        vect.append(oov)
                elif self.oov_token is not None:
                    vect.append(oov)
            yield vect

    def sequences_to_texts(self, sequences):
        """Each integer sequence back to a space-joined string."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        oov = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None:
                    if not (self.num_words and num >= self.num_words):
                        vect.append(word)
                    elif oov is not None:
                        vect.append(self.index_word[oov])
                elif self.oov_token is not None:
                    vect.append(self.index_word[oov])
            yield " ".join(vect)

    def texts_to_matrix(self, texts, mode="binary"):
        """A [len(texts), num_words] float64 matrix; mode 'binary', 'count', 'tfidf' or 'freq'."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        if not self.num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on some text data first.")
            num_words = len(self.word_index) + 1
        else:
            num_words = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts = defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in list(counts.items()):
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self):
        """The configuration, its dictionaries as JSON strings (Keras' layout)."""
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower, "split": self.split,
                "char_level": self.char_level, "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts), "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs), "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs):
        """{"class_name": "Tokenizer", "config": get_config()} as a JSON string."""
        return json.dumps({"class_name": self.__class__.__name__, "config": self.get_config()}, **kwargs)


def tokenizer_from_json(json_string):
    """The Tokenizer a to_json string describes."""
    config = json.loads(json_string).get("config")
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tok = Tokenizer(**config)
    tok.word_counts, tok.word_docs, tok.index_docs = word_counts, word_docs, index_docs
    tok.word_index, tok.index_word = word_index, index_word
    return tok
