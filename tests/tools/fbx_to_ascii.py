"""Rewrites a binary FBX (7.x) as an ASCII FBX with the same node tree, for the reader tests: no
tool here writes ASCII FBX (Blender and the shared files are binary), so the tests make the ASCII
twin of each real binary file and check that both read the same.

Usage: python3 tests/tools/fbx_to_ascii.py IN.fbx OUT.fbx

The binary format (header "Kaydara FBX Binary  \\0", version; node records of end offset,
property count, property bytes, name; typed properties Y C I F D L S R and arrays f d l i b,
zlib-compressed when their encoding is 1; a null record ends each child list) is read whole,
then written in the ASCII syntax FBX SDK exports use: `Name: p1, p2 {` … `}`, arrays as
`*N { a: v,v,… }`, strings quoted (`"` as `&quot;`), object names `Class::Name` (the binary's
`Name\\x00\\x01Class`), raw bytes as base64, doubles with every digit (`repr`).
"""

import base64
import struct
import sys
import zlib


def read_nodes(data, pos, end, wide):
    nodes = []
    head = "<QQQB" if wide else "<IIIB"
    size = struct.calcsize(head)
    while pos < end:
        end_offset, nprops, _plen, nlen = struct.unpack_from(head, data, pos)
        if end_offset == 0:
            pos += size + nlen
            break
        pos += size
        name = data[pos : pos + nlen].decode("utf-8", "replace")
        pos += nlen
        props = []
        for _ in range(nprops):
            kind = chr(data[pos])
            pos += 1
            if kind in "YCIFDL":
                fmt = {"Y": "<h", "C": "<?", "I": "<i", "F": "<f", "D": "<d", "L": "<q"}[kind]
                (v,) = struct.unpack_from(fmt, data, pos)
                pos += struct.calcsize(fmt)
                props.append((kind, v))
            elif kind in "fdlib":
                count, encoding, clen = struct.unpack_from("<III", data, pos)
                pos += 12
                raw = data[pos : pos + clen]
                pos += clen
                if encoding == 1:
                    raw = zlib.decompress(raw)
                item = {"f": "f", "d": "d", "l": "q", "i": "i", "b": "?"}[kind]
                props.append((kind, list(struct.unpack("<%d%s" % (count, item), raw[: count * struct.calcsize(item)]))))
            elif kind in "SR":
                (n,) = struct.unpack_from("<I", data, pos)
                pos += 4
                props.append((kind, data[pos : pos + n]))
                pos += n
            else:
                raise ValueError("unknown property type %r at %d" % (kind, pos - 1))
        children = []
        if pos < end_offset:
            children, pos = read_nodes(data, pos, end_offset, wide)
        pos = end_offset
        nodes.append((name, props, children))
    return nodes, pos


def text(prop):
    kind, v = prop
    if kind == "S":
        s = v
        if b"\x00\x01" in s:
            name, cls = s.split(b"\x00\x01", 1)
            s = cls + b"::" + name
        return '"' + s.decode("utf-8", "replace").replace('"', "&quot;") + '"'
    if kind == "R":
        return '"' + base64.b64encode(v).decode() + '"'
    if kind == "C":
        return "T" if v else "F"
    if kind in "FD":
        return repr(float(v))
    return str(int(v))


def number(kind, v):
    if kind in "fd":
        return repr(float(v))
    return str(int(v))


def write_nodes(out, nodes, depth):
    pad = "\t" * depth
    for name, props, children in nodes:
        arrays = [p for p in props if p[0] in "fdlib"]
        if arrays:
            kind, values = arrays[0]
            out.append("%s%s: *%d {" % (pad, name, len(values)))
            out.append("%s\ta: %s" % (pad, ",".join(number(kind, v) for v in values)))
            out.append("%s}" % pad)
            continue
        line = "%s%s: %s" % (pad, name, ", ".join(text(p) for p in props))
        if children:
            out.append(line + " {")
            write_nodes(out, children, depth + 1)
            out.append("%s}" % pad)
        else:
            out.append(line)


def main(src, dst):
    data = open(src, "rb").read()
    if not data.startswith(b"Kaydara FBX Binary  \x00"):
        raise SystemExit("%s: not a binary FBX" % src)
    (version,) = struct.unpack_from("<I", data, 23)
    nodes, _ = read_nodes(data, 27, len(data), version >= 7500)
    out = ["; FBX %d.%d.0 project file" % (version // 1000, version % 1000 // 100), ""]
    write_nodes(out, nodes, 0)
    open(dst, "w", encoding="utf-8").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
