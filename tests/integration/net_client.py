#!/usr/bin/env python3
"""Clients for the network tests, speaking to the proxy at PROXY (host:port).

  net_client.py connect PROXY HOST PORT        CONNECT, then the raw service's banner and an echo
  net_client.py tls PROXY HOST PORT SNI        CONNECT, then TLS naming SNI, then GET /
  net_client.py socks PROXY HOST PORT          SOCKS5 CONNECT by name, then banner and echo
  net_client.py many PROXY HOST PORT N         N CONNECT tunnels open at once, each echoing
  net_client.py direct IP PORT                 a plain TCP connection: "connected" or the error
  net_client.py tlssend PROXY HOST PORT SNI CAFILE FILE
                                               CONNECT, TLS naming SNI verified against CAFILE,
                                               FILE's bytes as they are (a request, or several),
                                               then all it got until the proxy closes
  net_client.py send PROXY FILE [FILE2]        FILE's bytes as they are; with FILE2, reads one
                                               response (by its Content-Length) and sends FILE2
                                               on the same connection; then shuts down its side
                                               and prints all it got until the proxy closes

Prints what it got; exits 0 unless the exchange broke in a way the mode does not expect.
"""
import asyncio
import socket
import ssl
import struct
import sys


def proxy_addr(s):
    host, port = s.rsplit(":", 1)
    return host.strip("[]"), int(port)


def open_connect(proxy, host, port):
    s = socket.create_connection(proxy_addr(proxy), timeout=20)
    target = "[%s]" % host if ":" in host else host
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (target.encode(), port, target.encode(), port))
    f = s.makefile("rb")
    status = f.readline().decode().strip()
    while True:
        line = f.readline()
        if line in (b"\r\n", b""):
            break
    return s, f, status


def mode_connect(proxy, host, port):
    s, f, status = open_connect(proxy, host, int(port))
    print(status)
    if " 200 " not in status + " ":
        print(f.read().decode(errors="replace").strip())
        return
    print(f.readline().decode().strip())
    s.sendall(b"ping\n")
    print(f.readline().decode().strip())


def tls_through(proxy, host, port, sni, cafile=None):
    """CONNECT, then TLS naming sni (verified against cafile when given); the socket or None."""
    s, f, status = open_connect(proxy, host, int(port))
    print(status)
    if " 200 " not in status + " ":
        return None
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.check_hostname = False
    if not cafile:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx.wrap_socket(s, server_hostname=sni or None)


def read_all(t):
    data = b""
    while True:
        chunk = t.recv(65536)
        if not chunk:
            return data
        data += chunk


def mode_tls(proxy, host, port, sni):
    try:
        t = tls_through(proxy, host, port, sni)
        if t:
            t.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host.encode())
            print(read_all(t).decode(errors="replace").split("\r\n\r\n", 1)[-1].strip())
    except (ssl.SSLError, ConnectionError, OSError) as e:
        print("tls failed: %s" % type(e).__name__)


def mode_tlssend(proxy, host, port, sni, cafile, first):
    try:
        t = tls_through(proxy, host, port, sni, cafile)
        if t:
            t.sendall(open(first, "rb").read())
            print(read_all(t).decode(errors="replace"))
    except (ssl.SSLError, ConnectionError, OSError) as e:
        print("tls failed: %s %s" % (type(e).__name__, e))


def mode_socks(proxy, host, port):
    s = socket.create_connection(proxy_addr(proxy), timeout=20)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        print("socks greeting refused")
        return
    name = host.encode()
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + struct.pack(">H", int(port)))
    reply = s.recv(10)
    print("socks reply %d" % reply[1] if len(reply) > 1 else "socks closed")
    if len(reply) > 1 and reply[1] == 0:
        f = s.makefile("rb")
        print(f.readline().decode().strip())
        s.sendall(b"ping\n")
        print(f.readline().decode().strip())


async def one_tunnel(proxy, host, port, opened, release):
    phost, pport = proxy_addr(proxy)
    reader, writer = await asyncio.open_connection(phost, pport)
    writer.write(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), port))
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head:
        raise RuntimeError(head.decode(errors="replace"))
    banner = await reader.readline()
    opened.append(banner)
    await release.wait()
    writer.write(b"ping\n")
    echo = await reader.readline()
    writer.close()
    return echo == b"echo ping\n"


async def mode_many(proxy, host, port, n):
    opened, release = [], asyncio.Event()
    tasks = [asyncio.create_task(one_tunnel(proxy, host, int(port), opened, release)) for _ in range(n)]
    for _ in range(600):
        if len(opened) == n or any(t.done() for t in tasks):
            break
        await asyncio.sleep(0.05)
    print("open at once: %d" % len(opened))
    release.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    print("echoed: %d" % sum(1 for r in results if r is True))


def mode_direct(ip, port):
    try:
        socket.create_connection((ip, int(port)), timeout=3).close()
        print("connected")
    except OSError as e:
        print("error %s" % (e.strerror or type(e).__name__))


def read_response(f):
    """One response, head and Content-Length body; b"" at EOF."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        line = f.readline()
        if not line:
            return head
        head += line
    n = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":", 1)[1])
    return head + f.read(n)


def mode_send(proxy, first, second=None):
    s = socket.create_connection(proxy_addr(proxy), timeout=20)
    f = s.makefile("rb")
    got = b""
    s.sendall(open(first, "rb").read())
    if second:
        got = read_response(f)
        try:
            s.sendall(open(second, "rb").read())
        except OSError as e:
            got += b"\n(send failed: %s)\n" % type(e).__name__.encode()
    try:
        s.shutdown(socket.SHUT_WR)
        got += f.read()
    except OSError as e:
        got += b"\n(%s)\n" % type(e).__name__.encode()
    print(got.decode(errors="replace"))


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "many":
        asyncio.run(mode_many(args[0], args[1], args[2], int(args[3])))
    else:
        {"connect": mode_connect, "tls": mode_tls, "socks": mode_socks, "direct": mode_direct,
         "send": mode_send, "tlssend": mode_tlssend}[mode](*args)


main()
