"""The runtime side: a real `tritonserver` for `verify` and `diff --server`.

locate.py (which server) → process.py (start, stop; ports.py, mirror.py) → rest.py (its HTTP
API) → load.py (one model, with logs.py reading the server log) → verdict.py (beside lint;
where.py places each message) → verify.py. semantic_diff.py and completion.py serve `diff`;
remote.py fetches configs with tritonclient (extra `tritoncfg[server]`).

Importing this package only registers the TC000 rule (rule.py); nothing heavy is imported.
"""

from __future__ import annotations

from tritoncfg.triton import rule  # noqa: F401  registers TC000
