"""Embeddings (engine/comparing/embeddings.py): the embedder of the cosine comparator given as a callable
or a name, the real wordllama model read offline from its wheel, each distinct string
embedded once per session and the strings of a record in one call, a pair matrix as one
product; and a model that is not on the machine a ConfigError naming the extra."""

from __future__ import annotations

import socket
import sys

import numpy as np
import pytest

from pytest_jsonmatch import REGISTRY, ComparatorError, ConfigError, match_json, register_embedder
from pytest_jsonmatch.engine.comparing import embeddings


class CountingEmbedder:
    """Fixed vectors, and a record of every call (the strings it was asked for)."""

    def __init__(self, vectors):
        self.vectors = vectors
        self.calls = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return np.array([self.vectors[t] for t in texts])


def vectors_2d(**angles):
    """Unit vectors in the plane, by angle in degrees: the cosine of two is cos(difference)."""
    return {name: [np.cos(np.radians(a)), np.sin(np.radians(a))] for name, a in angles.items()}


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: nothing is downloaded."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# -- the real light model: wordllama, from its own wheel, offline --------------------------------


@pytest.mark.embedding_model
def test_wordllama_scores_names_of_one_company_above_unrelated_phrases(no_network):
    result = match_json(
        {"a": "Acme Corp", "b": "amount due"},
        {"a": "Acme Corporation", "b": "invoice total"},
        metric="json_similarity",
        fields={"*": {"comparator": "cosine"}},
        embedder="wordllama",
    )
    same_company, different_words = (f.score for f in result.fields)
    assert 0.0 <= different_words < same_company <= 1.0
    assert same_company > 0.5 and different_words < 0.5


@pytest.mark.embedding_model
def test_wordllama_as_structeval_s_cosine_string_evaluator_pairs_array_elements(no_network):
    expected = {"vendors": ["Acme Corporation", "Globex Industries", "Initech Software"]}
    actual = {"vendors": ["Initech Software Inc", "Acme Corp", "Globex Industries"]}
    result = match_json(
        actual,
        expected,
        metric="structural_f1",
        embedder="wordllama",
        string_evaluation_type={"evaluation_type": "cosine"},
    )
    assert [(p.expected_index, p.actual_index) for p in result.pairings] == [(0, 1), (1, 2), (2, 0)]
    assert result.fields[1].score == 1.0  # the same string, exactly 1


# -- exact arithmetic with a fake embedder -----------------------------------------------------------


def test_structural_f1_cosine_with_a_fake_embedder():
    fake = CountingEmbedder(vectors_2d(red=0, crimson=60, blue=90, navy=120))
    expected = {"c": ["red", "blue"], "d": "red"}
    actual = {"c": ["navy", "crimson"], "d": "crimson"}
    result = match_json(
        actual, expected, metric="structural_f1", string_evaluator="cosine", embedder=fake
    )
    # red-crimson cos 60 = 0.5, blue-navy cos 30 = 0.8660, red-navy cos 120 < 0 -> 0, blue-crimson cos 30
    assert [(f.path, round(f.score, 4)) for f in result.fields] == [
        ("c[0]", 0.5),
        ("c[1]", 0.866),
        ("d", 0.5),
    ]
    assert [(p.expected_index, p.actual_index) for p in result.pairings] == [(0, 1), (1, 0)]
    # one call for the whole record: every string of both sides, each once, in document order
    assert fake.calls == [["red", "blue", "navy", "crimson"]]


def test_each_distinct_string_is_embedded_once_per_session():
    fake = CountingEmbedder(vectors_2d(tent=0, tents=10, stove=90, stoves=100, lamp=45))
    options = {
        "metric": "json_similarity",
        "fields": {"*": {"comparator": "cosine"}},
        "embedder": fake,
    }
    match_json({"a": "tents", "b": "stove"}, {"a": "tent", "b": "stove"}, **options)
    match_json({"a": "tents", "b": "stoves"}, {"a": "tent", "b": "lamp"}, **options)
    assert fake.calls == [["tent", "stove", "tents"], ["lamp", "stoves"]]


def test_a_pair_matrix_is_one_embedding_call_and_one_product():
    names = [f"w{i}" for i in range(40)]
    fake = CountingEmbedder({name: [np.cos(i), np.sin(i), 1.0] for i, name in enumerate(names)})
    result = match_json(
        {"l": list(reversed(names))},
        {"l": names},
        metric="structural_f1",
        string_evaluator="cosine",
        embedder=fake,
    )
    assert result.score == 1.0  # 40 x 40 pairs, each string paired with itself
    assert len(fake.calls) == 1 and sorted(fake.calls[0]) == sorted(names)


def test_similarity_matrix_clips_to_the_unit_interval_and_sets_equal_strings_to_one():
    fake = CountingEmbedder({"a": [1.0, 0.0], "b": [-1.0, 0.0], "c": [1.0, 1e-9]})
    handle = REGISTRY.embedders.handle(fake)
    scores = embeddings.similarity(handle, ["a", "b"], ["b", "c", "a"])
    # a.b = -1 clipped to 0; a.c = 1 / sqrt(1 + 1e-18), 1 to the last bit; equal strings exactly 1
    assert scores[0].tolist() == pytest.approx([0.0, 1.0, 1.0])
    assert scores[1].tolist() == pytest.approx([1.0, 0.0, 0.0])
    assert scores[0, 2] == 1.0 and scores[1, 0] == 1.0


# -- named embedders ---------------------------------------------------------------------------------


def test_a_registered_embedder_is_used_by_name():
    fake = CountingEmbedder(vectors_2d(x=0, y=60))
    register_embedder("test_fake_2d", fake)
    try:
        result = match_json(
            {"v": "y"}, {"v": "x"}, fields={"v": {"comparator": "cosine"}}, embedder="test_fake_2d"
        )
        assert result.score == pytest.approx(0.5)
        with pytest.raises(ConfigError, match="embedder 'test_fake_2d' is already registered"):
            register_embedder("test_fake_2d", fake)
    finally:
        REGISTRY.unregister("test_fake_2d")


def test_an_unknown_embedder_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        match_json({"v": "a"}, {"v": "b"}, fields={"v": {"comparator": "cosine"}}, embedder="bert")
    assert str(info.value) == (
        "fields['v']: unknown embedder 'bert'; known embedders: wordllama, "
        "sentence-transformers:<model name or path>"
    )


def test_sentence_transformers_missing_names_the_extra(monkeypatch, no_network):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as on a machine without it
    with pytest.raises(ConfigError) as info:
        match_json(
            {"v": "a"},
            {"v": "b"},
            metric="structural_f1",
            string_evaluator="cosine",
            embedder="sentence-transformers:paraphrase-test-model-x",
        )
    assert str(info.value) == (
        "embedder 'sentence-transformers:paraphrase-test-model-x' needs "
        "sentence-transformers: pip install 'pytest-jsonmatch[sentence-transformers]'"
    )


def test_structeval_s_default_model_is_all_minilm_without_downloading(monkeypatch, no_network):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(
        ConfigError, match=r"^embedder 'sentence-transformers:all-MiniLM-L6-v2' needs"
    ):
        match_json(
            {"v": "a"},
            {"v": "b"},
            metric="structural_f1",
            string_evaluation_type={
                "evaluation_type": "cosine",
                "evaluation_params": {"embedding_model": "all-MiniLM-L6-v2"},
            },
        )


def test_wordllama_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "wordllama", None)
    handle = embeddings.Embedders().handle("wordllama")  # a fresh table: nothing loaded yet
    with pytest.raises(ConfigError) as info:
        handle.embed(["a"])
    assert str(info.value) == (
        "embedder 'wordllama' needs the wordllama package: "
        "pip install 'pytest-jsonmatch[wordllama]'"
    )


@pytest.mark.parametrize(
    "returned, message",
    [
        (
            [[1.0, 0.0]],
            "returned an array of shape (1, 2) for 2 strings; it must return one vector per string",
        ),
        ([[1.0, float("nan")], [0.0, 1.0]], "returned a vector that is not finite"),
    ],
)
def test_an_embedder_giving_no_usable_vectors_is_named(returned, message):
    def bad(texts):
        return returned

    with pytest.raises(ComparatorError) as info:
        match_json({"v": "p"}, {"v": "q"}, fields={"v": {"comparator": "cosine"}}, embedder=bad)
    assert str(info.value) == f"embedder 'bad' {message}"


def test_an_embedder_that_raises_is_named():
    def down(texts):
        raise OSError("model server unreachable")

    with pytest.raises(ComparatorError) as info:
        match_json({"v": "r"}, {"v": "s"}, fields={"v": {"comparator": "cosine"}}, embedder=down)
    assert str(info.value) == "embedder 'down' raised OSError: model server unreachable"


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(embeddings, "CACHE_SIZE", 3)
    embeddings.clear_cache()
    fake = CountingEmbedder({t: [1.0, float(i)] for i, t in enumerate("abcdef")})
    handle = REGISTRY.embedders.handle(fake)
    embeddings.unit_vectors(handle, ["a", "b", "c"])
    embeddings.unit_vectors(handle, ["d", "e"])  # a and b, least recently used, go
    embeddings.unit_vectors(handle, ["c", "a"])
    assert fake.calls == [["a", "b", "c"], ["d", "e"], ["a"]]
    assert len(embeddings._CACHE) == 3


def test_a_schema_s_cosine_takes_the_embedder_option_and_pairs_by_key():
    fake = CountingEmbedder(
        vectors_2d(**{"steel bolt": 0, "bolt, steel": 30, "washer": 90, "flat washer": 60})
    )
    schema = {
        "type": "object",
        "properties": {
            "parts": {
                "type": "array",
                "x-eval-align": {"match_by": "key_field", "key": "sku"},
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "name": {"type": "string", "x-eval-compare": "cosine"},
                    },
                },
            }
        },
    }
    expected = {"parts": [{"sku": "B1", "name": "steel bolt"}, {"sku": "W1", "name": "washer"}]}
    actual = {"parts": [{"sku": "W1", "name": "flat washer"}, {"sku": "B1", "name": "bolt, steel"}]}
    result = match_json(actual, expected, schema=schema, embedder=fake)
    # names: cos 30 = 0.8660 and cos 30 = 0.8660; skus match: TP = 2 + 1.7321 over 4
    assert [(f.path, round(f.score, 4)) for f in result.fields] == [
        ("parts[0].sku", 1.0),
        ("parts[0].name", 0.866),
        ("parts[1].sku", 1.0),
        ("parts[1].name", 0.866),
    ]
    assert result.score == pytest.approx((2 + 2 * np.cos(np.radians(30))) / 4)
    assert len(fake.calls) == 1
