"""Fast MD5: many rows at once in SIMD lanes, Arrow columns, files and S3 ETags.

MD5 is broken for security: use it for checksums, ETags and formats that
ask for it, never to resist an attacker.
"""

from ._md5x import (
    ArrowArray,
    ArrowStream,
    __version__,
    digest_many,
    hash_array,
    hash_files,
    hexdigest_many,
    md5,
    s3_etag,
)

__all__ = [
    "ArrowArray",
    "ArrowStream",
    "__version__",
    "digest_many",
    "hash_array",
    "hash_files",
    "hexdigest_many",
    "md5",
    "s3_etag",
]
