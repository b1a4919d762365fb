#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uncode.py PARITY FILEMAP...: make an RS redundancy file look as an
earlier release wrote it, without the header's CODE key
(lib/core/ec_file.h), and keep the filemaps that record it consistent.

The key is renamed in place (CODE -> CODX, which nothing reads).  Both the
parity file's header and a filemap are kvtree images
(lib/common/kvtree_file.c: big-endian image size at byte 8, flags at 16,
and with flags bit 0x1 the CRC32 of everything before it in the image's
last 4 bytes), so that CRC32 is made right again; the filemap that records
the parity file's CRC32 ("0x%08x") gets the new one.  Exits 1 when the
parity file has no CODE key or no filemap records it."""
import struct
import sys
import zlib


def seal(data):
    """the image's own CRC32, made right again"""
    size = struct.unpack(">Q", data[8:16])[0]
    if struct.unpack(">I", data[16:20])[0] & 1:
        data[size - 4:size] = struct.pack(">I", zlib.crc32(bytes(data[:size - 4])))


def crc_text(data):
    return b"0x%08x\0" % zlib.crc32(bytes(data))


parity = sys.argv[1]
with open(parity, "rb") as f:
    data = bytearray(f.read())
old = crc_text(data)
size = struct.unpack(">Q", data[8:16])[0]
if data[:size].count(b"CODE\0") != 1:
    sys.exit(1)
at = data.index(b"CODE\0")
data[at:at + 5] = b"CODX\0"
seal(data)
new = crc_text(data)
recorded = 0
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        fm = bytearray(f.read())
    if fm.count(old) != 1:
        continue
    at = fm.index(old)
    fm[at:at + len(new)] = new
    seal(fm)
    with open(path, "wb") as f:
        f.write(fm)
    recorded += 1
if recorded == 0:
    sys.exit(1)
with open(parity, "r+b") as f:
    f.write(data[:size])
