"""tritoncfg's child processes, supervised: none outlives the command that started it.

`pool.py`: lint's forked workers, which survive one of them being killed (an OOM kill) and name
the item it held; `supervise.py`: a child in its own process group (probe's runtime worker,
tritonserver), sent the SIGTERM, SIGHUP or SIGINT the command receives and reaped on every path.
"""
