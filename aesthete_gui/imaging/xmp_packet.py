"""The three fields Aesthete owns inside an XMP packet, found by their bytes and changed in place.

A sidecar is never parsed into a tree and written out again: the packet is scanned once (expat,
with byte offsets) for `xmp:Rating`, `xmp:Label` and `digiKam:PickLabel` on the top-level
`rdf:Description` elements, and a write replaces, inserts or removes only those bytes. Comments,
processing instructions, other namespaces, qualifiers, whitespace and attribute order stay
byte-for-byte as they were.

Forms understood for each field: an attribute of a description (`xmp:Rating="3"`), a simple
element (`<xmp:Rating>3</xmp:Rating>`), and a qualified value (`<xmp:Rating
rdf:parseType="Resource"><rdf:value>3</rdf:value>…`, the same inside an `rdf:Description`, or as
an `rdf:value` attribute); a qualified value is read as its `rdf:value` and written as one again.
When a field occurs more than once, the last occurrence in document order is the value, as
exiftool reads it, and a write sets every occurrence. A field whose value cannot be read (a list,
a resource, a rating outside -1..5, a label Aesthete does not know) is reported, and a write that
would change it is refused with the reason.

Bytes after the packet's trailer (`<?xpacket end="w"?>`: NULs, junk another program appended) are
not part of the packet (XMP part 1, 7.3): the packet is read and edited and they are kept verbatim.
A second packet there is refused: exiftool reads both and the later one wins, so a mark set in the
first would not be what other programs show.
"""

from __future__ import annotations

import math
import re
import xml.parsers.expat as expat
from dataclasses import dataclass, field

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XMP = "http://ns.adobe.com/xap/1.0/"
DIGIKAM = "http://www.digikam.org/ns/1.0/"
LABELS = ("Red", "Yellow", "Green", "Blue", "Purple")
MAX_XML_DEPTH = 100
"""Deeper element nesting is refused (real XMP nests about ten levels)."""

FIELDS: dict[str, tuple[str, str, str]] = {
    "Rating": (XMP, "Rating", "xmp"),
    "Label": (XMP, "Label", "xmp"),
    "PickLabel": (DIGIKAM, "PickLabel", "digiKam"),
}
"""Our field -> (namespace, local name, preferred prefix)."""
_BY_NAME = {f"{ns} {local}": key for key, (ns, local, _) in FIELDS.items()}
_RDF_VALUE, _RDF_DESC = f"{RDF} value", f"{RDF} Description"
_START_TAG = re.compile(rb"<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_ATTRIBUTE = re.compile(rb"(\s+)([^\s=/>]+)\s*=\s*(\"([^\"]*)\"|'([^']*)')")
_SECOND_PACKET = re.compile(rb"<\?xpacket|<[\w.-]*:?xmpmeta\b|<[\w.-]*:RDF\b|<[\w.-]*:Description\b"
                            rb"|[\w.-]+:(?:Rating|PickLabel|Label)\s*=|<[\w.-]+:(?:Rating|PickLabel|Label)\b")
"""Markup of another packet after the trailer (bare words such as "Label printer log" are plain text:
an attack saw one refused as more XMP, where exiftool read the sidecar)."""
_RATING_TEXT = re.compile(r"[+-]?[0-9]{1,3}(?:\.[0-9]{1,6})?")  # ASCII digits: exiftool reads "２" as no number


class PacketError(Exception):
    """The packet cannot be read (not XML, too deep, a document type) or a write must be refused."""


def _shown(value: str, limit: int = 40) -> str:
    """A short, escaped quotation of untrusted text for a message."""
    return ascii(value[:limit] + ("…" if len(value) > limit else ""))


@dataclass
class Occurrence:
    """One place a field is written: its value, the bytes holding it, and the bytes to remove."""

    value: str | None
    slot: tuple[int, int] | None
    whole: tuple[int, int]
    problem: str | None = None
    rewrite_as: bytes | None = None  # an empty element (<xmp:Rating/>): the element name, rewritten whole


@dataclass
class _Description:
    tag_end: int  # where a new attribute goes: after the last attribute of the start tag
    indent: bytes | None  # newline + indentation of the attributes when they stand one per line
    prefixes: dict[str, str]  # namespace -> a prefix bound to it at this element


@dataclass
class Packet:
    """A scanned packet: every occurrence of our fields and where new ones would go."""

    data: bytes
    fields: dict[str, list[Occurrence]] = field(default_factory=lambda: {k: [] for k in FIELDS})
    descriptions: list[_Description] = field(default_factory=list)
    rdf_close: int | None = None  # start of the first </rdf:RDF>, for a description of our own
    rdf_prefix: str | None = None
    editable: str | None = None  # why the bytes cannot be edited (None: they can)

    def value(self, key: str) -> Occurrence | None:
        """The occurrence that gives the field its value (the last one), or None."""
        found = self.fields[key]
        return found[-1] if found else None


@dataclass
class _Open:
    kind: str  # rdf, desc, field, field-desc, field-value, other
    name: str
    start: int
    raw: bytes
    empty: bool
    body: int  # first byte after the start tag
    key: str | None = None
    occurrence: Occurrence | None = None
    text: list[str] = field(default_factory=list)
    children: int = 0
    resource_form: bool = False
    inner_comment: bool = False


class _Scanner:
    """Walks the packet with expat, keeping byte offsets of our fields."""

    def __init__(self, data: bytes) -> None:
        self.packet = Packet(data)
        self.stack: list[_Open] = []
        self.scopes: list[dict[str, str]] = [{}]  # prefix -> namespace, innermost last
        self.pending: dict[str, str] = {}
        self.parser = expat.ParserCreate(namespace_separator=" ")
        self.parser.ordered_attributes = True
        self.parser.specified_attributes = True
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.characters
        self.parser.StartNamespaceDeclHandler = self.namespace
        self.parser.CommentHandler = self.comment
        self.parser.ProcessingInstructionHandler = self.instruction
        self.root_seen = False
        self.packet_end: int | None = None  # first byte after the trailer that follows the root
        self.parser.StartDoctypeDeclHandler = self.doctype
        if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:64]:
            self.packet.editable = "not UTF-8 (written as UTF-16 or UTF-32)"

    def run(self) -> Packet:
        self.parser.Parse(self.packet.data, True)
        return self.packet

    # expat handlers ---------------------------------------------------------------------------
    def doctype(self, *_: object) -> None:
        raise PacketError("has a document type declaration, which XMP never has")

    def namespace(self, prefix: str | None, uri: str) -> None:
        self.pending[prefix or ""] = uri

    def comment(self, _text: str) -> None:
        if self.stack and self.stack[-1].kind in ("field", "field-value"):
            self.stack[-1].inner_comment = True  # inside the bytes a new value would replace

    def instruction(self, target: str, text: str) -> None:
        self.comment("")
        after_root = self.root_seen and not self.stack and self.packet_end is None
        if after_root and target == "xpacket" and text.lstrip().startswith("end"):
            self.packet_end = self.packet.data.find(b"?>", self.parser.CurrentByteIndex) + 2

    def characters(self, text: str) -> None:
        if self.stack and self.stack[-1].kind in ("field", "field-value"):
            self.stack[-1].text.append(text)

    def start(self, name: str, attributes: list[str]) -> None:
        if len(self.stack) >= MAX_XML_DEPTH:
            raise PacketError(f"elements nested more than {MAX_XML_DEPTH} deep")
        self.scopes.append({**self.scopes[-1], **self.pending})
        self.pending = {}
        self.root_seen = True
        start = self.parser.CurrentByteIndex
        tag = _START_TAG.match(self.packet.data, start) if self.packet.editable is None else None
        if tag is None and self.packet.editable is None:
            self.packet.editable = "a start tag Aesthete cannot follow byte by byte"
        raw = tag.group(1) if tag else b""
        empty = bool(tag and tag.group(3))
        body = tag.end() if tag else start
        parent = self.stack[-1] if self.stack else None
        kind = self._kind(name, parent)
        opened = _Open(kind, name, start, raw, empty, body)
        if parent is not None:
            parent.children += 1
        pairs = list(zip(attributes[::2], attributes[1::2], strict=True))
        spans: list = self._attribute_spans(tag) if tag else [((start, start), None)] * len(pairs)
        if kind == "rdf" and self.packet.rdf_prefix is None:
            self.packet.rdf_prefix = raw.decode("utf-8", "replace").partition(":")[0] if b":" in raw else ""
        elif kind == "desc":
            self._description(pairs, spans, tag)
        elif kind == "field":
            opened.key = _BY_NAME[name]
            opened.occurrence = Occurrence(None, None, (start, body))
            self._field_attributes(opened, pairs, spans)
        elif kind == "field-desc" and parent is not None and parent.occurrence is not None:
            for (attr, value), span in zip(pairs, spans, strict=False):
                if attr == _RDF_VALUE:
                    parent.occurrence.value, parent.occurrence.slot = value, span[1]
        self.stack.append(opened)

    def end(self, name: str) -> None:
        opened = self.stack.pop()
        self.scopes.pop()
        here = self.parser.CurrentByteIndex
        close = opened.body if opened.empty else self.packet.data.find(b">", here) + 1
        if opened.kind == "rdf" and self.packet.rdf_close is None and not opened.empty:
            self.packet.rdf_close = here
        elif opened.kind == "field-value" and self.stack:
            owner = self.stack[-1] if self.stack[-1].kind == "field" else self.stack[-2]
            if owner.occurrence is not None:
                owner.occurrence.value = "".join(opened.text)
                owner.occurrence.slot = None if opened.empty else (opened.body, here)
                if opened.inner_comment:
                    owner.occurrence.problem = "holds a comment inside its value"
        elif opened.kind == "field" and opened.occurrence is not None and opened.key is not None:
            self._finish_field(opened, here, close)

    # pieces -----------------------------------------------------------------------------------
    def _kind(self, name: str, parent: _Open | None) -> str:
        parent_kind = parent.kind if parent else None
        if name == f"{RDF} RDF":
            return "rdf"
        if parent_kind == "rdf" and name == _RDF_DESC:
            return "desc"
        if parent_kind == "desc" and name in _BY_NAME:
            return "field"
        if parent_kind == "field" and name == _RDF_DESC:
            return "field-desc"
        if parent_kind in ("field", "field-desc") and name == _RDF_VALUE:
            return "field-value"
        return "other"

    def _attribute_spans(self, tag: re.Match[bytes]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """(whole attribute with its leading space, value inside the quotes) of each non-xmlns attribute."""
        spans = []
        offset = tag.start(2)
        for match in _ATTRIBUTE.finditer(tag.group(2)):
            name = match.group(2)
            if name == b"xmlns" or name.startswith(b"xmlns:"):
                continue
            quote = 4 if match.group(4) is not None else 5
            spans.append(((offset + match.start(), offset + match.end()),
                          (offset + match.start(quote), offset + match.end(quote))))  # fmt: skip
        return spans

    def _description(self, pairs: list[tuple[str, str]], spans: list, tag: re.Match[bytes] | None) -> None:
        for (attr, value), span in zip(pairs, spans, strict=False):
            key = _BY_NAME.get(attr)
            if key is not None:
                self.packet.fields[key].append(Occurrence(value, span[1], span[0]))
        if tag is None:
            return
        attrs = list(_ATTRIBUTE.finditer(tag.group(2)))
        last = attrs[-1] if attrs else None
        tag_end = tag.start(2) + (last.end() if last else 0)
        indent = last.group(1) if last is not None and b"\n" in last.group(1) else None
        prefixes = {uri: prefix for prefix, uri in self.scopes[-1].items() if prefix}
        self.packet.descriptions.append(_Description(tag_end, indent, prefixes))

    def _field_attributes(self, opened: _Open, pairs: list[tuple[str, str]], spans: list) -> None:
        assert opened.occurrence is not None
        for (attr, value), span in zip(pairs, spans, strict=False):
            if attr == _RDF_VALUE:
                opened.occurrence.value, opened.occurrence.slot = value, span[1]
            elif attr == f"{RDF} parseType" and value == "Resource":
                opened.resource_form = True
            elif attr == f"{RDF} resource":
                opened.occurrence.problem = "is a reference to a resource, not a value"

    def _finish_field(self, opened: _Open, here: int, close: int) -> None:
        occurrence = opened.occurrence
        assert occurrence is not None and opened.key is not None
        occurrence.whole = (self._whitespace_before(opened.start), close)
        if occurrence.problem is None:
            if opened.children == 0 and occurrence.slot is None:
                occurrence.value = "".join(opened.text)
                if opened.empty:
                    occurrence.rewrite_as = opened.raw
                else:
                    occurrence.slot = (opened.body, here)
            elif opened.children and occurrence.slot is None and occurrence.value is None:
                occurrence.problem = "is a list or a structure, not one value"
            if opened.inner_comment and not opened.children and occurrence.problem is None:
                occurrence.problem = "holds a comment inside its value"
        self.packet.fields[opened.key].append(occurrence)

    def _whitespace_before(self, position: int) -> int:
        data = self.packet.data
        while position > 0 and data[position - 1 : position] in (b" ", b"\t", b"\n", b"\r"):
            position -= 1
        return position


def scan(data: bytes) -> Packet:
    """Scan a packet; PacketError with the reason when it is not XML Aesthete can read.

    Bytes after the packet's trailer are kept in `data` (edits never reach them) unless they look
    like another packet, which is refused."""
    scanner = _Scanner(data)
    try:
        return _parsed(scanner)
    except PacketError:
        if scanner.packet_end is None or scanner.packet_end <= 1:
            raise
    tail = data[scanner.packet_end :]
    found = _SECOND_PACKET.search(tail)
    if found is not None:
        raise PacketError(f"more XMP follows the packet's end ({_shown(found.group().decode())} at byte "
                          f"{scanner.packet_end + found.start()}), which other programs may read instead")  # fmt: skip
    packet = _parsed(_Scanner(data[: scanner.packet_end]))
    packet.data = data  # offsets are the same; the bytes after the trailer stay as they are
    return packet


def _parsed(scanner: _Scanner) -> Packet:
    try:
        return scanner.run()
    except expat.ExpatError as error:
        raise PacketError(f"not valid XML ({expat.ErrorString(error.code)}: line {error.lineno}, "
                          f"column {error.offset})") from None  # fmt: skip
    except (RecursionError, MemoryError, UnicodeError, ValueError) as error:
        raise PacketError(f"cannot be parsed ({type(error).__name__}: {error})") from None


# -- meaning ---------------------------------------------------------------------------------
def rating_meaning(text: str | None) -> int | None:
    """-1..5 from a rating text; None when absent or empty. ValueError when it is no such number."""
    if text is None or not text.strip():
        return None
    cleaned = text.strip()
    if not _RATING_TEXT.fullmatch(cleaned):
        raise ValueError(f"xmp:Rating is not a number from -1 to 5: {_shown(cleaned)}")
    number = float(cleaned)
    if not math.isfinite(number) or not -1 <= number <= 5:
        raise ValueError(f"xmp:Rating is not a number from -1 to 5: {_shown(cleaned)}")
    return math.floor(number + 0.5)


def label_meaning(text: str | None) -> str | None:
    """The canonical colour label; None when absent or empty. ValueError for a label Aesthete does not know."""
    if text is None or not text.strip():
        return None
    found = next((name for name in LABELS if name.lower() == text.strip().lower()), None)
    if found is None:
        raise ValueError(f"xmp:Label is not one of {', '.join(LABELS)}: {_shown(text.strip())}")
    return found


def pick_meaning(text: str | None) -> str | None:
    """'reject' for PickLabel 1, 'pick' for 3, else None (0 none, 2 pending, anything else)."""
    value = (text or "").strip()
    return {"1": "reject", "3": "pick"}.get(value)


_MEANING = {"Rating": rating_meaning, "Label": label_meaning, "PickLabel": pick_meaning}
_QNAME = {"Rating": "xmp:Rating", "Label": "xmp:Label", "PickLabel": "digiKam:PickLabel"}


def field_meaning(packet: Packet, key: str) -> object:
    """The field's meaning (see the *_meaning functions); ValueError with the reason when unreadable."""
    occurrence = packet.value(key)
    if occurrence is None:
        return None
    if occurrence.problem is not None:
        raise ValueError(f"{_QNAME[key]} {occurrence.problem}")
    return _MEANING[key](occurrence.value)


# -- editing ---------------------------------------------------------------------------------
def _escaped(value: str) -> bytes:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;").encode("utf-8"))  # fmt: skip


def _same(key: str, current: object, wanted: str | None) -> bool:
    """Whether the field already means `wanted` (an absent rating counts as 0)."""
    meaning = _MEANING[key](wanted)
    if key == "Rating":
        return (current or 0) == (meaning or 0)
    return current == meaning


def edit(packet: Packet, wanted: dict[str, str | None]) -> bytes:
    """The packet's bytes with the fields in `wanted` set (None removes); only their bytes change.

    Fields that already mean the wanted value are left alone. PacketError when a field to change
    holds a value Aesthete cannot read, or the bytes cannot be followed.
    """
    edits: list[tuple[int, int, bytes]] = []
    inserts: list[tuple[str, str]] = []
    for key, value in wanted.items():
        try:
            current = field_meaning(packet, key)
        except ValueError as error:
            raise PacketError(f"{error}; left as it is (change it in the program that wrote it)") from None
        if _same(key, current, value):
            continue
        if packet.editable is not None:
            raise PacketError(f"{packet.editable}; left as it is")
        occurrences = packet.fields[key]
        if value is None:
            edits += [(o.whole[0], o.whole[1], b"") for o in occurrences]
        elif occurrences:
            for occurrence in occurrences:  # duplicates too: every reader then sees the new value
                if occurrence.problem is not None:
                    raise PacketError(f"{_QNAME[key]} {occurrence.problem}; left as it is")
                if occurrence.slot is not None:
                    edits.append((*occurrence.slot, _escaped(value)))
                elif occurrence.rewrite_as is not None:
                    name = occurrence.rewrite_as
                    start = packet.data.index(b"<", occurrence.whole[0])
                    edits.append((start, occurrence.whole[1], b"<%s>%s</%s>" % (name, _escaped(value), name)))
                else:
                    raise PacketError(f"{_QNAME[key]} has a form Aesthete cannot rewrite; left as it is")
        else:
            inserts.append((key, value))
    edits += _insertions(packet, inserts)
    data = packet.data
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        data = data[:start] + replacement + data[end:]
    return data


def _insertions(packet: Packet, inserts: list[tuple[str, str]]) -> list[tuple[int, int, bytes]]:
    if not inserts:
        return []
    if packet.editable is not None:
        raise PacketError(f"{packet.editable}; left as it is")
    if packet.descriptions:
        by_target: dict[int, list[tuple[str, str]]] = {}
        for key, value in inserts:  # each field beside its namespace, else in the first description
            index = next((i for i, d in enumerate(packet.descriptions) if FIELDS[key][0] in d.prefixes), 0)
            by_target.setdefault(index, []).append((key, value))
        out = []
        for index, fields in by_target.items():
            target = packet.descriptions[index]
            out.append((target.tag_end, target.tag_end, _attributes(fields, target.prefixes, target.indent or b" ")))
        return out
    if packet.rdf_close is None or packet.rdf_prefix is None:
        raise PacketError("has no rdf:RDF element to hold the marks (not an XMP packet); left as it is")
    rdf = f"{packet.rdf_prefix}:" if packet.rdf_prefix else ""
    text = f'<{rdf}Description {rdf}about=""'.encode()
    text += _attributes(inserts, {}, b" ") + b"/>"
    return [(packet.rdf_close, packet.rdf_close, text)]


def _attributes(inserts: list[tuple[str, str]], prefixes: dict[str, str], separator: bytes) -> bytes:
    """` prefix:Name="value"` for each insert, with a namespace declaration where none is in scope."""
    declared = dict(prefixes)
    taken = set(prefixes.values())
    out = b""
    for key, value in inserts:
        namespace, local, preferred = FIELDS[key]
        prefix = declared.get(namespace)
        if prefix is None:
            prefix = preferred
            while prefix in taken:
                prefix += "_"
            declared[namespace] = prefix
            taken.add(prefix)
            out += separator + f'xmlns:{prefix}="{namespace}"'.encode()
        out += separator + f"{prefix}:{local}=".encode() + b'"' + _escaped(value) + b'"'
    return out


def new_packet(wanted: dict[str, str | None]) -> bytes:
    """A new sidecar holding the given fields (None values left out)."""
    lines = [
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
        '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
        f' <rdf:RDF xmlns:rdf="{RDF}">',
        '  <rdf:Description rdf:about=""',
        f'    xmlns:xmp="{XMP}"',
        f'    xmlns:digiKam="{DIGIKAM}"',
    ]
    for key, value in wanted.items():
        if value is not None:
            _, local, prefix = FIELDS[key]
            lines.append(f"    {prefix}:{local}=\"{_escaped(value).decode('utf-8')}\"")
    lines[-1] += "/>"
    lines += [" </rdf:RDF>", "</x:xmpmeta>", '<?xpacket end="w"?>', ""]
    return "\n".join(lines).encode("utf-8")
