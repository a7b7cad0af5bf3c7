"""md5x's multi-buffer MD5 in datafusion-python.

``md5x(x)`` equals DataFusion's ``md5(x)`` (32 lowercase hex digits,
``Utf8View``) and ``md5x_binary(x)`` gives the 16 bytes; both hash each
batch natively (md5x-datafusion through DataFusion's FFI), with no Python
per batch.

    import datafusion, md5x_datafusion

    ctx = datafusion.SessionContext()
    md5x_datafusion.register(ctx)       # md5x(x), md5x_binary(x)
    md5x_datafusion.override_md5(ctx)   # md5(x) runs md5x
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._native import DATAFUSION_MAJOR, ScalarUdf, check_datafusion

if TYPE_CHECKING:
    import datafusion

__all__ = [
    "DATAFUSION_MAJOR",
    "ScalarUdf",
    "check_datafusion",
    "md5x",
    "md5x_binary",
    "override_md5",
    "register",
]


def _udf(name: str) -> datafusion.ScalarUDF:
    # Before anything of datafusion's API is used, which may differ too.
    check_datafusion()
    from datafusion import ScalarUDF

    return ScalarUDF.from_pycapsule(ScalarUdf(name))


def md5x(expr: datafusion.Expr) -> datafusion.Expr:
    """``md5x(expr)`` for the DataFrame API: md5(expr), as hex."""
    return _udf("md5x")(expr)


def md5x_binary(expr: datafusion.Expr) -> datafusion.Expr:
    """``md5x_binary(expr)`` for the DataFrame API: the digest's 16 bytes."""
    return _udf("md5x_binary")(expr)


def register(ctx: datafusion.SessionContext) -> None:
    """Adds ``md5x(x)`` and ``md5x_binary(x)`` to ``ctx``'s functions."""
    ctx.register_udf(_udf("md5x"))
    ctx.register_udf(_udf("md5x_binary"))


def override_md5(ctx: datafusion.SessionContext) -> None:
    """Replaces ``ctx``'s ``md5(x)`` by md5x's: same results, type and name."""
    ctx.register_udf(_udf("md5"))
