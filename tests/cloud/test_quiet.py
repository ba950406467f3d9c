"""The cloud libraries' logging is kept off the terminal while a repository is read, and what
they said becomes the hint of the one error message."""

from __future__ import annotations

import logging

import pytest

from tritoncfg.cloud.quiet import LIBRARIES, quiet_libraries

CREDENTIALS = "Your default credentials were not found. To set up Application Default Credentials"


def test_library_records_are_kept_not_printed(caplog: pytest.LogCaptureFixture) -> None:
    """What reaches the root logger is what Python (or pytest here) would print."""
    gcsfs = logging.getLogger("gcsfs")
    before = (gcsfs.level, gcsfs.propagate, list(gcsfs.handlers))
    caplog.set_level(logging.DEBUG)
    logging.getLogger("google.auth").warning("unrelated before")  # reaches the root: not inside
    with quiet_libraries() as heard:
        for _ in range(300):
            gcsfs.warning("Could not determine bucket type for bucket name b: %s", CREDENTIALS)
        logging.getLogger("google.auth._default").debug("dropped: below WARNING")
        try:
            raise OSError("Cannot connect to host storage.googleapis.com:443")
        except OSError:
            logging.getLogger("gcsfs.retry").exception("_request out of retries on exception")
    assert [r.getMessage() for r in caplog.records] == ["unrelated before"]
    assert len(heard.messages) == 200  # bounded
    assert "dropped: below WARNING" not in heard.messages
    assert heard.hint("Cannot connect") == (
        "; no Google credentials were found: set GOOGLE_APPLICATION_CREDENTIALS (or "
        "STORAGE_EMULATOR_HOST for a GCS emulator)"
    )
    assert (gcsfs.level, gcsfs.propagate, list(gcsfs.handlers)) == before  # restored
    gcsfs.warning("after")
    assert [r.getMessage() for r in caplog.records][-1] == "after"


def test_no_hint_when_the_libraries_said_nothing_known() -> None:
    with quiet_libraries() as heard:
        logging.getLogger("botocore").warning("something else")
    assert heard.messages == ["something else"]
    assert heard.hint("403 Forbidden") == ""


def test_every_cloud_s_libraries_are_quieted() -> None:
    assert {"gcsfs", "google", "urllib3", "azure", "botocore", "fsspec"} <= set(LIBRARIES)


def test_gcsfs_own_noise_never_reaches_stderr(
    caplog: pytest.LogCaptureFixture, gcs_store: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gcsfs's default class on the emulator, without Google credentials, warns for every bucket
    it looks at: inside the block none of it is printed."""
    google_auth = pytest.importorskip("google.auth")
    try:
        google_auth.default()
        pytest.skip("Google credentials are configured here: gcsfs would ask Google itself")
    except google_auth.exceptions.DefaultCredentialsError:
        pass
    import fsspec

    monkeypatch.setenv("GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT", "true")
    caplog.set_level(logging.DEBUG)
    with quiet_libraries() as heard:
        fs = fsspec.filesystem("gcs", skip_instance_cache=True)
        assert fs.find("models/nothing") == []  # a listing: gcsfs looks at the bucket first
    assert [r for r in caplog.records if not r.name.startswith("gcp_storage_emulator")] == []
    if type(fs).__name__ == "ExtendedGcsFileSystem":  # the class that looks at buckets
        assert any("default credentials were not found" in m for m in heard.messages)
