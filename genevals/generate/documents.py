"""Reading DOCS for ``genevals generate``: a folder of ``.txt``/``.md``/``.html`` files, a JSONL or TSV file of
``{id, text}`` rows, or pre-chunked rows (``{doc_id, text}``, one chunk a row, in document order).

Text is extracted by maintained libraries, never by regexes: HTML through BeautifulSoup's ``html.parser`` tree
(``script``, ``style``, ``noscript``, ``template`` and ``head`` left out; block elements end lines), Markdown
rendered by markdown-it-py (CommonMark) and then read the same way. Both come with the ``generate`` extra
(``pip install 'genevals[generate]'``); a folder with ``.md`` or ``.html`` files and no extra installed stops
with an error naming the extra. Plain text is read as it is.

Every problem stops the read with an :class:`~genevals.input.rows.InputError` naming the file, the line and the
field (``docs.jsonl:7: field 'text': missing text``): DOCS with no document, a binary file (a NUL byte), bytes
that are not UTF-8 (the line and byte offset of the first), a file over :data:`MAX_FILE` bytes, a row that is
not a JSON object, a missing or non-string ``id`` or ``text``, an id with whitespace or ``#``, a duplicate id.
One exception: a document whose text is empty or blank (a folder's empty file, a row with ``"text": ""``; real
collections have them: Cranfield has 2) is skipped, and :attr:`Corpus.skipped` says where, located the same
way; DOCS with no document left is the error.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from genevals.files import Refused, read_limited
from genevals.generate.items import Chunk, Document
from genevals.input.rows import InputError

#: the most bytes read of one file: a document set larger than this belongs in JSONL pieces
MAX_FILE = 64 * 1024 * 1024
#: the file names a folder's documents may have; others are listed as skipped
TEXT_SUFFIXES = (".txt", ".text")
MARKDOWN_SUFFIXES = (".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
SUFFIXES = TEXT_SUFFIXES + MARKDOWN_SUFFIXES + HTML_SUFFIXES
#: the extra that installs the HTML and Markdown readers
EXTRA = "generate"
#: elements whose text is not the page's text
_HIDDEN = ("script", "style", "noscript", "template", "head")
#: elements that start and end a line of text (HTML's block and table elements, and line breaks)
_BLOCKS = ("p", "div", "br", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
           "blockquote", "section", "article", "header", "footer", "aside", "nav", "main", "table", "tr", "td",
           "th", "caption", "figure", "figcaption", "hr", "address", "details", "summary")


@dataclass(frozen=True)
class Corpus:
    """What DOCS held: the documents, and their chunks when the rows came chunked (else None: chunk them);
    ``skipped``: what was left out and why, located (``docs.jsonl:471: field 'text': empty, skipped``)."""

    documents: tuple[Document, ...]
    chunks: tuple[Chunk, ...] | None = None
    skipped: tuple[str, ...] = ()


def read_docs(path: str | Path) -> Corpus:
    """DOCS read whole: a folder, a ``.jsonl`` or a ``.tsv`` file; InputError (located) for any bad input."""
    path = Path(path)
    if path.is_dir():
        return _folder(path)
    if not path.exists():
        raise InputError(str(path), None, None, "no such file or folder")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return _rows(path, _jsonl_rows(path))
    if suffix in (".tsv", ".tab"):
        return _rows(path, _tsv_rows(path))
    if suffix in SUFFIXES:
        doc = _document(path, path.name, path.stem)
        if not doc.text.strip():
            raise InputError(str(path), 1, "text", "empty document: no text to make items from")
        return Corpus((doc,))
    raise InputError(str(path), None, None, "DOCS must be a folder of .txt/.md/.html files, or a .jsonl or .tsv "
                                            "file of {id, text} rows")


def _folder(root: Path) -> Corpus:
    files = sorted(p for p in root.rglob("*") if p.is_file() and not any(s.startswith(".") for s in
                                                                          p.relative_to(root).parts))
    docs, skipped = [], []
    for file in files:
        if file.suffix.lower() in SUFFIXES:
            relative = "_".join(file.relative_to(root).as_posix().split())  # TREC files split on whitespace
            doc = _document(file, relative, relative.rsplit(".", 1)[0])
            if doc.text.strip():
                docs.append(doc)
            else:
                skipped.append(f"{file}:1: field 'text': empty document, skipped")
        else:
            skipped.append(f"{file}: not a {'/'.join(SUFFIXES)} file, skipped")
    if not docs:
        raise InputError(str(root), None, None, f"no documents: the folder has no {'/'.join(SUFFIXES)} file")
    return Corpus(tuple(docs), None, tuple(skipped))


def _decoded(path: Path) -> str:
    """The file's text: InputError for a file over :data:`MAX_FILE`, a binary one or one not in UTF-8."""
    try:
        data = read_limited(path, MAX_FILE, "document")
    except Refused as exc:
        raise InputError(str(path), None, None, str(exc)) from None
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(str(path), line, None, f"binary file (a NUL byte at byte {nul}), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(str(path), line, None, f"not UTF-8 text (byte {exc.start}: "
                                                f"{data[exc.start:exc.start + 1]!r})") from None


def _document(path: Path, doc_id: str, title: str) -> Document:
    raw = _decoded(path)
    suffix = path.suffix.lower()
    if suffix in HTML_SUFFIXES:
        text, found = html_text(raw, str(path))
    elif suffix in MARKDOWN_SUFFIXES:
        text, found = markdown_text(raw, str(path))
    else:
        text, found = raw.strip(), ""
    return Document(doc_id, text, str(path), found or title)


def _missing_extra(source: str, what: str) -> InputError:
    return InputError(source, None, None, f"reading {what} needs the {EXTRA} extra: "
                                          f"pip install 'genevals[{EXTRA}]'")


def html_text(html: str, source: str = "<html>") -> tuple[str, str]:
    """(the page's visible text, one block a line; its ``<title>`` or first ``<h1>``, or "")."""
    try:
        from bs4 import BeautifulSoup
    except ImportError:
        raise _missing_extra(source, "HTML") from None
    soup = BeautifulSoup(html, "html.parser")
    heading = soup.find("title") or soup.find("h1")
    title = " ".join(heading.get_text(" ").split()) if heading is not None else ""
    lines = (" ".join(line.split()) for line in "".join(_visible(soup)).splitlines())
    return "\n".join(line for line in lines if line), title


def _visible(root) -> list[str]:
    """The tree's text in document order, a newline around each block element, hidden elements and comments left
    out: one walk with a stack of its own (a page nested 50,000 deep is read in linear time, with no recursion;
    changing the tree instead costs each element its depth)."""
    from bs4 import NavigableString, Tag

    out: list[str] = []
    stack: list = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and not isinstance(node, NavigableString):
            out.append(node)  # a block's closing newline, pushed below
        elif isinstance(node, Tag):
            if node.name in _HIDDEN:
                continue
            block = node.name in _BLOCKS
            if block:
                out.append("\n")
                stack.append("\n")
            stack.extend(reversed(node.contents))
        elif type(node) is NavigableString:  # not a Comment, Doctype, CData or processing instruction
            out.append(str(node))
    return out


def markdown_text(markdown: str, source: str = "<markdown>") -> tuple[str, str]:
    """(the text of the rendered Markdown, one block a line; its first heading, or "")."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        raise _missing_extra(source, "Markdown") from None
    return html_text(MarkdownIt("commonmark").render(markdown), source)


def _jsonl_rows(path: Path):
    text = _decoded(path)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InputError(str(path), number, None, f"not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(row, dict):
            raise InputError(str(path), number, None, f"expected a JSON object, got {type(row).__name__}")
        yield number, row


def _tsv_rows(path: Path):
    text = _decoded(path)
    reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    fields = reader.fieldnames or []
    if "text" not in fields:
        raise InputError(str(path), 1, "text", f"no 'text' column in the header (columns: {', '.join(fields)})")
    for row in reader:
        yield reader.line_num, {k: v for k, v in row.items() if k is not None}


def _field(path: Path, number: int, row: dict, name: str) -> str:
    value = row.get(name)
    if value is None:
        raise InputError(str(path), number, name, f"missing {name}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and name != "text":
        value = str(value)
    if not isinstance(value, str):
        raise InputError(str(path), number, name, f"expected a string, got {type(value).__name__}")
    if not value.strip() and name != "text":
        raise InputError(str(path), number, name, f"empty {name}")
    return value


def _check_id(path: Path, number: int, name: str, value: str) -> None:
    """An id becomes a TREC document id (qrels): no whitespace, no ``#`` (chunk ids are ``doc#n``)."""
    if any(c.isspace() for c in value) or "#" in value:
        raise InputError(str(path), number, name, f"{value[:40]!r}: an id may hold no whitespace and no '#' "
                                                  "(qrels lines split on whitespace; chunk ids are doc#n)")


def _rows(path: Path, rows) -> Corpus:
    """Rows of ``{id, text[, title]}`` (one document each) or, when the first row has ``doc_id``, pre-chunked rows
    ``{doc_id, text[, id]}``: each a chunk of ``doc_id``, a document's chunks in order (its text is theirs joined
    by blank lines; each chunk's offsets are into that text), its id the row's ``id`` (the id a retriever returns,
    so qrels match its runs), else ``doc_id#n``."""
    docs: dict[str, Document] = {}
    pieces: dict[str, list[tuple[str, str | None, str]]] = {}
    ids: dict[str, str] = {}
    chunked: bool | None = None
    skipped: list[str] = []
    for number, row in rows:
        if chunked is None:
            chunked = "doc_id" in row
        text = _field(path, number, row, "text")
        if not text.strip():
            skipped.append(f"{path}:{number}: field 'text': empty, skipped")
            continue
        if chunked:
            doc_id = _field(path, number, row, "doc_id")
            _check_id(path, number, "doc_id", doc_id)
            chunk_id = _field(path, number, row, "id") if "id" in row else None
            if chunk_id is not None:
                if any(c.isspace() for c in chunk_id):
                    raise InputError(str(path), number, "id", f"{chunk_id[:40]!r}: a chunk id may hold no "
                                                              "whitespace (qrels lines split on whitespace)")
                if chunk_id in ids:
                    raise InputError(str(path), number, "id", f"duplicate chunk id {chunk_id!r} (first at {ids[chunk_id]})")
                ids[chunk_id] = f"{path}:{number}"
            pieces.setdefault(doc_id, []).append((text, chunk_id, f"{path}:{number}"))
            continue
        doc_id = _field(path, number, row, "id")
        _check_id(path, number, "id", doc_id)
        if doc_id in docs:
            raise InputError(str(path), number, "id", f"duplicate id {doc_id!r} (first at {docs[doc_id].source})")
        title = row.get("title") if isinstance(row.get("title"), str) else ""
        docs[doc_id] = Document(doc_id, text, f"{path}:{number}", title)
    if not docs and not pieces:
        raise InputError(str(path), 1, "text", "no documents: the file has no row with text")
    if not chunked:
        return Corpus(tuple(docs.values()), None, tuple(skipped))
    documents, chunks = [], []
    for doc_id, parts in pieces.items():
        start = 0
        for n, (text, chunk_id, _) in enumerate(parts):
            chunks.append(Chunk(chunk_id or f"{doc_id}#{n}", doc_id, n, text, start, start + len(text)))
            start += len(text) + 2
        documents.append(Document(doc_id, "\n\n".join(t for t, _, _ in parts), parts[0][2]))
    return Corpus(tuple(documents), tuple(chunks), tuple(skipped))
