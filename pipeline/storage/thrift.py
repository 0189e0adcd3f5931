"""Thrift's compact protocol, encoding only: what a Parquet footer and page header are.

A struct is a dict of field id to a typed value (:func:`i32`, :func:`binary`,
a nested dict, :func:`lst` ...), encoded in field-id order. Fields that are
None are left out (Thrift's optional fields).
"""

from __future__ import annotations

from typing import Any, TypeAlias

_BYTE, _I32, _I64, _BINARY, _LIST, _STRUCT = 3, 5, 6, 8, 9, 12
_TRUE, _FALSE = 1, 2


class Value:
    """A value with its compact type."""

    __slots__ = ("kind", "value")

    # Any: an int, bytes or a list of Values or structs: the kind says which
    def __init__(self, kind: int, value: Any) -> None:
        self.kind = kind
        self.value = value


#: A struct: field id to its Value, a nested struct, or None (left out).
#: Any: the dict literals of mixed fields are not inferred as a recursive union.
Struct: TypeAlias = dict[int, Any]


def i8(v: int) -> Value:
    return Value(_BYTE, v)


def i32(v: int) -> Value:
    return Value(_I32, v)


def i64(v: int) -> Value:
    return Value(_I64, v)


def binary(v: bytes | str) -> Value:
    return Value(_BINARY, v.encode() if isinstance(v, str) else v)


def boolean(v: bool) -> Value:
    return Value(_TRUE if v else _FALSE, v)


def lst(items: list[Value] | list[Struct]) -> Value:
    """A list; its elements share one type (structs as dicts)."""
    return Value(_LIST, items)


def encode(fields: Struct) -> bytes:
    """The struct ``fields`` in the compact protocol."""
    out = bytearray()
    _struct(out, fields)
    return bytes(out)


def varint(out: bytearray, v: int) -> None:
    while v > 0x7F:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)


def _zigzag(v: int) -> int:
    return v << 1 if v >= 0 else (-v << 1) - 1


def _kind(v: Value | Struct) -> int:
    return _STRUCT if isinstance(v, dict) else v.kind


def _struct(out: bytearray, fields: Struct) -> None:
    last = 0
    for fid in sorted(fields):
        v = fields[fid]
        if v is None:
            continue
        kind = _kind(v)
        if 0 < fid - last <= 15:
            out.append((fid - last) << 4 | kind)
        else:
            out.append(kind)
            varint(out, _zigzag(fid))
        last = fid
        if kind not in (_TRUE, _FALSE):
            _value(out, kind, v)
    out.append(0)


# Any: a Value or a Struct, as ``kind`` says (the encoder dispatches on it)
def _value(out: bytearray, kind: int, v: Any) -> None:
    if kind == _STRUCT:
        _struct(out, v)
    elif kind == _BYTE:
        out.append(v.value & 0xFF)
    elif kind in (_I32, _I64):
        varint(out, _zigzag(v.value))
    elif kind == _BINARY:
        varint(out, len(v.value))
        out += v.value
    elif kind == _LIST:  # of structs, integers or strings (no booleans)
        items = v.value
        inner = _kind(items[0]) if items else _BYTE
        if len(items) < 15:
            out.append(len(items) << 4 | inner)
        else:
            out.append(0xF0 | inner)
            varint(out, len(items))
        for item in items:
            _value(out, _kind(item), item)
    else:
        raise ValueError(f"thrift: no encoding for kind {kind}")
