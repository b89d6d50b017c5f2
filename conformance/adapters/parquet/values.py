"""Values handed to a writer whose worker is not Python (the Node writers): what JSON cannot carry is tagged for the
worker to revive (`$big` a 64-bit or wider integer, `$hex` bytes, `$f` a float that is not finite), and the width
of a FIXED_LEN_BYTE_ARRAY DECIMAL (parquet-java's too)."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

NOT_SCALAR = object()  # `tagged`'s answer for a type it leaves to the adapter (temporal, nested)


def tagged(v: Any, t: Any) -> Any:
    """A non-null scalar of Arrow type `t` as JSON (tagged where JSON cannot carry it), or NOT_SCALAR."""
    import pyarrow as pa

    if pa.types.is_floating(t):
        return v if math.isfinite(v) else {"$f": repr(v).replace("inf", "Infinity").replace("nan", "NaN")}
    if pa.types.is_integer(t) and t.bit_width == 64:
        return {"$big": str(v)}
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return {"$hex": bytes(v).hex()}
    if pa.types.is_decimal(t):
        return {"$big": str(int(v.scaleb(t.scale, decimal.Context(prec=100))))}  # unscaled
    if pa.types.is_date32(t):
        return (v - dt.date(1970, 1, 1)).days
    if pa.types.is_timestamp(t) or pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_struct(t):
        return NOT_SCALAR
    return v


def decimal_bytes(precision: int) -> int:
    """The fewest bytes whose two's complement holds every unscaled value of this precision."""
    return next(n for n in range(1, 33) if 2 ** (8 * n - 1) > 10 ** precision)
