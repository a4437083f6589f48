#!/usr/bin/env python3
"""The test's own durable whole-file write (the operator's editor, in effect):
temporary file, fsync, rename, fsync the folder. Usage: durable_write.py PATH LINE"""
import os
import sys

path, line = sys.argv[1], sys.argv[2]
folder = os.path.dirname(path) or "."
temporary = path + ".edit"
with open(temporary, "w") as f:
    f.write(line + "\n")
    f.flush()
    os.fsync(f.fileno())
os.chmod(temporary, 0o600)
os.rename(temporary, path)
fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
os.fsync(fd)
os.close(fd)
