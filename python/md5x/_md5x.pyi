import os
from collections.abc import Buffer, Iterable
from typing import Any, Literal, Protocol, Self, final

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
