#!/usr/bin/env python3
"""Connection latency for bench/publish.sh.

  publish_lat.py serve PORT         on 127.0.0.1:PORT: per connection, read one byte, write it back, close
  publish_lat.py probe PORT N       N connections one after the other, each connect, one byte each way,
                                    close; print the median and the minimum in microseconds
"""
import socket
import statistics
import sys
import threading
import time


def serve(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(128)

    def one(c):
        b = c.recv(1)
        if b:
            c.sendall(b)
        c.close()

    while True:
        c, _ = s.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=one, args=(c,), daemon=True).start()


def probe(port, n):
    took = []
    for _ in range(n):
        t0 = time.perf_counter()
        c = socket.create_connection(("127.0.0.1", port))
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.sendall(b"x")
        assert c.recv(1) == b"x"
        c.close()
        took.append((time.perf_counter() - t0) * 1e6)
    print("%.1f %.1f" % (statistics.median(took), min(took)))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    else:
        probe(int(sys.argv[2]), int(sys.argv[3]))
