"""The fsspec filesystem that reads a cloud repository, with bounded waits.

Every request gives up after a connect timeout and a read timeout (the longest wait for the next
bytes of an answer), so a frozen endpoint ends the lint with an error instead of hanging it:
`TRITONCFG_CLOUD_CONNECT_TIMEOUT` and `TRITONCFG_CLOUD_READ_TIMEOUT` (seconds) override the
defaults. Requires the `tritoncfg[cloud]` extra; fsspec and its backends are imported here only.
"""

from __future__ import annotations

import os
from typing import Any

from tritoncfg.cloud.url import CloudUrl, redact
from tritoncfg.record import record

CONNECT_TIMEOUT_ENV = "TRITONCFG_CLOUD_CONNECT_TIMEOUT"
READ_TIMEOUT_ENV = "TRITONCFG_CLOUD_READ_TIMEOUT"
GCS_EMULATOR_ENV = "STORAGE_EMULATOR_HOST"  # a GCS emulator's address (gcsfs, google-cloud-storage)
S3_ATTEMPTS = 2  # each S3 request is tried at most twice (botocore's retries; s3fs's own off)
GCS_ATTEMPTS = 2  # and each GCS request (gcsfs's own: 6 tries, 17 s or more of back-off)


class CloudError(Exception):
    """The cloud repository could not be read (missing extra, credentials, network)."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))  # a backend's error text may quote the URL


@record(frozen=True)
class Timeouts:
    connect: float = 10.0  # seconds to open a connection
    read: float = 30.0  # seconds to wait for the next bytes of an answer


def _seconds(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise CloudError(f"{name}={text!r}: expected a number of seconds above 0, such as 30")
    return value


def timeouts() -> Timeouts:
    """The defaults, or the environment's values. Raises CloudError for one that is no time."""
    default = Timeouts()
    return Timeouts(
        _seconds(CONNECT_TIMEOUT_ENV, default.connect), _seconds(READ_TIMEOUT_ENV, default.read)
    )


def backend_options(url: CloudUrl, limits: Timeouts) -> dict[str, Any]:
    """The keyword arguments of the fsspec filesystem for `url`: endpoint, account, timeouts.
    Raises CloudError for Azure settings that cannot be used (cloud/azure.py)."""
    options: dict[str, Any] = {}
    if url.protocol == "s3":
        options["config_kwargs"] = {  # botocore's Config
            "connect_timeout": limits.connect,
            "read_timeout": limits.read,
            "retries": {"total_max_attempts": S3_ATTEMPTS, "mode": "standard"},
        }
        if url.endpoint is not None:
            options["client_kwargs"] = {"endpoint_url": url.endpoint}
    elif url.protocol == "gcs":
        import aiohttp  # gcsfs's HTTP client, installed with it

        options["requests_timeout"] = aiohttp.ClientTimeout(
            sock_connect=limits.connect, sock_read=limits.read
        )
    elif url.protocol == "abfs":
        from tritoncfg.cloud.azure import AzureSettingsError, azure_options

        options["connection_timeout"] = limits.connect
        options["read_timeout"] = limits.read
        try:
            options.update(azure_options(url))
        except AzureSettingsError as error:
            raise CloudError(f"{url.shown}: {error}") from None
    return options


def filesystem(url: CloudUrl, limits: Timeouts) -> Any:
    """The fsspec filesystem for `url`; credentials come from the environment or profile."""
    try:
        import fsspec
    except ImportError as error:
        raise CloudError(
            f"{url.shown}: cloud repositories need the cloud extra: pip install 'tritoncfg[cloud]'"
        ) from error
    try:
        # a new instance each time: fsspec's cache would keep one made under another
        # environment (credentials, STORAGE_EMULATOR_HOST, a connection string)
        options = backend_options(url, limits)
        if url.protocol == "gcs":
            from gcsfs.core import GCSFileSystem

            # gcsfs's default class first asks Google's control plane (gRPC, outside these
            # timeouts) what kind of bucket it is: an emulator has none to ask
            emulated = os.environ.get(GCS_EMULATOR_ENV)
            base = GCSFileSystem if emulated else fsspec.get_filesystem_class("gcs")
            fs = bounded_gcs(base)(skip_instance_cache=True, **options)
        else:
            fs = fsspec.filesystem(url.protocol, skip_instance_cache=True, **options)
    except ImportError as error:
        backend = {"s3": "s3fs", "gcs": "gcsfs", "abfs": "adlfs"}[url.protocol]
        raise CloudError(
            f"{url.shown}: needs {backend}: pip install 'tritoncfg[cloud]' ({error})"
        ) from error
    except CloudError:
        raise
    except Exception as error:  # adlfs: ValueError("unable to connect to account for ...")
        raise CloudError(f"{url.shown}: cannot connect: {summary(error)}") from error
    if url.protocol == "s3":
        fs.retries = 1  # s3fs's own retries (5 by default) would multiply botocore's attempts
    elif url.protocol == "abfs":
        from tritoncfg.cloud.azure import bound_client

        bound_client(fs, limits.connect, limits.read)
    return fs


def bounded_gcs(base: type[Any]) -> type[Any]:
    """`base` (gcsfs's filesystem class) with each request tried GCS_ATTEMPTS times. gcsfs
    decorates its `_request` with six tries and back-offs of 1, 2, 4, 8 and 16 s: a refused
    connection took 35 s to report, a frozen endpoint six read timeouts (three minutes by
    default). The same decorator, with fewer tries, around the same request."""
    from gcsfs.retry import retry_request

    request = base._request.__wrapped__  # the undecorated coroutine (`decorator` keeps it)
    bounded = retry_request(retries=GCS_ATTEMPTS)(request)
    return type(f"Bounded{base.__name__}", (base,), {"_request": bounded})


def is_timeout(error: BaseException) -> bool:
    """Whether `error` (or what caused it) is a request that waited out a timeout: botocore's,
    aiohttp's and the socket's timeout errors share no base class but their name."""
    seen: BaseException | None = error
    for _ in range(16):  # the chain of causes, bounded
        if seen is None:
            return False
        if isinstance(seen, TimeoutError) or "Timeout" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def summary(error: BaseException) -> str:
    """The error on one line: the first line of its text (the Azure SDK's runs on with the
    request id and the service's XML answer), with the service's error code when it has one."""
    text = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
    code = getattr(error, "error_code", None)  # azure.core's HttpResponseError
    if isinstance(code, str) and code and code not in text:
        text = f"{text} ({code})"
    return text or type(error).__name__


def failure(error: BaseException, limits: Timeouts) -> str:
    """What went wrong with a request, on one line, saying which timeout it waited out."""
    if is_timeout(error):
        return (
            f"no answer within the timeouts ({limits.connect:g} s to connect, {limits.read:g} s "
            f"to read; {CONNECT_TIMEOUT_ENV}, {READ_TIMEOUT_ENV}): {summary(error)}"
        )
    return summary(error)
