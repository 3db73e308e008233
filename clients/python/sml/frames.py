"""DataFrame <-> SML's REST dataframe (attributeNames, attributeTypes, data as strings).

pandas is used when the value is a DataFrame; the client itself needs only the standard library.
Column types (STATS.md): C continuous, B binary (0/1), T categorical text.
"""
from typing import Any, Dict, List, Mapping, Optional


def _column_type(series: Any) -> str:
    kind = getattr(series.dtype, "kind", "O")
    if kind == "b":
        return "B"
    if kind in "iuf":
        values = set(series.dropna().unique().tolist())
        return "B" if values and values <= {0, 1} and kind in "iu" else "C"
    return "T"


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None or value != value:  # NaN: a missing cell
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def to_frame(df: Any, types: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """A RestDataFrame from a pandas DataFrame (types inferred, `types` overriding by column) or a ready dict."""
    if isinstance(df, dict):
        return df
    names = [str(c) for c in df.columns]
    inferred = [(types or {}).get(n) or _column_type(df[c]) for n, c in zip(names, df.columns)]
    data = [[_cell(v) for v in row] for row in df.itertuples(index=False, name=None)]
    return {"attributeNames": names, "attributeTypes": inferred, "data": data}


def rows_to_frame(rows: List[Dict[str, str]]) -> Any:
    """Predictions (one string map per row) as a DataFrame, numbers parsed, or the rows when pandas is absent."""
    try:
        import pandas as pd
    except ImportError:
        return rows
    out = pd.DataFrame(rows)
    for c in out.columns:
        try:
            out[c] = pd.to_numeric(out[c])
        except (ValueError, TypeError):
            pass
    return out
