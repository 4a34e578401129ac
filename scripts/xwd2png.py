# SPDX-License-Identifier: GPL-2.0-or-later
"""xwd2png.py IN.xwd OUT.png: an X window dump (as Xvfb -fbdir writes its
screen, 24 or 32 bits a pixel, TrueColor) to a PNG file, with the
standard library only (scripts/interop.sh)."""
import struct
import sys
import zlib


def main(src, dst):
    data = open(src, "rb").read()
    f = struct.unpack(">25I", data[:100])
    header_size, version, _, depth, width, height = f[0], f[1], f[2], f[3], f[4], f[5]
    byte_order, bits_per_pixel, bytes_per_line = f[7], f[11], f[12]
    ncolors = f[19]
    if version != 7 or bits_per_pixel not in (24, 32):
        sys.exit("xwd2png: %s: not a 24/32-bit XWD file" % src)
    red_mask, green_mask, blue_mask = f[14], f[15], f[16]
    off = header_size + ncolors * 12
    bpp = bits_per_pixel // 8

    def shift(mask):
        s = 0
        while mask and not (mask >> s) & 1:
            s += 1
        return s

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    rows = []
    for y in range(height):
        line = data[off + y * bytes_per_line: off + y * bytes_per_line + width * bpp]
        out = bytearray(b"\0")
        for x in range(0, width * bpp, bpp):
            px = line[x:x + bpp]
            v = int.from_bytes(px, "little" if byte_order == 0 else "big")
            out += bytes(((v >> rs) & 255, (v >> gs) & 255, (v >> bs) & 255))
        rows.append(bytes(out))

    def chunk(tag, body):
        c = struct.pack(">I", len(body)) + tag + body
        return c + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")
    open(dst, "wb").write(png)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
