"""Case updates (``--jsonmatch-update``): the expected value a run asks a case to take, and
writing every such update into its case file, each file once, under a lock, only when its
bytes are still those the run read (the edit itself is yaml_edit.py's). A review
(``,review``) writes no case file: update_review.py keeps the edits for ``jsonmatch accept``."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from ..engine.core.errors import CaseFileError, ConfigError, did_you_mean

UpdateKind = Literal["create", "fix", "all"]
UPDATE_KINDS: tuple[UpdateKind, ...] = ("create", "fix", "all")
_MODIFIERS = ("ci", "review")


@dataclass(frozen=True)
class UpdateMode:
    """The update setting: which cases are updated (``kind``), and whether the run only
    reviews them (``review``: nothing is written; the review says what would change)."""

    kind: UpdateKind
    review: bool = False


def update_mode(value: str, what: str, *, in_ci: bool) -> UpdateMode | None:
    """The update setting (None: no update): a kind and the modifiers ``,review`` (write
    nothing, review the edits) and ``,ci`` (update although the CI environment variable is
    set, ``in_ci``: a CI job would otherwise rewrite its own golden files without anyone
    reviewing them; a review is held to the same rule)."""
    if not value:
        return None
    words = [word.strip() for word in value.split(",")]
    kinds = [word for word in words if word not in _MODIFIERS]
    if len(kinds) > 1 or len(set(words)) < len(words):
        stray = next((w for w in kinds if w not in UPDATE_KINDS), "")
        raise ConfigError(
            f"{what} takes a mode and optionally ',review' and ',ci', not {value!r}"
            f"{did_you_mean(stray, _MODIFIERS)}"
        )
    kind = (kinds[0] if kinds else "") or "fix"
    chosen = next((m for m in UPDATE_KINDS if m == kind), None)
    if chosen is None:
        raise ConfigError(f"{what} must be one of {', '.join(UPDATE_KINDS)}, not {kind!r}")
    review = ",review" if "review" in words else ""
    if in_ci and "ci" not in words:
        raise ConfigError(
            f"refusing to update golden case files because the CI environment "
            f"variable is set; pass {what}={chosen}{review},ci to update them anyway"
        )
    return UpdateMode(chosen, review=bool(review))


@dataclass(frozen=True, kw_only=True)
class CaseUpdate:
    """One case's new expected ``value``, asked for by the test that ran it. ``sha256`` is
    the digest of the case file's bytes as the run read them; ``root`` is the test root the
    file must lie in; ``display`` is the file as messages show it."""

    path: str
    display: str
    case_id: str
    line: int
    value: object
    default_id: str
    sha256: str
    root: str
    # what a review shows (update_review.py; only in a review run): the old expected value
    # (``had_expected``: the case had one), why the case changes, why each field does
    old: object = None
    had_expected: bool = True
    why: str = ""
    field_whys: Mapping[str, str] = field(default_factory=dict)
    # an xfail's hold (update_review.py's Hold): what the mark says (``xfail (reason)``;
    # '' none holds), and the fields it holds (their paths as the review lists them): an
    # update writes none of them, a review marks them, and ``jsonmatch accept --all``
    # leaves them. ``writes``: an update run writes this case (False: the xfail holds every
    # change; the summary lists it)
    xfail: str = ""
    held: tuple[str, ...] = ()
    writes: bool = True
    # the case's key the value is written to: its expected value, or (a conversation's
    # turns' expected answers) the whole conversation (cases/conversation_updates.py)
    key: str = "expected"

    def to_dict(self) -> dict[str, object]:
        """Plain data, for the xdist wire."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> CaseUpdate:
        line = data["line"]
        return cls(
            path=str(data["path"]),
            display=str(data["display"]),
            case_id=str(data["case_id"]),
            line=line if isinstance(line, int) else 0,
            value=data["value"],
            default_id=str(data["default_id"]),
            sha256=str(data["sha256"]),
            root=str(data["root"]),
            old=data.get("old"),
            had_expected=data.get("had_expected") is not False,
            why=str(data.get("why", "")),
            field_whys=_texts(data.get("field_whys")),
            xfail=str(data.get("xfail", "")),
            held=tuple(map(str, held))
            if isinstance(held := data.get("held"), list | tuple)
            else (),
            writes=data.get("writes") is not False,
            key=_key(data.get("key", "expected")),
        )


# the keys of a case an update may write (anything else read back is refused)
UPDATED_KEYS = ("expected", "conversation")


def _key(given: object) -> str:
    if given not in UPDATED_KEYS:
        raise CaseFileError(f"an update writes a case's {' or '.join(UPDATED_KEYS)}, not {given!r}")
    return str(given)


def _texts(data: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, Mapping) else {}


def apply_updates(
    updates: Sequence[CaseUpdate],
    since: str = "this run read it",
    written: dict[str, str] | None = None,
) -> tuple[list[str], list[str]]:
    """Write every requested update, each file once (atomically). Returns the updated cases
    (``file:line case-id``) and, per file that could not be updated, why; ``written`` (when
    given) takes each written file's new SHA-256 digest, by its path.

    A file is written only inside the test root (its path resolved, symlinks followed), and
    only when its bytes are still those the run read: another run (or an editor) that changed
    it meanwhile makes this update an error, never a silent overwrite. The check and the
    write happen under an exclusive lock on the file, so two runs updating it at once cannot
    both pass the check."""
    by_file: dict[str, list[CaseUpdate]] = {}
    for update in updates:
        by_file.setdefault(update.path, []).append(update)
    done: list[str] = []
    errors: list[str] = []
    for path, wanted in sorted(by_file.items()):
        display = wanted[0].display
        try:
            digest = _update_file(Path(path), wanted, display, since)
        except CaseFileError as exc:
            errors.append(str(exc))
            continue
        except OSError as exc:  # a full disk, a read-only folder: name the file it was for
            errors.append(f"{display}: {exc.strerror or exc}")
            continue
        if written is not None:
            written[path] = digest
        done += [f"{display}:{u.line} {u.case_id}" for u in sorted(wanted, key=lambda u: u.line)]
    return done, errors


def _update_file(path: Path, wanted: list[CaseUpdate], display: str, since: str) -> str:
    # here: a session that updates nothing never loads the editor
    from ..engine.reading.safe_yaml import read_text
    from ..reporting.run_model.atomic import exclusive_lock, write_atomic
    from .yaml_edit import rewrite

    real, top = path.resolve(), Path(wanted[0].root).resolve()
    if not real.is_relative_to(top):
        raise CaseFileError(
            f"{display}: resolves to {real}, outside the test root {top} (a "
            f"symlinked folder?): not updated; the plugin writes only inside "
            f"the root"
        )
    with exclusive_lock(path):
        raw = path.read_bytes()
        read = {u.sha256 for u in wanted} - {""}
        if read and read != {hashlib.sha256(raw).hexdigest()}:
            raise CaseFileError(
                f"{display}: changed on disk since {since} (another run "
                f"or an editor?): not updated; run again to update it"
            )
        text = read_text(path, display)
        values, keys = {u.case_id: u.value for u in wanted}, {u.case_id: u.key for u in wanted}
        new = rewrite(text, values, display, wanted[0].default_id, keys)
        bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
        write_atomic(path, lambda fh: fh.write(bom + new), newline="")
        return hashlib.sha256((bom + new).encode("utf-8")).hexdigest()
