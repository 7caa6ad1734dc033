#!/usr/bin/env python3
"""An independent reader of KLEE's POSIX test conventions.

Reads .ktest files the way KLEE's tools lay them out (KTest.cpp's format)
and rebuilds the environment klee-replay would give the program (its
klee_init_env walk over the recorded command line), without any of
mnemo's code. tests/posix_replay.rs compares what it prints with what
mnemo's replay recreates.

ktest layout, every integer a big-endian u32:
  magic "KTEST" (or "BOUT\\n"), version,
  number of args, then each arg as (length, bytes),
  from version 2 on: sym_argvs, sym_argv_len,
  number of objects, then each object as (name length, name, size, bytes).

Objects of the POSIX environment, in the order klee_init_env makes them:
  for each --sym-arg N:             argNN (N+1 bytes, a C string)
  for each --sym-args MIN MAX N:    n_args (int32, only when MIN < MAX),
                                    then n_args objects argNN
  (arguments are numbered 00, 01, ... across both options)
  --sym-files NUM N:                A-data (N bytes), A-data-stat, B-data, ...
  --sym-stdin N (N > 0):            stdin, stdin-stat
  --sym-stdout:                     stdout (1024 bytes), stdout-stat
  then possibly model_version (4 bytes).
A -stat object is an x86-64 struct stat (144 bytes), st_mode the
little-endian u32 at offset 24. klee-replay writes a file's whole -data
object, with st_mode's permission bits, or 0644 where those are zero; an
argument is the first N bytes of its object up to a NUL (KLEE's runtime
stores a NUL over the last one). Where st_mode's type is a directory
(S_IFDIR, 0o040000), klee-replay makes the file a directory; where stdin's
is a character device (S_IFCHR, 0o020000), it makes stdin a terminal.
mnemo's model departs from klee-replay in the bits alone, and its replay
with it: a directory's default bits are 0755, and the owner may always
read and write a symbolic file (and search a directory), so that a replay
as root takes the model's path.

Output (stdout, JSON): {"argv": [hex, ...], "files": [{"name", "mode",
"data" (hex), "directory"}], "stdin": hex or null, "stdin_terminal",
"objects": count}, or
{"error": text} for a test these rules cannot read.
"""

import json
import struct
import sys


class Bad(Exception):
    pass


def read_ktest(path):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(n):
        nonlocal pos
        if pos + n > len(data):
            raise Bad("truncated ktest")
        chunk = data[pos:pos + n]
        pos += n
        return chunk

    def u32():
        return struct.unpack(">I", take(4))[0]

    magic = take(5)
    if magic not in (b"KTEST", b"BOUT\n"):
        raise Bad("bad magic")
    version = u32()
    args = [take(u32()) for _ in range(u32())]
    if version >= 2:
        u32()
        u32()
    objects = []
    for _ in range(u32()):
        name = take(u32()).decode("latin-1")
        objects.append((name, take(u32())))
    return args, objects


def environment(args, objects):
    cursor = [0]

    def next_object(name, size):
        i = cursor[0]
        if i >= len(objects):
            raise Bad("missing object %s" % name)
        got_name, got = objects[i]
        if got_name != name or len(got) != size:
            raise Bad("object %d is %s/%d, wanted %s/%d"
                      % (i, got_name, len(got), name, size))
        cursor[0] += 1
        return got

    def digits(text):
        if not text or not text.isdigit():
            raise Bad("not a number: %r" % text)
        return int(text)

    argv = []
    numbered = [0]

    def sym_arg(max_len):
        raw = next_object("arg%02d" % numbered[0], max_len + 1)
        numbered[0] += 1
        argv.append(raw[:max_len].split(b"\0")[0])

    def disk_file(name, size):
        contents = next_object(name, size)
        stat = next_object(name + "-stat", 144)
        (mode,) = struct.unpack_from("<I", stat, 24)
        return {"mode": mode & 0o777, "data": contents.hex(),
                "type": mode & 0o170000}

    n_files = file_len = stdin_len = 0
    sym_stdout = False
    rest = [a.decode("latin-1") for a in args[1:]]
    k = 0
    while k < len(rest):
        word = rest[k]
        option = word[2:] if word.startswith("--") else word[1:] if word.startswith("-") else None
        if option == "sym-arg":
            sym_arg(digits(rest[k + 1] if k + 1 < len(rest) else ""))
            k += 2
        elif option == "sym-args":
            lo, hi, size = (digits(rest[k + j] if k + j < len(rest) else "") for j in (1, 2, 3))
            if lo == hi:
                count = lo
            else:
                (count,) = struct.unpack("<i", next_object("n_args", 4))
                if not lo <= count <= hi:
                    raise Bad("n_args %d out of range" % count)
            for _ in range(count):
                sym_arg(size)
            k += 4
        elif option == "sym-files":
            n_files = digits(rest[k + 1] if k + 1 < len(rest) else "")
            file_len = digits(rest[k + 2] if k + 2 < len(rest) else "")
            k += 3
        elif option == "sym-stdin":
            stdin_len = digits(rest[k + 1] if k + 1 < len(rest) else "")
            k += 2
        elif option == "sym-stdout":
            sym_stdout = True
            k += 1
        else:
            argv.append(args[k + 1].split(b"\0")[0])
            k += 1

    files = []
    for i in range(n_files):
        name = chr(ord("A") + i)
        entry = disk_file(name + "-data", file_len)
        entry["name"] = name
        entry["directory"] = entry.pop("type") == 0o040000
        if entry["directory"]:
            entry["mode"] = (entry["mode"] or 0o755) | 0o700
        else:
            entry["mode"] = (entry["mode"] or 0o644) | 0o600
        files.append(entry)
    stdin, stdin_terminal = None, False
    if stdin_len:
        entry = disk_file("stdin", stdin_len)
        stdin, stdin_terminal = entry["data"], entry["type"] == 0o020000
    if sym_stdout:
        disk_file("stdout", 1024)
    if cursor[0] < len(objects) and objects[cursor[0]][0] == "model_version":
        next_object("model_version", 4)
    return {"argv": [a.hex() for a in argv], "files": files, "stdin": stdin,
            "stdin_terminal": stdin_terminal, "objects": cursor[0]}


def main():
    results = {}
    for path in sys.argv[1:]:
        try:
            results[path] = environment(*read_ktest(path))
        except (Bad, OSError, struct.error) as e:
            results[path] = {"error": str(e)}
    json.dump(results, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
