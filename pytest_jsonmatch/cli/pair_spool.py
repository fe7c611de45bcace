"""Pairs kept on disk while a dataset's schema is inferred from its gold records.

``field_f1`` without a schema scores every record against the one schema all gold records
give (evaluate_records infers it from the whole list), so no record can be scored before the
last gold record has been read. The files are still read once: each pair, as it is read and
paired, adds its gold record to the schema sketch and goes to this spool, a temporary file of
pickled chunks; scoring then reads the spool, whose values are already parsed. Memory stays
that of one chunk.

Pickle is safe here: the spool is a file of the run's own private temporary folder, written
and read by this process only, and what it unpickles is what it pickled a moment before.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator

from ..dataset import Pair
from ..reporting.spool import TemporaryFile
from .parallel import CHUNK, portable, restored


class PairSpool(TemporaryFile):
    """Pairs appended in order and read back in that order, once."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory, ".pairs.pickle", binary=True)
        self._chunk: list[Pair] = []

    def append(self, pair: Pair) -> None:
        self._chunk.append(pair)
        if len(self._chunk) >= CHUNK:
            self._write()

    def _write(self) -> None:
        assert self._out is not None, "append to a spool already read"
        pickle.dump(portable(self._chunk), self._out, protocol=pickle.HIGHEST_PROTOCOL)
        self._chunk = []

    def __iter__(self) -> Iterator[Pair]:
        if self._chunk:
            self._write()
        if self._out is not None:
            self._out.close()
            self._out = None
        with open(self.path, "rb") as fh:
            while True:
                try:
                    chunk = pickle.load(fh)  # noqa: S301 - this run's own file (module docstring)
                except EOFError:
                    return
                yield from restored(chunk)
