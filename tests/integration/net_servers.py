#!/usr/bin/env python3
"""The remote hosts of the network tests, run inside the test's network namespace.

  net_servers.py CERT KEY READY_FILE [HTTP_PORT HTTPS_PORT RAW_PORT KEEPALIVE_PORT]

On every address of the namespace: HTTP (80), HTTPS (443, with the throwaway
certificate) and a raw TCP service (7000). Every answer names the address the
connection arrived at, so a test can tell which host it reached: a guard that
let a request through to the "metadata" address would read "at 169.254.169.254".
The raw service sends "banner at ADDR" and then echoes each line. "/bytes/N" over
HTTP sends N bytes (for the throughput benchmark). Writes READY_FILE when all
listen; runs until killed.
"""
import asyncio
import base64
import socket
import ssl
import sys


def local_addr(writer):
    return writer.get_extra_info("sockname")[0].removeprefix("::ffff:")


async def send_bytes(writer, n, extra=b""):
    """A response of n bytes of "x" (for the throughput benchmarks)."""
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n" % (n, extra))
    chunk = b"x" * 65536
    while n > 0:
        writer.write(chunk[: min(n, len(chunk))])
        n -= min(n, len(chunk))
        await writer.drain()


def parse_head(head):
    """A request head's method, path, lines and headers (lower-case names)."""
    lines = head.decode("latin-1").split("\r\n")
    method, path = (lines[0].split(" ") + ["", ""])[:2]
    headers = {}
    for l in lines[1:]:
        if ":" in l:
            k, v = l.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return method, path, lines, headers


async def http(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = (lines[0].split(" ") + ["", "", ""])[:3]
    host = next((l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("host:")), "")
    proxyish = [l.split(":", 1)[0] for l in lines[1:] if l.lower().startswith("proxy-")]
    if path.startswith("/bytes/"):
        await send_bytes(writer, int(path[7:]), b"Connection: close\r\n")
    else:
        body = ("hello at %s host=%s path=%s method=%s proxyheaders=%s\n" % (
            local_addr(writer), host, path, method, ",".join(proxyish) or "none")).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(body), body))
    try:
        await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def read_body(reader, headers):
    """The body of a request by its framing (chunked first, as RFC 9112 says). A line of the
    chunked framing ends at a LF, with or without its CR, as nginx reads it."""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int((await reader.readuntil(b"\n")).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\n")).strip():
                    pass
                return body
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    return await reader.readexactly(int(headers.get("content-length", "0")))


async def keepalive(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            _, path, _, headers = parse_head(head)
            body = await read_body(reader, headers)
            out = ("ka at %s host=%s path=%s body=%d\n" % (
                local_addr(writer), headers.get("host", ""), path, len(body))).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(out), out))
            await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass
    writer.close()


ECHO_LOG = None


async def echo(reader, writer):
    """Keep-alive HTTPS (8443): each request answered with its method, path and every header,
    as this server received them (what the proxy put in), and logged to READY_FILE.echo.
    /echo-back/TEXT answers TEXT itself; /echo-base64, each header but the credentials
    (x-api-key, authorization) base64'd, as a server that reflects a request's details in an
    opaque token would; /echo-chunked/N[?P], "key=" and the credential (after P bytes of
    "x", then a newline) in a chunked body of N-byte chunks, as a server streaming its
    answer would; /bytes/N, N bytes (not logged:
    the benchmark's)."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            method, path, lines, headers = parse_head(head)
            body = await read_body(reader, headers)
            if path.startswith("/bytes/"):
                await send_bytes(writer, int(path[7:]))
                continue
            with open(ECHO_LOG, "a") as log:
                log.write("".join("%s\n" % l for l in lines if l) + "--\n")
            if path.startswith("/echo-back/"):
                out = path[len("/echo-back/"):].encode() + b"\n"
            elif path.startswith("/echo-chunked/"):
                n, _, pad = path[len("/echo-chunked/"):].partition("?")
                n, key = int(n), headers.get("x-api-key", "")
                out = (("x" * int(pad) + "\n") if pad else "").encode() + (
                    "key=%s\n" % key).encode("latin-1")
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"".join(
                    b"%x\r\n%s\r\n" % (len(out[i:i + n]), out[i:i + n]) for i in range(0, len(out), n))
                    + b"0\r\n\r\n")
                await writer.drain()
                continue
            elif path == "/echo-base64":
                out = b"".join(base64.b64encode(l.encode("latin-1")) + b"\n" for l in lines[1:]
                               if l and l.split(":")[0].lower() not in ("x-api-key", "authorization"))
            else:
                out = ("echo at %s %s %s body=%d\n" % (local_addr(writer), method, path, len(body))
                       + "".join("%s\n" % l for l in lines[1:] if l)).encode("latin-1")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Echo-Auth: %s\r\n\r\n%s" % (
                len(out), headers.get("x-api-key", headers.get("authorization", "")).encode("latin-1"),
                out))
            await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError,
            ssl.SSLError):
        pass
    writer.close()


async def raw(reader, writer):
    try:
        writer.write(b"banner at %s\n" % local_addr(writer).encode())
        await writer.drain()
        while True:
            line = await reader.readline()
            if not line:
                break
            writer.write(b"echo " + line)
            await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def main():
    global ECHO_LOG
    cert, key, ready = sys.argv[1:4]
    ECHO_LOG = ready + ".echo"
    ports = [int(p) for p in sys.argv[4:8]] or [80, 443, 7000, 8080]
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    servers = []
    for family, host in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        for port, handler, ctx in ((ports[0], http, None), (ports[1], http, tls), (ports[2], raw, None),
                                   (ports[3], keepalive, None), (ports[1] + 8000, echo, tls)):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((host, port))
            sock.listen(1024)
            servers.append(await asyncio.start_server(handler, sock=sock, ssl=ctx, backlog=1024))
    open(ready, "w").close()
    await asyncio.gather(*(s.serve_forever() for s in servers))


asyncio.run(main())
