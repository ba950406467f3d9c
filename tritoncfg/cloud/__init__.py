"""Read-only model repositories in object storage: `s3://`, `gs://`, `as://` (Azure).

Only the URL parsing lives here; `tritoncfg.cloud.stage` (fsspec and its backends, the
`tritoncfg[cloud]` extra) is imported only when a cloud path is linted.
"""

from __future__ import annotations

from tritoncfg.cloud.url import CloudUrl, CloudUrlError, is_cloud, parse_url

__all__ = ["CloudUrl", "CloudUrlError", "is_cloud", "parse_url"]
