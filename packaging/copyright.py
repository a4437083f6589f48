#!/usr/bin/env python3
"""Writes the package's copyright file: fprint, then every component linked
into the binary. A package of .build/checkouts counts when the symbols of a
module the release build compiled from it are in the binary (Swift mangles
the module name into each of its symbols: $s<length><Module>). A licence it
cannot recognise stops the build: the file must name every bundled
component truthfully.

Usage: copyright.py BINARY CHECKOUTS_DIR > copyright
"""
import os
import re
import subprocess
import sys

binary, checkouts = sys.argv[1], sys.argv[2]
symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
symbols_lower = symbols.lower()


def licence_of(text):
    head = text[:3000]
    if "Apache License" in head and "Version 2.0" in head:
        return "Apache-2.0 with Swift-exception" if "Runtime Library Exception" in text else "Apache-2.0"
    if "Permission is hereby granted, free of charge" in head:
        return "Expat"
    return None


def copyright_line(folder, licence_text):
    for name in ("NOTICE.txt", "NOTICE"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            for line in open(path, encoding="utf-8", errors="replace"):
                if line.strip().lower().startswith("copyright"):
                    return line.strip()
    for line in licence_text.splitlines()[:20]:
        if line.strip().lower().startswith("copyright"):
            return line.strip()
    for root, _, files in os.walk(os.path.join(folder, "Sources")):
        for f in sorted(files):
            if f.endswith((".swift", ".c", ".h", ".cc")):
                for line in open(os.path.join(root, f), encoding="utf-8", errors="replace").readlines()[:20]:
                    m = re.search(r"(Copyright.*)", line)
                    if m:
                        return m.group(1).strip()
    return None


def modules_by_package():
    """Each checkout's Swift modules, from the release build's own lists of
    the sources it compiled (<Module>.build/sources beside the binary)."""
    found = {}
    build = os.path.dirname(os.path.realpath(binary))
    for entry in os.listdir(build):
        listing = os.path.join(build, entry, "sources")
        if not entry.endswith(".build") or not os.path.exists(listing):
            continue
        for line in open(listing):
            path = os.path.realpath(line.strip())
            root = os.path.realpath(checkouts) + os.sep
            if path.startswith(root):
                found.setdefault(path[len(root):].split(os.sep)[0], set()).add(entry[: -len(".build")])
                break
    return found


modules = modules_by_package()


def linked(package):
    return any(f"$s{len(m)}{m}" in symbols for m in modules.get(package, ()))


stanzas = []
for package in sorted(os.listdir(checkouts), key=str.lower):
    folder = os.path.join(checkouts, package)
    if not linked(package):
        continue
    licence_file = next((f for f in sorted(os.listdir(folder)) if f.lower().startswith("licen")), None)
    if licence_file is None:
        sys.exit(f"copyright.py: {folder}: no LICENSE file")
    text = open(os.path.join(folder, licence_file), encoding="utf-8", errors="replace").read()
    licence = licence_of(text)
    if licence is None:
        sys.exit(f"copyright.py: {folder}/{licence_file}: licence not recognised; add it to copyright.py")
    holder = copyright_line(folder, text) or f"the {package} authors"
    stanzas.append((package, holder, licence))
    # Third-party code a package carries in its own C targets (llhttp in swift-nio, …).
    for target in sorted(os.listdir(os.path.join(folder, "Sources"))) if os.path.isdir(os.path.join(folder, "Sources")) else []:
        inner = os.path.join(folder, "Sources", target, "LICENSE")
        if os.path.exists(inner) and (f"{target}_" in symbols or target.lower() in symbols_lower):
            text = open(inner, encoding="utf-8", errors="replace").read()
            licence = licence_of(text)
            if licence is None:
                sys.exit(f"copyright.py: {inner}: licence not recognised; add it to copyright.py")
            stanzas.append((f"{package}/{target}", copyright_line(os.path.dirname(inner), text) or "its authors", licence))

out = sys.stdout
out.write("""Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: fprint
Comment: fprint's binary links in the Swift runtime, Foundation, libstdc++
 and the Swift packages below (all of them: this list is made from the
 binary's symbols when the package is built). No dataset is shipped in this
 package, so there are no dataset credits: the public datasets fprint can
 import (docs/datasets.md) are downloaded by the user, under their own terms.

Files: *
Copyright: the fprint authors
License: fprint
 fprint has not stated a licence yet; until it does, no rights beyond
 installing and running this package are granted.

Files: usr/bin/fprint usr/lib/fprint/fprint-radio
Copyright: Copyright (c) 2014 - 2025 Apple Inc. and the Swift project authors
License: Apache-2.0 with Swift-exception
Comment: the Swift runtime, standard library, Foundation and Dispatch

Files: usr/bin/fprint usr/lib/fprint/fprint-radio
Copyright: Copyright (C) 2016 and later Unicode, Inc. and others
License: Unicode-3.0
 UNICODE LICENSE V3: permission is hereby granted, free of charge, to any
 person obtaining a copy of data files and any associated documentation or
 software, to deal in them without restriction, provided that this
 copyright and permission notice appear with all copies.
 The full text: https://www.unicode.org/license.txt
Comment: ICU, linked into Foundation (swift-foundation-icu)

Files: usr/bin/fprint usr/lib/fprint/fprint-radio
Copyright: Copyright (C) 1997-2022 Free Software Foundation, Inc.
License: GPL-3+ with GCC-exception
Comment: libstdc++, linked statically
 This library is free software; you can redistribute it and/or modify it
 under the terms of the GNU General Public License as published by the Free
 Software Foundation; either version 3, or (at your option) any later
 version, with the GCC Runtime Library Exception, version 3.1.
 .
 On Debian systems, the GNU General Public License version 3 is in
 /usr/share/common-licenses/GPL-3.
""")
for name, holder, licence in stanzas:
    out.write(f"\nFiles: usr/bin/fprint usr/lib/fprint/fprint-radio\nCopyright: {holder}\nLicense: {licence}\nComment: {name}\n")

out.write("""
License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this file except in compliance with the License.
 .
 On Debian systems, the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0.

License: Apache-2.0 with Swift-exception
 Licensed under the Apache License, Version 2.0, with the Runtime Library
 Exception: "As an exception, if you use this Software to compile your
 source code and portions of this Software are embedded into the binary
 product as a result, you may redistribute such product without providing
 attribution as would otherwise be required by Sections 4(a), 4(b) and
 4(d) of the License."
 .
 On Debian systems, the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0.

License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files (the "Software"),
 to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense,
 and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
 DEALINGS IN THE SOFTWARE.
""")
