"""DataFrame <-> SML's REST dataframe (attributeNames, attributeTypes, data as strings).

pandas is used when the value is a DataFrame; the client itself needs only the standard library.
Column types (STATS.md): C continuous, B binary (0/1), T categorical text.
"""
from itertools import islice
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional


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


def _types_of(df: Any, types: Optional[Mapping[str, str]]) -> Dict[str, str]:
    return {str(c): (types or {}).get(str(c)) or _column_type(df[c]) for c in df.columns}


def iter_frames(data: Any, batch_size: int, types: Optional[Mapping[str, str]] = None) -> Iterator[Dict[str, Any]]:
    """RestDataFrames of at most `batch_size` rows, lazily, from a DataFrame, a RestDataFrame dict
    or an iterable of either (pandas' `read_csv(chunksize=…)`, a generator).

    Column types are fixed by the first DataFrame seen (all of it when one DataFrame is given)
    and kept for every batch, so that a batch whose values happen to be 0/1 is not sent as B
    while the others are C; `types` overrides them by column.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    chunks: Iterable[Any] = [data] if isinstance(data, dict) or hasattr(data, "iloc") else data
    fixed: Optional[Dict[str, str]] = dict(types) if types else None
    for chunk in chunks:
        if isinstance(chunk, dict):
            rows = iter(chunk["data"])
            while True:
                part = list(islice(rows, batch_size))
                if not part:
                    break
                yield {**chunk, "data": part}
            continue
        if fixed is None or not {str(c) for c in chunk.columns} <= set(fixed):
            fixed = {**_types_of(chunk, types), **(fixed or {})}
        for start in range(0, len(chunk), batch_size):
            yield to_frame(chunk.iloc[start:start + batch_size], fixed)


def _number(value: Any) -> Any:
    # The API writes NaN and ±Infinity as strings (API.md §1); other strings stay text.
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    return value


def explore_label(ctx: Mapping[str, Any]) -> str:
    """A row label for one MLContext: its inputs, then `| targets` when it has any."""
    inputs = [str(a) for a in ctx.get("inputAttributeNames") or ctx.get("inputAttributes") or []]
    targets = [str(a) for a in ctx.get("targetAttributeNames") or ctx.get("targets") or []]
    return ", ".join(inputs) + (" | " + ", ".join(targets) if targets else "")


def maps_to_frame(maps: List[Dict[str, Any]], labels: List[str]) -> Any:
    """Exploration results (one map per MLContext) as a DataFrame, one row per context indexed
    by its label and one column per key, "NaN"/"Infinity" as floats. Without pandas: a list of
    dicts, each with its label under "attributes"."""
    rows = [{k: _number(v) for k, v in m.items()} for m in maps]
    try:
        import pandas as pd
    except ImportError:
        return [{"attributes": label, **row} for label, row in zip(labels, rows)]
    return pd.DataFrame(rows, index=pd.Index(labels[:len(rows)], name="attributes"))


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
