#!/usr/bin/env python3
"""One-way bulk transfer for bench/net.sh.

  net_xfer.py serve PORT BYTES      on 127.0.0.1:PORT, send BYTES to each connection, then close
  net_xfer.py fetch HOST PORT BYTES [CONNECT_HOST:PORT]
                                    connect (through a CONNECT proxy at HOST:PORT when the
                                    last argument names the target), read until EOF, print
                                    seconds taken; fail unless BYTES arrived
"""
import socket
import sys
import time

CHUNK = 1 << 20


def serve(port, total):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    buf = memoryview(b"x" * CHUNK)
    while True:
        c, _ = s.accept()
        left = total
        while left > 0:
            n = min(left, CHUNK)
            c.sendall(buf[:n])
            left -= n
        c.close()


def fetch(host, port, total, target):
    start = time.perf_counter()
    s = socket.create_connection((host, port))
    if target:
        s.sendall(b"CONNECT %s HTTP/1.1\r\n\r\n" % target.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(1)
        assert b" 200 " in head, head
    buf = bytearray(CHUNK)
    got = 0
    while True:
        n = s.recv_into(buf)
        if not n:
            break
        got += n
    took = time.perf_counter() - start
    assert got == total, (got, total)
    print("%.4f" % took)


if sys.argv[1] == "serve":
    serve(int(sys.argv[2]), int(sys.argv[3]))
else:
    fetch(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
