import os
from collections.abc import Buffer, Iterable
from typing import Literal, Protocol, Self, final, overload

__version__: str

@final
class md5:
    """An MD5 hash object with the interface of ``hashlib.md5``."""

    name: str
    digest_size: int
    block_size: int
    def __init__(self, data: Buffer = b"", /, *, usedforsecurity: bool = True) -> None: ...
    def update(self, data: Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> Self: ...

def digest_many(rows: Iterable[Buffer], /) -> list[bytes]: ...
def hexdigest_many(rows: Iterable[Buffer], /) -> list[str]: ...

class _ArrowArrayExportable(Protocol):
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...

class _ArrowStreamExportable(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

@final
class ArrowArray:
    """A column of digests, exported through the Arrow PyCapsule interface.

    ``pyarrow.array(r)``, ``polars.Series(r)`` and other consumers read its
    buffers in place. Its type is ``string`` for hex and base64 digests
    (``string_view`` for a view input, ``large_string`` past 67,108,863 rows
    of hex; a consumer may request any of the three) and
    ``fixed_size_binary(16)`` for binary ones.
    """

    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The column as a stream of one array."""
    def __len__(self) -> int: ...

@final
class ArrowStream:
    """A stream of digest columns, one for each array of the input stream,
    exported through the Arrow PyCapsule interface; each export starts from
    the first."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

@overload
def hash_array(
    array: _ArrowArrayExportable,
    /,
    output: Literal["hex", "binary", "base64"] = "hex",
) -> ArrowArray: ...
@overload
def hash_array(
    array: _ArrowStreamExportable,
    /,
    output: Literal["hex", "binary", "base64"] = "hex",
) -> ArrowStream: ...
def hash_array(
    array: _ArrowArrayExportable | _ArrowStreamExportable,
    /,
    output: Literal["hex", "binary", "base64"] = "hex",
) -> ArrowArray | ArrowStream:
    """The MD5 of each row of an Arrow column, as an Arrow column.

    ``array`` exports ``__arrow_c_array__`` (read first) or
    ``__arrow_c_stream__``: a column of utf8, large_utf8, utf8_view,
    binary, large_binary or binary_view, or a table or record batch stream
    of one such column; other types raise ``TypeError``. Nulls give nulls.
    ``output`` is ``"hex"``, ``"binary"`` (16 bytes) or ``"base64"``
    (padded); anything else raises ``ValueError``. An array gives an
    ``ArrowArray``, a stream an ``ArrowStream``. The GIL is released while
    the rows are hashed.
    """

def s3_etag(
    source: str | os.PathLike[str] | os.PathLike[bytes] | bytes | Buffer,
    /,
    part_size: int = 8 * 1024 * 1024,
) -> str: ...
def hash_files(
    paths: Iterable[str | os.PathLike[str] | os.PathLike[bytes] | bytes],
    /,
    *,
    jobs: int | None = None,
) -> list[bytes]: ...
