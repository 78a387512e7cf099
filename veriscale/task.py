"""Verina task model: the strict ``task.lean`` marker parser, the task directory loader and writer.

A task directory holds ``task.json`` (id, signature, file names, specification, metadata),
``description.txt``, ``task.lean`` (Lean source whose parts sit between
``-- !benchmark @start NAME`` / ``-- !benchmark @end NAME`` markers), ``test.json`` (a list of
``{input, expected, unexpected}``) and ``reject_inputs.json`` (a list of ``{input}``), plus any
other files (``coverage_report.md`` ...), which are kept as text and written back.

Loading is strict: anything malformed raises :class:`TaskLoadError` naming the task, the file,
the line when known, and the reason, because a silently mis-parsed section would make every later
verdict about that task meaningless. Values in ``test.json`` / ``reject_inputs.json`` are kept as
the raw JSON values (``veriscale.lean.codec`` parses them at their Lean types).

``task.lean`` is kept as an ordered list of segments (plain text and sections with their exact
marker lines), so that an unchanged file is rebuilt byte for byte and a changed one differs only
in the replaced section bodies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

# Section names in the order Verina lays them out.
SECTION_NAMES: tuple[str, ...] = (
    "import",
    "task_aux",
    "solution_aux",
    "precond_aux",
    "precond",
    "code_aux",
    "code",
    "postcond_aux",
    "postcond",
    "proof_aux",
    "proof",
)
# ``import`` sections carry ``type=``: imports the reference solution needs (solution), that
# generated code may add (llm), that tests need (test), that the task statement needs (task).
IMPORT_TYPES: tuple[str, ...] = ("solution", "llm", "test", "task")

# The standard file names; task.json points at the first four through its ``*_file`` fields.
TASK_JSON = "task.json"
FILE_FIELDS: dict[str, str] = {
    "description_file": "description.txt",
    "lean_file": "task.lean",
    "test_file": "test.json",
    "reject_inputs_file": "reject_inputs.json",
}
_RESERVED_TASK_KEYS = ("id", "signature")

_MARKER_TOKEN = "!benchmark"
_MARKER_RE = re.compile(
    r"^[ \t]*--[ \t]*!benchmark[ \t]+@(?P<kind>start|end)[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?P<attrs>(?:[ \t]+[^ \t]+)*)[ \t]*$"
)
_ATTR_RE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>[^ \t=]+)$")


# ---------------------------------------------------------------------------------------------
# Errors


class LeanMarkerError(ValueError):
    """A ``task.lean`` whose ``!benchmark`` markers do not parse; ``line`` is 1-based."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.line, self.reason))


class TaskLoadError(Exception):
    """A task directory that cannot be loaded.

    ``task`` is the task directory's name, ``file`` the file inside it (``task.lean``), ``line``
    the 1-based line (``None`` when not known), ``reason`` what is wrong. ``str()`` reads like
    ``verina_basic_32/task.lean:51: malformed marker line: ...``.
    """

    def __init__(self, task: str, file: str, reason: str, line: int | None = None) -> None:
        self.task = task
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(self._format())

    def _format(self) -> str:
        where = f"{self.task}/{self.file}" if self.file else self.task
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.reason}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.task, self.file, self.reason, self.line))


# ---------------------------------------------------------------------------------------------
# task.lean


class LeanText(BaseModel):
    """Text outside any section (definitions' headers, blank lines, comments)."""

    kind: Literal["text"] = "text"
    text: str


class LeanSection(BaseModel):
    """One ``@start``/``@end`` section: the exact marker lines (indentation and line ending
    included) and the body, which is every line between them, verbatim."""

    kind: Literal["section"] = "section"
    name: str
    attributes: dict[str, str] = Field(default_factory=dict)
    start_marker: str
    body: str
    end_marker: str
    substituted: bool = Field(default=False, exclude=True)
    """The body was put in by :meth:`LeanFile.with_sections` (generated or submitted text), not read
    from a task file: untrusted, so every engine's gate screens it (``veriscale.backends.gate``).
    Provenance, not content: it is neither written out nor compared."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LeanSection):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    @property
    def type(self) -> str | None:
        """The ``type=`` attribute (import sections), else ``None``."""
        return self.attributes.get("type")

    def text(self) -> str:
        return self.start_marker + self.body + self.end_marker


LeanSegment = Annotated[LeanText | LeanSection, Field(discriminator="kind")]


def _split_lines(text: str) -> list[str]:
    """Lines with their endings; only ``\\n`` ends a line (``str.splitlines`` would also split on
    form feeds and Unicode separators, which Lean treats as ordinary characters)."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _strip_ending(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


def _parse_marker(line: str, lineno: int) -> tuple[str, str, dict[str, str]]:
    """(kind, name, attributes) of a line known to contain ``!benchmark``."""
    content = _strip_ending(line)
    match = _MARKER_RE.match(content)
    if match is None:
        if not content.lstrip(" \t").startswith("--"):
            raise LeanMarkerError(
                lineno,
                f"malformed marker line (`{_MARKER_TOKEN}` outside a `--` comment): {content.strip()!r}",
            )
        raise LeanMarkerError(
            lineno,
            f"malformed marker line (expected `-- !benchmark @start|@end NAME [key=value ...]`): "
            f"{content.strip()!r}",
        )
    kind, name = match["kind"], match["name"]
    if name not in SECTION_NAMES:
        raise LeanMarkerError(lineno, f"unknown section name {name!r} in @{kind} marker")
    attributes: dict[str, str] = {}
    for token in match["attrs"].split():
        attr = _ATTR_RE.match(token)
        if attr is None:
            raise LeanMarkerError(lineno, f"malformed marker attribute {token!r} (expected key=value)")
        if attr["key"] in attributes:
            raise LeanMarkerError(lineno, f"duplicate marker attribute {attr['key']!r}")
        attributes[attr["key"]] = attr["value"]
    if kind == "end" and attributes:
        raise LeanMarkerError(lineno, f"@end {name} takes no attributes")
    for key, value in attributes.items():
        if name != "import" or key != "type":
            raise LeanMarkerError(lineno, f"unknown attribute {key}={value} on section {name}")
        if value not in IMPORT_TYPES:
            raise LeanMarkerError(
                lineno, f"unknown import type {value!r} (expected one of {', '.join(IMPORT_TYPES)})"
            )
    return kind, name, attributes


class LeanFile(BaseModel):
    """A ``task.lean`` as ordered segments; ``text()`` rebuilds the file exactly."""

    segments: list[LeanSegment]

    @classmethod
    def parse(cls, text: str) -> LeanFile:
        """Parse marker structure; raises :class:`LeanMarkerError` on any marker problem."""
        segments: list[LeanText | LeanSection] = []
        plain: list[str] = []
        # The open section: (name, attributes, start line number, start marker, body lines).
        open_section: tuple[str, dict[str, str], int, str, list[str]] | None = None
        first_seen: dict[tuple[str, str | None], int] = {}

        for lineno, line in enumerate(_split_lines(text), start=1):
            if _MARKER_TOKEN not in line:
                (open_section[4] if open_section is not None else plain).append(line)
                continue
            kind, name, attributes = _parse_marker(line, lineno)
            if kind == "start":
                if open_section is not None:
                    raise LeanMarkerError(lineno, f"nested @start {name} inside {open_section[0]}")
                # Import sections are told apart by their type; any other name may occur once.
                key = (name, attributes.get("type") if name == "import" else None)
                if key in first_seen:
                    label = f"{name} type={key[1]}" if key[1] else name
                    raise LeanMarkerError(
                        lineno, f"duplicate section {label} (first at line {first_seen[key]})"
                    )
                first_seen[key] = lineno
                if plain:
                    segments.append(LeanText(text="".join(plain)))
                    plain = []
                open_section = (name, attributes, lineno, line, [])
            else:
                if open_section is None:
                    raise LeanMarkerError(lineno, f"@end {name} with no open section")
                open_name, open_attrs, open_line, start_marker, body = open_section
                if name != open_name:
                    raise LeanMarkerError(
                        lineno, f"@end {name} does not match the open section {open_name} (line {open_line})"
                    )
                segments.append(
                    LeanSection(
                        name=open_name,
                        attributes=open_attrs,
                        start_marker=start_marker,
                        body="".join(body),
                        end_marker=line,
                    )
                )
                open_section = None
        if open_section is not None:
            raise LeanMarkerError(
                open_section[2], f"unterminated section {open_section[0]}: no @end before end of file"
            )
        if plain:
            segments.append(LeanText(text="".join(plain)))
        return cls(segments=segments)

    def text(self) -> str:
        return "".join(seg.text if isinstance(seg, LeanText) else seg.text() for seg in self.segments)

    def sections(self, name: str | None = None) -> list[LeanSection]:
        """All sections (of one name), in file order."""
        return [s for s in self.segments if isinstance(s, LeanSection) and (name is None or s.name == name)]

    def section(self, name: str) -> str:
        """The body of section ``name`` ('' when absent); the bodies of all ``import`` sections
        are joined in file order."""
        return "".join(s.body for s in self.sections(name))

    def section_names(self) -> list[str]:
        """Distinct section names in file order."""
        return list(dict.fromkeys(s.name for s in self.sections()))

    def section_line(self, name: str) -> int | None:
        """1-based line number of the first body line of the first section ``name`` (to map
        diagnostics on a body back to ``task.lean``); ``None`` when absent."""
        return next((first for section, first, _ in self.section_spans() if section == name), None)

    def section_spans(self) -> list[tuple[str, int, int]]:
        """``(name, first body line, last body line)`` of every section, 1-based and inclusive
        (an empty body has ``last < first``), to attribute a diagnostic to the section it is in."""
        spans: list[tuple[str, int, int]] = []
        line = 1
        for seg in self.segments:
            if isinstance(seg, LeanText):
                line += seg.text.count("\n")
                continue
            line += seg.start_marker.count("\n")
            body_lines = seg.body.count("\n")
            spans.append((seg.name, line, line + body_lines - 1))
            line += body_lines + seg.end_marker.count("\n")
        return spans

    def with_sections(self, bodies: Mapping[str, str]) -> LeanFile:
        """A copy whose section bodies are replaced; markers and surrounding text are kept.

        A body that does not end with a line break gets one (the end marker must stay on its own
        line). Bodies are inserted verbatim otherwise: indent them yourself when the markers are
        indented. Replacing ``import`` when there are several import sections puts the new body
        in the first and empties the others, so that ``section("import")`` returns it.
        """
        for name in bodies:
            if name not in SECTION_NAMES:
                raise ValueError(f"unknown section name {name!r}")
            if not self.sections(name):
                raise ValueError(f"task.lean has no {name} section")
        done: set[str] = set()
        segments: list[LeanText | LeanSection] = []
        for seg in self.segments:
            if isinstance(seg, LeanSection) and seg.name in bodies:
                body = "" if seg.name in done else bodies[seg.name]
                done.add(seg.name)
                if body and not body.endswith("\n"):
                    body += "\r\n" if seg.start_marker.endswith("\r\n") else "\n"
                seg = seg.model_copy(update={"body": body, "substituted": True})
            segments.append(seg)
        return LeanFile(segments=segments)


# ---------------------------------------------------------------------------------------------
# Task


class Parameter(BaseModel):
    name: str
    type: str  # raw Lean type text; parse with veriscale.lean.types.parse_type


class Signature(BaseModel):
    name: str
    parameters: list[Parameter]
    return_type: str

    @field_validator("parameters")
    @classmethod
    def _distinct_names(cls, parameters: list[Parameter]) -> list[Parameter]:
        names = [p.name for p in parameters]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate parameter names {duplicates}")
        return parameters

    def binders_lean(self) -> str:
        """The parameters as Lean binders: ``(xs : List Int) (k : Nat)``."""
        return " ".join(f"({p.name} : {p.type})" for p in self.parameters)


class TestCase(BaseModel):
    """One test: raw JSON values exactly as stored."""

    __test__ = False  # not a pytest class despite the name
    model_config = ConfigDict(extra="forbid")

    input: dict[str, Any]
    expected: Any
    unexpected: list[Any]


class RejectInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: dict[str, Any]


_TESTS_ADAPTER = TypeAdapter(list[TestCase])
_REJECTS_ADAPTER = TypeAdapter(list[RejectInput])
_RowT = TypeVar("_RowT", TestCase, RejectInput)


class Task(BaseModel):
    """One benchmark task.

    ``metadata`` is the rest of ``task.json`` in its original order (``description_file`` ...,
    ``specification``, ``metadata``, unknown keys); ``extra_files`` maps the relative paths of
    other files in the task directory to their text.
    """

    id: str
    signature: Signature
    description: str
    tests: list[TestCase]
    reject_inputs: list[RejectInput]
    metadata: dict[str, Any] = Field(default_factory=dict)
    lean: LeanFile
    extra_files: dict[str, str] = Field(default_factory=dict)

    @field_validator("metadata")
    @classmethod
    def _no_reserved_keys(cls, metadata: dict[str, Any]) -> dict[str, Any]:
        for key in _RESERVED_TASK_KEYS:
            if key in metadata:
                raise ValueError(f"metadata must not contain {key!r} (it is a Task field)")
        for key in FILE_FIELDS:
            if key in metadata:
                _relative_file(metadata[key], key)
        return metadata

    @property
    def param_names(self) -> list[str]:
        return [p.name for p in self.signature.parameters]

    @property
    def test_count(self) -> int:
        return len(self.tests)

    def section(self, name: str) -> str:
        """Body text of a ``task.lean`` section ('' when absent); see :meth:`LeanFile.section`."""
        if name not in SECTION_NAMES:
            raise ValueError(f"unknown section name {name!r}")
        return self.lean.section(name)

    def section_names(self) -> list[str]:
        return self.lean.section_names()

    def lean_text(self) -> str:
        return self.lean.text()

    def with_sections(self, **bodies: str) -> Task:
        """A copy whose section bodies are replaced (``task.with_sections(code="...")``; for
        ``import`` use ``with_sections(**{"import": ...})``). Other fields are shared, not copied."""
        return self.model_copy(update={"lean": self.lean.with_sections(bodies)})

    def file_name(self, field_name: str) -> str:
        """The file a ``*_file`` field of task.json points at (the standard name when absent)."""
        return _relative_file(self.metadata.get(field_name, FILE_FIELDS[field_name]), field_name)

    def task_json(self) -> dict[str, Any]:
        """The ``task.json`` content."""
        signature = {
            "name": self.signature.name,
            "parameters": [{"param_name": p.name, "param_type": p.type} for p in self.signature.parameters],
            "return_type": self.signature.return_type,
        }
        return {"id": self.id, "signature": signature, **self.metadata}


def _relative_file(value: Any, field_name: str) -> str:
    """A ``*_file`` value as a normalized relative path that stays inside the task directory."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{field_name} must be a non-empty string, got {value!r}")
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value or not path.parts or path.parts == (".",):
        raise ValueError(f"{field_name} must be a relative path inside the task directory, got {value!r}")
    return path.as_posix()


# ---------------------------------------------------------------------------------------------
# Loading


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not standard JSON")


def _read_text(root: Path, task: str, name: str) -> str:
    path = root / name
    if not path.is_file():
        raise TaskLoadError(task, name, "missing file")
    try:
        # newline="" keeps \r\n as stored, so writing back reproduces the file.
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as exc:
        raise TaskLoadError(task, name, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise TaskLoadError(task, name, f"cannot read: {exc.strerror or exc}") from exc


def _read_json(root: Path, task: str, name: str) -> Any:
    text = _read_text(root, task, name)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise TaskLoadError(task, name, f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from exc
    except ValueError as exc:
        raise TaskLoadError(task, name, f"invalid JSON: {exc}") from exc


def _validation_reason(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{loc or 'top level'}: {first['msg']}{more}"


def parse_signature(raw: Any, task: str, file: str = TASK_JSON) -> Signature:
    """A ``signature`` object as stored (``{name, parameters: [{param_name, param_type}],
    return_type}``); raises :class:`TaskLoadError` for ``task``'s ``file``."""

    def fail(reason: str) -> TaskLoadError:
        return TaskLoadError(task, file, f"signature: {reason}")

    if not isinstance(raw, dict):
        raise fail(f"expected an object, got {type(raw).__name__}")
    for key, kind in (("name", str), ("parameters", list), ("return_type", str)):
        if key not in raw:
            raise fail(f"missing field {key!r}")
        if not isinstance(raw[key], kind):
            raise fail(f"{key} must be a {kind.__name__}, got {type(raw[key]).__name__}")
    unknown = sorted(set(raw) - {"name", "parameters", "return_type"})
    if unknown:
        raise fail(f"unknown fields {unknown}")
    parameters: list[Parameter] = []
    for index, param in enumerate(raw["parameters"]):
        if not isinstance(param, dict) or set(param) != {"param_name", "param_type"}:
            raise fail(f"parameters[{index}] must be an object with exactly param_name and param_type")
        if not isinstance(param["param_name"], str) or not isinstance(param["param_type"], str):
            raise fail(f"parameters[{index}]: param_name and param_type must be strings")
        parameters.append(Parameter(name=param["param_name"], type=param["param_type"]))
    try:
        return Signature(name=raw["name"], parameters=parameters, return_type=raw["return_type"])
    except ValidationError as exc:
        raise fail(_validation_reason(exc)) from exc


def _read_rows(
    adapter: TypeAdapter[list[_RowT]], shape: str, root: Path, task: str, name: str, names: list[str]
) -> list[_RowT]:
    """A task's JSON list of rows (tests or rejected inputs), each with exactly the parameters as keys."""
    try:
        rows = adapter.validate_python(_read_json(root, task, name))
    except ValidationError as exc:
        raise TaskLoadError(task, name, f"expected a list of {shape}: {_validation_reason(exc)}") from exc
    _check_input_keys(rows, names, task, name)
    return rows


def _check_input_keys(rows: Iterable[Any], names: list[str], task: str, file: str) -> None:
    expected = set(names)
    for index, row in enumerate(rows):
        keys = row.input.keys()
        if keys != expected:
            missing = [n for n in names if n not in keys]
            unknown = sorted(k for k in keys if k not in expected)
            detail = "; ".join(
                part
                for part in (f"missing {missing}" if missing else "", f"unknown {unknown}" if unknown else "")
                if part
            )
            raise TaskLoadError(
                task, file, f"[{index}].input: keys do not match the parameters {names} ({detail})"
            )


def load_task(path: str | Path) -> Task:
    """Load one task directory; raises :class:`TaskLoadError`."""
    root = Path(path)
    task = root.resolve().name or str(root)
    if not root.is_dir():
        raise TaskLoadError(task, TASK_JSON, f"not a task directory: {root}")

    raw = _read_json(root, task, TASK_JSON)
    if not isinstance(raw, dict):
        raise TaskLoadError(task, TASK_JSON, f"expected a JSON object, got {type(raw).__name__}")
    if "id" not in raw:
        raise TaskLoadError(task, TASK_JSON, "missing field 'id'")
    if not isinstance(raw["id"], str) or not raw["id"]:
        raise TaskLoadError(task, TASK_JSON, f"id must be a non-empty string, got {raw['id']!r}")
    if "signature" not in raw:
        raise TaskLoadError(task, TASK_JSON, "missing field 'signature'")
    signature = parse_signature(raw["signature"], task)
    metadata = {k: v for k, v in raw.items() if k not in _RESERVED_TASK_KEYS}
    files: dict[str, str] = {}
    for field_name, default in FILE_FIELDS.items():
        try:
            files[field_name] = _relative_file(metadata.get(field_name, default), field_name)
        except ValueError as exc:
            raise TaskLoadError(task, TASK_JSON, str(exc)) from exc

    description = _read_text(root, task, files["description_file"])

    lean_name = files["lean_file"]
    try:
        lean = LeanFile.parse(_read_text(root, task, lean_name))
    except LeanMarkerError as exc:
        raise TaskLoadError(task, lean_name, exc.reason, exc.line) from exc

    names = [p.name for p in signature.parameters]
    tests = _read_rows(_TESTS_ADAPTER, "{input, expected, unexpected}", root, task, files["test_file"], names)
    rejects = _read_rows(_REJECTS_ADAPTER, "{input}", root, task, files["reject_inputs_file"], names)

    known = {TASK_JSON, *files.values()}
    extra_files: dict[str, str] = {}
    for file in sorted(root.rglob("*")):
        relative = file.relative_to(root)
        # Hidden files (.DS_Store, editor swap files) are not part of a task.
        if not file.is_file() or any(part.startswith(".") for part in relative.parts):
            continue
        name = relative.as_posix()
        if name not in known:
            extra_files[name] = _read_text(root, task, name)

    try:
        return Task(
            id=raw["id"],
            signature=signature,
            description=description,
            tests=tests,
            reject_inputs=rejects,
            metadata=metadata,
            lean=lean,
            extra_files=extra_files,
        )
    except ValidationError as exc:
        raise TaskLoadError(task, TASK_JSON, _validation_reason(exc)) from exc


@dataclass
class BenchmarkLoad:
    """The tasks of a benchmark directory that loaded, and an error for each that did not."""

    root: Path
    tasks: list[Task] = field(default_factory=list)
    failures: list[TaskLoadError] = field(default_factory=list)

    def summary(self) -> str:
        total = len(self.tasks) + len(self.failures)
        lines = [f"{self.root}: {len(self.tasks)} of {total} task(s) loaded, {len(self.failures)} failed"]
        lines.extend(f"  {error}" for error in self.failures)
        return "\n".join(lines)


def load_benchmark_dir(path: str | Path) -> BenchmarkLoad:
    """Load every task directory under ``path`` (sorted by name); a directory that is itself a
    task (has ``task.json``) is a benchmark of one. Bad tasks are reported in ``failures``.
    (:func:`veriscale.benchmark.load_benchmark` also reads Hugging Face datasets.)"""
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"not a benchmark directory: {root}")
    if (root / TASK_JSON).is_file():
        task_dirs = [root]
    else:
        task_dirs = sorted(
            (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")), key=lambda p: p.name
        )
    loaded = BenchmarkLoad(root=root)
    seen: dict[str, str] = {}
    for task_dir in task_dirs:
        try:
            task = load_task(task_dir)
        except TaskLoadError as error:
            loaded.failures.append(error)
            continue
        if task.id in seen:
            loaded.failures.append(
                TaskLoadError(
                    task_dir.name, TASK_JSON, f"duplicate task id {task.id!r} (also in {seen[task.id]})"
                )
            )
            continue
        seen[task.id] = task_dir.name
        loaded.tasks.append(task)
    return loaded


# ---------------------------------------------------------------------------------------------
# Writing


def _dump_json(value: Any) -> str:
    # The published suites' style: 4-space indent, non-ASCII kept, final newline.
    return json.dumps(value, indent=4, ensure_ascii=False, allow_nan=False) + "\n"


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def write_task(task: Task, path: str | Path) -> Path:
    """Write ``task`` as a Verina task directory at ``path`` (created if needed; files of the
    same names are overwritten, others left alone). Returns the directory."""
    root = Path(path)
    contents: dict[str, str] = {
        TASK_JSON: _dump_json(task.task_json()),
        task.file_name("description_file"): task.description,
        task.file_name("lean_file"): task.lean_text(),
        task.file_name("test_file"): _dump_json(
            [{"input": t.input, "expected": t.expected, "unexpected": t.unexpected} for t in task.tests]
        ),
        task.file_name("reject_inputs_file"): _dump_json([{"input": r.input} for r in task.reject_inputs]),
    }
    if len(contents) != 1 + len(FILE_FIELDS):
        raise ValueError(f"task {task.id}: task.json file fields name the same file twice")
    for name, text in task.extra_files.items():
        relative = _relative_file(name, "extra file name")
        if relative in contents:
            raise ValueError(f"task {task.id}: extra file {name!r} clashes with a task file")
        contents[relative] = text
    root.mkdir(parents=True, exist_ok=True)
    for name, text in contents.items():
        _write_text(root / name, text)
    return root


def write_benchmark(tasks: Iterable[Task], path: str | Path) -> list[Path]:
    """Write each task to ``path/<task.id>``; returns the task directories."""
    root = Path(path)
    tasks = list(tasks)
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate task ids {duplicates}")
    for task_id in ids:
        if task_id in ("", ".", "..") or any(c in task_id for c in "/\\\0"):
            raise ValueError(f"task id {task_id!r} cannot be a directory name")
    root.mkdir(parents=True, exist_ok=True)
    return [write_task(task, root / task.id) for task in tasks]
