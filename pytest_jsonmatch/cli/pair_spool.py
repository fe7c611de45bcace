"""Pairs kept on disk while a dataset's schema is inferred from its gold records.

``field_f1`` without a schema scores every record against the one schema all gold records
give (evaluate_records infers it from the whole list), so no record can be scored before the
last gold record has been read. The files are still read once: each pair, as it is read and
paired, goes to this spool, a temporary file of pickled chunks, and to the sketch of the
schema; scoring then reads the spool, a chunk at a time. Its values are as the reader left
them: parsed with one process, the lines' text with ``-j N`` (decoded in the workers, which
sketch and score). Memory stays that of one chunk.

Pickle is safe here: the spool is a file of the run's own private temporary folder, written
by this process and read by it (or its workers) only, and what is unpickled is what this
process pickled a moment before.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator

from ..dataset.parts import Chunk, Packed, packed
from ..reporting.spool import TemporaryFile


class PairSpool(TemporaryFile):
    """Chunks of pairs kept as they pass (:meth:`keeping`), then read back in that order,
    once, each :class:`Packed`."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory, ".pairs.pickle", binary=True)

    def keeping(self, chunks: Iterable[Chunk]) -> Iterator[Chunk]:
        """``chunks``, each written to the spool as it goes by."""
        for chunk in chunks:
            assert self._out is not None, "keep chunks in a spool already read"
            kept = chunk if isinstance(chunk, Packed) else packed(chunk)
            pickle.dump(kept, self._out, protocol=pickle.HIGHEST_PROTOCOL)
            yield chunk

    def __iter__(self) -> Iterator[Chunk]:
        if self._out is not None:
            self._out.close()
            self._out = None
        with open(self.path, "rb") as fh:
            while True:
                try:
                    yield pickle.load(fh)  # noqa: S301 - this run's own file (module docstring)
                except EOFError:
                    return
