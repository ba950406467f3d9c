"""The cloud libraries' own logging, kept off the terminal while a repository is read.

gcsfs, google-auth, botocore, urllib3 and the Azure SDK log to the root logger, which Python
prints on stderr when nobody configured logging: a GCS read without credentials printed hundreds
of "default credentials were not found" warnings and each retry's traceback before tritoncfg's one
line. While a repository is read their loggers drop everything below WARNING and keep the rest
here instead of printing it; a failure is then told in one message, with a hint drawn from what
they said (`hint`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

LIBRARIES = (
    "aiobotocore",
    "adlfs",
    "azure",
    "boto3",
    "botocore",
    "fsspec",
    "gcsfs",
    "google",  # google.auth, google.cloud.storage_control
    "s3fs",
    "urllib3",
)
KEPT = 200  # records kept for the hint; the rest are dropped

# what a library said -> the hint the failure message ends with
_HINTS = (
    (
        "default credentials were not found",
        "no Google credentials were found: set GOOGLE_APPLICATION_CREDENTIALS (or "
        "STORAGE_EMULATOR_HOST for a GCS emulator)",
    ),
    (
        "DefaultAzureCredential failed",
        "no Azure credentials were found: set AZURE_STORAGE_KEY or AZURE_STORAGE_CONNECTION_STRING",
    ),
    (
        "Unable to locate credentials",
        "no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
        "AWS_PROFILE",
    ),
)


class Heard(logging.Handler):
    """What the libraries logged at WARNING and above while the repository was read."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < KEPT:
            try:
                self.messages.append(record.getMessage())
            except Exception:  # a library's bad format string must not end the read
                self.messages.append(str(record.msg))

    def hint(self, error_text: str = "") -> str:
        """`; <hint>` for the first known cause among the messages (and the error), or ''."""
        said = "\n".join((*self.messages, error_text))
        for needle, hint in _HINTS:
            if needle in said:
                return f"; {hint}"
        return ""


@contextmanager
def quiet_libraries() -> Iterator[Heard]:
    """Within the block, the libraries' records below WARNING are dropped and the rest kept
    in the yielded `Heard`, not printed; every logger is restored afterwards."""
    heard = Heard()
    saved: list[tuple[logging.Logger, int, bool]] = []
    for name in LIBRARIES:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level, logger.propagate))
        logger.addHandler(heard)
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))
        logger.propagate = False
    try:
        yield heard
    finally:
        for logger, level, propagate in saved:
            logger.removeHandler(heard)
            logger.setLevel(level)
            logger.propagate = propagate
