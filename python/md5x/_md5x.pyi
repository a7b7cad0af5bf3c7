import os
from collections.abc import Buffer, Iterable
from typing import Any, Literal, Protocol, Self, final

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

def digest_many(rows: Iterable[Buffer], /) -> list[bytes]:
    """The 16-byte MD5 digest of each row, in order, hashed side by side
    in SIMD lanes with the GIL released. A row that is not a buffer raises
    ``TypeError`` naming its index."""

def hexdigest_many(rows: Iterable[Buffer], /) -> list[str]:
    """``digest_many(rows)`` as lowercase hex strings of 32 digits."""

class _ArrowArrayExportable(Protocol):
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...

class _ArrowStreamExportable(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

@final
class ArrowArray:
    """A column of digests, exported through the Arrow PyCapsule interface."""

    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def __len__(self) -> int: ...

@final
class ArrowStream:
    """A stream of digest columns, exported through the Arrow PyCapsule interface."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def hash_array(
    array: _ArrowArrayExportable | _ArrowStreamExportable,
    /,
    output: Literal["hex", "binary", "base64"] = "hex",
) -> Any: ...
def s3_etag(
    source: str | os.PathLike[str] | os.PathLike[bytes] | Buffer,
    /,
    part_size: int = 8 * 1024 * 1024,
) -> str:
    """The ETag S3 shows for ``source`` (a path, or a buffer: ``bytes`` is
    data) uploaded by the AWS CLI with parts of ``part_size`` bytes: the
    plain MD5 hex under one part, else ``"<hex>-<N>"``. ``ValueError`` for
    ``part_size <= 0`` or more than 10,000 parts; ``OSError`` with
    ``filename`` for a file that cannot be read."""

def hash_files(
    paths: Iterable[str | os.PathLike[str] | os.PathLike[bytes] | bytes],
    /,
    *,
    jobs: int | None = None,
) -> list[bytes]:
    """The 16-byte MD5 digest of each file, in order, on ``jobs`` threads
    (default: the CPUs available) in SIMD lanes, in at most 4 MiB per
    thread. The first file that cannot be read raises its ``OSError``
    with ``filename`` set; ``jobs < 1`` raises ``ValueError``."""
