import os
from collections.abc import Buffer, Iterable
from typing import Literal, Protocol, Self, final, overload

__version__: str

@final
class md5:
    """An MD5 hash object with the interface of ``hashlib.md5``.

    Takes any C-contiguous buffer (numpy arrays of any dtype as their raw
    bytes); ``str`` and other objects raise ``TypeError`` as ``hashlib``
    does. Updates of 2 KiB or more release the GIL. ``usedforsecurity``
    changes nothing: MD5 is broken for security.
    """

    @property
    def name(self) -> str:
        """``"md5"``."""

    @property
    def digest_size(self) -> int:
        """16."""

    @property
    def block_size(self) -> int:
        """64."""

    def __init__(self, data: Buffer = b"", /, *, usedforsecurity: bool = True) -> None: ...
    def update(self, data: Buffer, /) -> None:
        """Hashes ``data`` after the bytes given so far; works after ``digest``."""

    def digest(self) -> bytes:
        """The 16-byte digest of the bytes given so far."""

    def hexdigest(self) -> str:
        """``digest()`` as 32 lowercase hex digits."""

    def copy(self) -> Self:
        """A new object with the same state."""

def digest_many(rows: Iterable[Buffer | str], /, *, encoding: str | None = None) -> list[bytes]:
    """The 16-byte MD5 digest of each row, in order, hashed side by side
    in SIMD lanes with the GIL released. A list's or tuple's rows are read
    in place, an iterator's copied as they come. With ``encoding="utf-8"``
    a ``str`` row is hashed as its UTF-8 bytes, read in place; without it,
    ``TypeError``, as ``hashlib``. A row that is not a buffer raises
    ``TypeError`` naming its index, as does one row (``str``, ``bytes``)
    for ``rows``; Ctrl-C raises ``KeyboardInterrupt``."""

def hexdigest_many(rows: Iterable[Buffer | str], /, *, encoding: str | None = None) -> list[str]:
    """``digest_many(rows, encoding=encoding)`` as lowercase hex strings of
    32 digits."""

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
    *,
    jobs: int | None = None,
) -> ArrowArray: ...
@overload
def hash_array(
    array: _ArrowStreamExportable,
    /,
    output: Literal["hex", "binary", "base64"] = "hex",
    *,
    jobs: int | None = None,
) -> ArrowStream: ...
def hash_array(
    array: _ArrowArrayExportable | _ArrowStreamExportable,
    /,
    output: Literal["hex", "binary", "base64"] = "hex",
    *,
    jobs: int | None = None,
) -> ArrowArray | ArrowStream:
    """The MD5 of each row of an Arrow column, as an Arrow column.

    ``array`` exports ``__arrow_c_array__`` (read first) or
    ``__arrow_c_stream__``: a column of utf8, large_utf8, utf8_view,
    binary, large_binary or binary_view, or a table or record batch stream
    of one such column; other types raise ``TypeError``. Nulls give nulls.
    ``output`` is ``"hex"``, ``"binary"`` (16 bytes) or ``"base64"``
    (padded); anything else raises ``ValueError``. An array gives an
    ``ArrowArray``, a stream an ``ArrowStream``. The GIL is released while
    the rows are hashed, those of an array of 65,536 rows or more on up to
    ``jobs`` threads (default: the CPUs this process may use); ``jobs``
    below 1 raises ``ValueError``.
    """

def s3_etag(
    source: str | os.PathLike[str] | os.PathLike[bytes] | Buffer,
    /,
    part_size: int = 8 * 1024 * 1024,
    *,
    threshold: int | None = None,
) -> str:
    """The ETag S3 shows for ``source`` (a path, or a buffer: ``bytes`` is
    data) uploaded by the AWS CLI with ``multipart_chunksize = part_size``
    and ``multipart_threshold = threshold`` (``part_size`` if ``None``): the
    plain MD5 hex under the threshold, else ``"<hex>-<N>"``, the part size
    doubled until there are at most 10,000 parts. ``ValueError`` for
    ``part_size <= 0``, ``threshold < 0`` or data too long for 10,000
    parts; ``OSError`` with ``filename`` for a file that cannot be read."""

def hash_files(
    paths: Iterable[str | os.PathLike[str] | os.PathLike[bytes] | bytes],
    /,
    *,
    jobs: int | None = None,
) -> list[bytes]:
    """The 16-byte MD5 digest of each file, in order, on ``jobs`` threads
    (default: the CPUs available) in SIMD lanes, in about 11 MiB per
    thread at most. The first file that cannot be read raises its ``OSError``
    with ``filename`` set; ``jobs < 1`` raises ``ValueError``; one path
    (``str``, ``bytes``, ``os.PathLike``) for ``paths`` raises ``TypeError``."""

def duckdb_extension_footer(platform: str) -> bytes:
    """The 512-byte metadata footer that makes a copy of this module a
    DuckDB extension file for DuckDB's ``platform`` (``PRAGMA platform``);
    ``md5x.duckdb.load`` appends it. ``ValueError`` for a platform name
    longer than 32 bytes."""
