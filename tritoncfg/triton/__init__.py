"""The runtime side: a real `tritonserver` for `verify` and `diff --server`.

locate.py (which server) → process.py (start, stop; ports.py, mirror.py) → rest.py (its HTTP
API) → load.py (one model, with logs.py reading the server log) → verdict.py (beside lint;
where.py places each message) → verify.py. semantic_diff.py and completion.py serve `diff`;
remote.py fetches configs with tritonclient (extra `tritoncfg[server]`).

TC000 itself is declared with the other rules (tritoncfg/checks/verify/triton_rejected.py): this package
may import `checks`, never the reverse. Importing it imports nothing heavy.
"""
