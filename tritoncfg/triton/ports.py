"""Free TCP ports on 127.0.0.1 for a server of our own (never the user's 8000-8002)."""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


def free_ports(count: int) -> tuple[int, ...]:
    """`count` distinct ports that nothing listens on right now.

    The sockets are held until all are chosen so the kernel cannot hand out one port twice; the
    server may still lose a race for one, which the caller handles by retrying."""
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((LOOPBACK, 0))
            sockets.append(sock)
        return tuple(sock.getsockname()[1] for sock in sockets)
    finally:
        for sock in sockets:
            sock.close()
