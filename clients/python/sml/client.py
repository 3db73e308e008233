"""A signed HTTP client for one customer (the Python counterpart of packages/sdk's SmlClient)."""
import json
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Sequence, Union

from .errors import JobFailedError, SmlError, UnexpectedResponseError, error_for
from .operations import Operations
from .signing import content_md5, format_sym_date, signature, string_to_sign

# The gateway reads but does not interpret it (API.md §2 lists it among the required headers).
SYM_VERSION = "1"


class Response:
    """An answer: HTTP status, lower-cased headers, the envelope."""

    def __init__(self, status: int, headers: Dict[str, str], body: Dict[str, Any]):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def values(self) -> Dict[str, Any]:
        return self.body.get("values") or {}


class SmlClient:
    """Paths given to `request` are relative to `<base_path>/{user}`; every request is signed.

    A 503 is retried (at most `retries` times) after its Retry-After seconds; a learn or forget
    carries an Idempotency-Key, the same on every try, so a retried learn is learned once.
    """

    def __init__(self, url: str, user: str, secret: str, base_path: str = "/symetry/rest",
                 retries: int = 3, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.user = user
        self.base_path = base_path.rstrip("/")
        self._secret = secret
        self.retries = retries
        self.timeout = timeout
        self.operations = Operations(self)

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None) -> "SmlClient":
        """From SML_URL, SML_USER, SML_SECRET (and optional SML_BASE_PATH)."""
        env = os.environ if env is None else env
        missing = [k for k in ("SML_URL", "SML_USER", "SML_SECRET") if not env.get(k)]
        if missing:
            raise ValueError(f"Missing environment variable(s): {', '.join(missing)}")
        return cls(env["SML_URL"], env["SML_USER"], env["SML_SECRET"], env.get("SML_BASE_PATH") or "/symetry/rest")

    def request(self, method: str, path: str, query: Union[Mapping[str, str], str, None] = None,
                json_body: Any = None, raw: Union[bytes, str, None] = None,
                headers: Optional[Mapping[str, str]] = None, check: bool = True,
                retries: Optional[int] = None) -> Response:
        """Signs and sends one request; raises the typed SmlError of a non-2xx answer unless check=False.

        A 503 is tried again up to `retries` times (default: the client's) after its Retry-After."""
        resource = urllib.parse.urlsplit(f"{self.url}{self.base_path}/{urllib.parse.quote(self.user, safe='')}{path}").path
        qs = query if isinstance(query, str) else urllib.parse.urlencode(query or {})
        body = json.dumps(json_body, separators=(",", ":")).encode() if json_body is not None \
            else raw.encode() if isinstance(raw, str) else raw
        extra = {k.lower(): v for k, v in (headers or {}).items()}
        if body is not None:
            extra.setdefault("content-type", "application/json" if json_body is not None else "text/plain")
        tries = self.retries if retries is None else retries
        for attempt in range(tries + 1):
            res = self._send(method, resource, qs, body, extra)
            if res.status != 503 or attempt == tries:
                break
            time.sleep(_retry_after(res.headers.get("retry-after")))
        if check and res.status >= 300 and res.status != 202:
            raise error_for(res.status, res.body)
        return res

    def _send(self, method: str, resource: str, qs: str, body: Optional[bytes], extra: Dict[str, str]) -> Response:
        md5 = content_md5(body)
        now = datetime.now(timezone.utc)
        # Random sub-millisecond digits keep two requests of the same millisecond from signing
        # identically, which the gateway's replay cache would refuse (as the TypeScript SDK does).
        sym_date = format_sym_date(now, (now.microsecond // 1000) * 1_000_000 + random.randrange(1_000_000))
        auth = signature(self._secret, string_to_sign(method, md5, self._secret, sym_date, self.user, resource, body, qs))
        hdrs = {**extra, "customer-id": self.user, "sym-date": sym_date, "content-md5": md5,
                "sym-version": SYM_VERSION, "authorization": auth}
        url = f"{self.url}{resource}{'?' + qs if qs else ''}"
        req = urllib.request.Request(url, data=body, method=method.upper(), headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                status, headers, text = r.status, dict(r.headers.items()), r.read()
        except urllib.error.HTTPError as e:
            status, headers, text = e.code, dict(e.headers.items()), e.read()
        try:
            envelope = json.loads(text)
        except ValueError:
            raise UnexpectedResponseError(status, f"{method} {resource} answered a non-JSON body: {text[:200]!r}")
        if not isinstance(envelope, dict) or not isinstance(envelope.get("statusCode"), int):
            raise UnexpectedResponseError(status, f"{method} {resource} answered without an envelope")
        return Response(status, {k.lower(): v for k, v in headers.items()}, envelope)

    # -- jobs ---------------------------------------------------------------------------------

    def wait(self, job: Union[Response, str, int], timeout: float = 600.0, interval: float = 0.2,
             progress: bool = True) -> Response:
        """Polls GET /jobs/{id} until the job has finished; its answer, or JobFailedError.

        Shows progress with tqdm when importable, else one rewritten line on stderr.
        """
        job_id = job.headers.get("sym-job-id") if isinstance(job, Response) else str(job)
        if not job_id:
            raise TypeError("wait needs a job id or a 202 response with a sym-job-id header")
        bar = _Progress(f"job {job_id}") if progress else None
        deadline = time.monotonic() + timeout
        try:
            while True:
                res = self.operations.getJob(job_id, check=False)
                if res.status != 202:
                    if res.status >= 300:
                        raise JobFailedError(res.status, str(res.body.get("statusString", "")), res.body)
                    return res
                if bar:
                    # values.jobinfo counts work done as current of maximum (API.md §10).
                    info = res.values.get("jobinfo") or {}
                    bar.update(info.get("current"), info.get("maximum"))
                if time.monotonic() + interval > deadline:
                    raise SmlError(408, f"job {job_id} still running after {timeout}s")
                time.sleep(interval)
        finally:
            if bar:
                bar.close()

    # -- data sources -------------------------------------------------------------------------

    def create_data_source(self, dsinfo: Mapping[str, Any], format: str = "v2") -> Response:
        """Registers a data source (201); the DSInfo travels encrypted with this client's secret
        (API.md §2.4: v2 AES-GCM by default, v1 the compat CBC form). Needs `cryptography`."""
        return self.operations.createDataSource(raw=self.encrypt_dsinfo(dsinfo, format))

    def preview_data_source(self, dsinfo: Mapping[str, Any], format: str = "v2") -> Response:
        """≤ 128 rows of an unregistered DSInfo with guessed types (values.dataframe); registers nothing."""
        return self.operations.previewDataSource(raw=self.encrypt_dsinfo(dsinfo, format))

    def update_data_source(self, name: str, dsinfo: Mapping[str, Any], format: str = "v2") -> Response:
        """Replaces a registered DSInfo (the name in the path wins)."""
        return self.operations.updateDataSource(name, raw=self.encrypt_dsinfo(dsinfo, format))

    def encrypt_dsinfo(self, dsinfo: Mapping[str, Any], format: str = "v2") -> str:
        """The encrypted body for a DSInfo, keyed by this client's secret (for the raw operations)."""
        from .dsinfo import encrypt_dsinfo
        return encrypt_dsinfo(dsinfo, self._secret, format)

    # -- pandas -------------------------------------------------------------------------------

    def learn(self, project: str, df: Any, types: Optional[Mapping[str, str]] = None) -> Response:
        """Learns a DataFrame (or a RestDataFrame dict) into a project, once even when retried."""
        from .frames import to_frame
        return self.operations.learnProject(project, json_body=to_frame(df, types),
                                            headers={"idempotency-key": str(uuid.uuid4())})

    def forget(self, project: str, df: Any, types: Optional[Mapping[str, str]] = None) -> Response:
        """The exact inverse of learn."""
        from .frames import to_frame
        return self.operations.forgetProject(project, json_body=to_frame(df, types),
                                             headers={"idempotency-key": str(uuid.uuid4())})

    def predict(self, project: str, model: str, df: Any, types: Optional[Mapping[str, str]] = None) -> Any:
        """One row of predictions per row of df: a DataFrame when pandas is there, else a list of dicts."""
        from .frames import to_frame, rows_to_frame
        res = self.operations.predict(project, model, json_body=to_frame(df, types))
        return rows_to_frame(res.values.get("KSVSMap", {}).get("values", []))

    def learn_batches(self, project: str, data: Any, batch_size: int = 10_000, window: int = 1,
                      types: Optional[Mapping[str, str]] = None, retries: int = 30,
                      progress: bool = False) -> Dict[str, int]:
        """Learns a large DataFrame, or an iterable of DataFrames/RestDataFrames (e.g.
        `pd.read_csv(path, chunksize=…)`), in batches of at most `batch_size` rows.

        Backpressure: at most `window` requests are in flight (one by default) and the next
        batch is only read from `data` when a slot is free, so memory stays bounded by
        `window + 1` batches whatever the source's length; a 503 (busy gateway, full queue) is
        retried up to `retries` times after its Retry-After. Each batch has its own
        Idempotency-Key, kept across its retries, so no batch is learned twice. On a failure the
        batches answered before it stay learned. Answers {"batches", "rows"} sent.
        """
        return self._send_batches(self.operations.learnProject, project, data, batch_size, window, types, retries, progress)

    def forget_batches(self, project: str, data: Any, batch_size: int = 10_000, window: int = 1,
                       types: Optional[Mapping[str, str]] = None, retries: int = 30,
                       progress: bool = False) -> Dict[str, int]:
        """The exact inverse of learn_batches, batched the same way."""
        return self._send_batches(self.operations.forgetProject, project, data, batch_size, window, types, retries, progress)

    def _send_batches(self, operation: Callable[..., Response], project: str, data: Any, batch_size: int,
                      window: int, types: Optional[Mapping[str, str]], retries: int, progress: bool) -> Dict[str, int]:
        from .frames import iter_frames
        if window < 1:
            raise ValueError("window must be at least 1")
        total = len(data) if hasattr(data, "iloc") else len(data["data"]) if isinstance(data, dict) else None
        bar = _Progress(f"{operation.__name__} {project}") if progress else None
        done = {"batches": 0, "rows": 0}

        def send(frame: Dict[str, Any]) -> None:
            operation(project, json_body=frame, headers={"idempotency-key": str(uuid.uuid4())}, retries=retries)
            done["batches"] += 1
            done["rows"] += len(frame["data"])
            if bar:
                bar.update(done["rows"], total)

        try:
            if window == 1:
                for frame in iter_frames(data, batch_size, types):
                    send(frame)
            else:
                with ThreadPoolExecutor(window) as pool:
                    pending: Deque[Any] = deque()
                    for frame in iter_frames(data, batch_size, types):
                        if len(pending) == window:
                            pending.popleft().result()  # wait for a free slot before reading on
                        pending.append(pool.submit(send, frame))
                    while pending:
                        pending.popleft().result()
        finally:
            if bar:
                bar.close()
        return done

    # -- exploration ----------------------------------------------------------------------------

    def explore(self, project: str, metric: str, contexts: Sequence[Union[str, Sequence[str], Mapping[str, Any]]],
                targets: Optional[Sequence[str]] = None, extra_parameters: Optional[Mapping[str, str]] = None) -> Any:
        """Explores with one metric (uni, bi, anova, ttest, chi2, gain …, API.md §6): a DataFrame
        with one row per context and one column per statistic (a list of dicts without pandas).

        A context is an attribute name (`"price"`), a list of names (`["area", "price"]` for bi)
        or an MLContext dict as the API takes it; `targets` and `extra_parameters` are added to
        the name forms. The request body is the ExploreContext `{values: [MLContext, …]}`.
        """
        from .frames import explore_label, maps_to_frame
        ctxs: List[Dict[str, Any]] = []
        for c in contexts:
            if isinstance(c, Mapping):
                ctxs.append(dict(c))
                continue
            ctx: Dict[str, Any] = {"inputAttributeNames": [c] if isinstance(c, str) else list(c)}
            if targets:
                ctx["targetAttributeNames"] = list(targets)
            ctx["extraParameters"] = dict(extra_parameters or {})
            ctxs.append(ctx)
        res = self.operations.explore(project, query={"metric": metric, "returnProjectInfo": "false"},
                                             json_body={"values": ctxs})
        return maps_to_frame(res.values.get("KSVDMap", {}).get("values", []), [explore_label(c) for c in ctxs])


def _retry_after(value: Optional[str]) -> float:
    try:
        return min(max(float(value), 0.0), 60.0) if value is not None else 1.0
    except ValueError:
        return 1.0


class _Progress:
    """tqdm when importable, else a plain line rewritten on stderr."""

    def __init__(self, desc: str):
        self.desc = desc
        try:
            from tqdm import tqdm  # type: ignore
            self.bar = tqdm(desc=desc)
        except ImportError:
            self.bar = None

    def update(self, current: Any, maximum: Any = None) -> None:
        if self.bar is not None:
            if isinstance(maximum, (int, float)) and maximum > 0:
                self.bar.total = maximum
            if isinstance(current, (int, float)):
                self.bar.n = current
                self.bar.refresh()
        else:
            sys.stderr.write(f"\r{self.desc}: {current or 0}/{maximum or '?'}   ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        else:
            sys.stderr.write("\n")
