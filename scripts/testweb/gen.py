#!/usr/bin/env python3
"""Generate the synthetic test web: static files, an nginx and a dnsmasq
configuration, and the ground truth of a correct Latvian crawl of it.

    scripts/testweb/gen.py --out DIR [--hosts N] [--pages M] [--seed S]
                           [--per-addr K] [--addr-base 127.0.0.100]
                           [--port P] [--dns-port Q] [--dns-addr A]
                           [--max-kb KB] [--bulk K] [--foreign F] [--no-slow]

The same arguments give the same web, byte for byte (ports aside: 0, the
default, picks free ones). DIR gets:

    www/HOST/...        the docroot of each virtual host
    nginx.conf          one server per virtual host, K hosts per address
    dnsmasq.conf hosts  the DNS server's configuration and its names
    web.json            ports, hosts, addresses, seeds and filters
    truth/seeds.txt     where a crawl starts
    truth/verified.txt  what a correct crawl with the filters and
                        --filter-tunnel 0 verifies, the calendar trap aside
    truth/requested.txt every URL a correct crawl requests (robots.txt aside)
    truth/forbidden.txt every linked URL that robots.txt disallows
    truth/trap.txt      the trap's URL prefix and how many of its pages a
                        crawl bounded by nlpc-scan's defaults may fetch
    truth/outcomes.txt  URL, state and the start of the reason of every
                        requested or linked URL a correct crawl refuses
                        for a reason the generator can name: unknown
                        names (UNREACH), robots.txt (EXCLUDED), redirects
                        (REDIRECT), charsets and languages (REJECTED)

Several webs can be served at once: give each its own --addr-base and
--dns-addr (any 127.0.0.x), so that neither nginx nor dnsmasq can clash.

With --bulk K it also has K hosts bulk-NN.test that answer every path with
one Latvian page, so a benchmark can plant frontiers of any size; they are
no part of the ground truth.

With --foreign F it also has F English hosts with no Latvian page at all,
to which every Latvian page links twice (a large foreign site the Latvian
web cites): low-yield hosts for scripts/bench/harvest. They are part of
the ground truth; without the option the web is what it was.

With --no-slow no host asks for a Crawl-delay: every tenth host, the small
slow Latvian one that asks for it, is a Latvian host like the others (for
scripts/bench/compare's web without the Crawl-delay floor).

Serve it with scripts/testweb/serve start DIR; stop with serve stop DIR.
"""

import argparse
import bisect
import collections.abc
import json
import math
import os
import random
import re
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import text  # noqa: E402

SECTIONS = ["zinas", "kultura", "sports", "daba", "vesture", "izglitiba", "celojumi", "saimnieciba"]

# Roles repeat in this order over the hosts, so that even 6 hosts hold every
# kind: Latvian in UTF-8 (with the charset in the header) and in
# windows-1257 (in a meta tag only), English, Russian (windows-1251 in meta,
# KOI8-R in the header under /koi/), a small slow Latvian host that asks for
# a Crawl-delay, and German in ISO-8859-1.
ROLES = ["lv", "lv1257", "en", "ru", "lv-slow", "de", "lv", "en", "lv", "ru"]
LANG = {"lv": "lv", "lv1257": "lv", "lv-slow": "lv", "en": "en", "ru": "ru", "de": "de",
        "foreign": "en"}
ENC = {"lv": "utf-8", "lv1257": "windows-1257", "lv-slow": "utf-8", "en": "utf-8",
       "ru": "windows-1251", "de": "iso-8859-1", "foreign": "utf-8"}

# What nlpcd is told in the test and the benchmark.
FILTER_LANG = "lv"
FILTER_CHARSET = ["utf-8", "windows-1257", "iso-8859-4", "iso-8859-13"]
# The WHATWG names of the charsets pages are written in, where they differ.
WHATWG = {"iso-8859-1": "windows-1252"}

# nlpc-scan's trap guards, at their defaults.
MAX_PATH_DEPTH = 16
MAX_REPEAT = 3
MAX_URL_LENGTH = 1024

LV_ROBOTS = (
    "# Private pages stay private, but one of them is open to all.\n"
    "User-agent: *\n"
    "Disallow: /privats/\n"
    "Allow: /privats/atverts.html\n"
    "# Print versions and the search script (RFC 9309 wildcards).\n"
    "Disallow: /*?druka=\n"
    "Disallow: /*.cgi$\n"
)
SLOW_ROBOTS = "User-agent: *\nCrawl-delay: 0.1\nDisallow: /privats/\n"
DE_ROBOTS = "User-agent: *\nDisallow: /intern/\n"
RU_ROBOTS = "User-agent: *\nDisallow: /*.php$\n"

CAL_RE = re.compile(r"^/kalendars/(?:\d\d/)*(\d\d)/$")


def free_port(kind, addr="127.0.0.1"):
    s = socket.socket(socket.AF_INET, kind)
    s.bind((addr, 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Gap(collections.abc.Sequence):
    """`seq` without its items lo to hi (not included), unmade: a page's
    link targets are drawn from its language's pages less its own host's,
    and copying those lists for each of 100,000 pages took minutes.
    random.sample draws the same items from it as from the copy."""

    def __init__(self, seq, lo, hi):
        self.seq, self.lo, self.cut = seq, lo, hi - lo

    def __len__(self):
        return len(self.seq) - self.cut

    def __getitem__(self, k):
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self.seq[k if k < self.lo else k + self.cut]


def robots_allows(rules, path):
    """RFC 9309 for the rules this generator writes: the longest matching
    rule decides, Allow wins a tie, '*' any run, '$' the end."""
    best, allow = -1, True
    for kind, pat in rules:
        rx = "^" + re.escape(pat).replace(r"\*", ".*").replace(r"\$", "$")
        if re.match(rx, path) and (len(pat) > best or (len(pat) == best and kind == "allow")):
            best, allow = len(pat), kind == "allow"
    return allow


def parse_robots(body):
    rules = []
    for line in body.splitlines():
        k, _, v = line.partition(":")
        k, v = k.strip().lower(), v.strip()
        if k in ("allow", "disallow") and v:
            rules.append((k, v))
    return rules


def scan_refuses(url):
    """nlpc-scan's filter with its default trap guards."""
    path = re.sub(r"^[a-z]+://[^/]*", "", url).split("?")[0]
    segs = [s for s in path.split("/") if s]
    if len(url) > MAX_URL_LENGTH or len(segs) > MAX_PATH_DEPTH:
        return True
    return any(segs.count(s) > MAX_REPEAT for s in segs)


class Web:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.port = a.port or free_port(socket.SOCK_STREAM)
        self.dns_port = a.dns_port or free_port(socket.SOCK_DGRAM, a.dns_addr)
        base = a.addr_base.rsplit(".", 1)
        self.hosts = []
        for i in range(a.hosts + a.foreign):
            role = ROLES[i % len(ROLES)] if i < a.hosts else "foreign"
            if role == "lv-slow" and a.no_slow:
                role = "lv"
            self.hosts.append({
                "name": f"{LANG[role]}-{i:02d}.test",
                "addr": f"{base[0]}.{int(base[1]) + i // a.per_addr}",
                "role": role,
                "lang": LANG[role],
                # The slow host is small, or it alone would set the pace.
                "npages": max(5, a.pages // 20) if role == "lv-slow" else a.pages,
            })
        nbase = int(base[1]) + (a.hosts + a.foreign + a.per_addr - 1) // a.per_addr
        self.bulk = [{"name": f"bulk-{k:02d}.test", "addr": f"{base[0]}.{nbase + k // a.per_addr}"}
                     for k in range(a.bulk)]
        # path → resource, per host: ("page", lang, enc, links, nofollow),
        # ("cgi", ...) the same served as application/octet-stream,
        # ("binary",), ("image",), ("redirect", url).
        self.res = {h["name"]: {} for h in self.hosts}
        self.robots = {}
        self.forbidden = set()

    def url(self, host, path):
        return f"http://{host}:{self.port}{path}"

    def page_path(self, h, n):
        if n == 0:
            return "/"
        sec = SECTIONS[n % len(SECTIONS)]
        if h["role"] == "ru" and n % 2 == 1:
            return f"/koi/{sec}/{n}.html"
        return f"/{sec}/{n}.html"

    def plan(self):
        rng = self.rng
        langs = {}  # (host index, n) → language of the page
        for i, h in enumerate(self.hosts):
            for n in range(h["npages"]):
                lang = h["lang"]
                # A Latvian site has some English pages; a foreign site
                # some Latvian ones (in UTF-8, outside /koi/).
                if n > 0 and rng.random() < 0.1 and h["role"] != "foreign":
                    if lang == "lv":
                        lang = "en"
                    elif not (h["role"] == "ru" and n % 2 == 1):
                        lang = "lv"
                langs[(i, n)] = lang
        by_lang = {}
        own_pages = {}
        for (i, n), lang in sorted(langs.items()):
            by_lang.setdefault(lang, []).append((i, n))
            own_pages.setdefault((lang, i), []).append(n)
        lv_hosts = [i for i, h in enumerate(self.hosts) if h["lang"] == "lv"]

        for i, h in enumerate(self.hosts):
            name, role = h["name"], h["role"]
            res = self.res[name]
            specials = []
            if h["lang"] == "lv":
                self.robots[name] = SLOW_ROBOTS if role == "lv-slow" else LV_ROBOTS
                for k in (1, 2):
                    res[f"/privats/{k}.html"] = ("page", "lv", "utf-8", [], [])
                    specials.append(f"/privats/{k}.html")
                res["/privats/atverts.html"] = ("page", "lv", "utf-8", [], [])
                specials += ["/privats/atverts.html", "/meklet.cgi",
                             self.page_path(h, 1) + "?druka=1"]
                # Served as application/octet-stream (no type for .cgi).
                res["/meklet.cgi"] = ("cgi", "lv", "utf-8", [], [])
                for n in (1, 2, 3):
                    if n < h["npages"]:
                        res[f"/vecs/{n}.html"] = ("redirect", self.url(name, self.page_path(h, n)), 301)
                        specials.append(f"/vecs/{n}.html")
                nxt = self.hosts[lv_hosts[(lv_hosts.index(i) + 1) % len(lv_hosts)]]["name"]
                res["/parcelts.html"] = ("redirect", self.url(nxt, "/"), 302)
                specials.append("/parcelts.html")
            elif role == "de":
                self.robots[name] = DE_ROBOTS
                res["/intern/1.html"] = ("page", "de", "iso-8859-1", [], [])
                specials.append("/intern/1.html")
            elif role == "ru":
                self.robots[name] = RU_ROBOTS
                specials.append("/poisk.php")
            # English hosts have no robots.txt: a 404 allows everything.
            for k in (1, 2):
                res[f"/faili/{k}.html"] = ("binary",)
                specials.append(f"/faili/{k}.html")
            res["/logo.png"] = ("image",)
            specials.append("/logo.png")
            specials.append(f"/{SECTIONS[0]}/{h['npages'] + 7}.html")  # 404

            for n in range(h["npages"]):
                lang = langs[(i, n)]
                links = []
                if n + 1 < h["npages"]:
                    links.append(self.url(name, self.page_path(h, n + 1)))
                # by_lang's lists are sorted: host i's pages are one run.
                # Both lists hold this page, so it is at `at`.
                pages = by_lang[lang]
                lo = bisect.bisect_left(pages, (i, 0))
                hi = bisect.bisect_left(pages, (i + 1, 0))
                own = own_pages[(lang, i)]
                at = bisect.bisect_left(own, n)
                same = Gap(own, at, at + 1)
                other = Gap(pages, lo, hi)
                for m in rng.sample(same, min(3, len(same))):
                    links.append(self.url(name, self.page_path(h, m)))
                for j, m in rng.sample(other, min(2, len(other))):
                    links.append(self.url(self.hosts[j]["name"], self.page_path(self.hosts[j], m)))
                if rng.random() < 0.3:
                    foreign = [k for k in by_lang if k != lang]
                    j, m = rng.choice(by_lang[rng.choice(sorted(foreign))])
                    links.append(self.url(self.hosts[j]["name"], self.page_path(self.hosts[j], m)))
                nofollow = []
                if n == 0:
                    for m in range(1, min(10, h["npages"])):
                        links.append(self.url(name, self.page_path(h, m)))
                    links += [self.url(name, p) for p in specials]
                    if h["lang"] == "lv":
                        # Linked only with rel=nofollow: never requested.
                        res["/slepens.html"] = ("page", "lv", "utf-8", [], [])
                        nofollow.append(self.url(name, "/slepens.html"))
                    if i == 0:
                        links.append(self.url(name, "/kalendars/"))
                        # A name the DNS server does not know.
                        links.append(self.url("nav-tada.test", "/"))
                elif rng.random() < 0.15:
                    links.append(self.url(name, rng.choice(specials)))
                enc = ENC[role]
                if lang == "lv" and enc not in ("utf-8", "windows-1257"):
                    enc = "utf-8"
                if role == "ru" and n % 2 == 1:
                    enc = "koi8-r"
                res[self.page_path(h, n)] = ("page", lang, enc, links, nofollow)
        self.link_foreign()
        # One pass over the links, each weighed against its own host's
        # rules: a pass per host took minutes on a web of 100,000 pages.
        rules = {n: parse_robots(b) for n, b in self.robots.items()}
        for res in self.res.values():
            for r in res.values():
                if r[0] != "page":
                    continue
                for u in r[3] + r[4]:
                    host, path = split(u)
                    if host in rules and not robots_allows(rules[host], path):
                        self.forbidden.add(u)

    # Page bodies.

    def link_foreign(self):
        """Two links from every Latvian page to pages of the --foreign
        hosts, drawn from a generator of their own so that the rest of the
        web is the same with or without them."""
        pages = [(h, n) for h in self.hosts if h["role"] == "foreign" for n in range(h["npages"])]
        if not pages:
            return
        rng = random.Random(self.a.seed * 7919 + 1)
        for h in self.hosts:
            for path, r in sorted(self.res[h["name"]].items()):
                if r[0] == "page" and r[1] == "lv" and r[3]:
                    for fh, n in rng.sample(pages, min(2, len(pages))):
                        r[3].append(self.url(fh["name"], self.page_path(fh, n)))

    def body(self, rng, host, lang, enc, title, links, nofollow, size):
        pool = text.POOLS[lang]
        own = self.url(host, "")

        def rel(u):
            # Links within the host are written root-relative.
            return u[len(own):] if u.startswith(own + "/") else u

        head = (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="{enc}">'
                f"<title>{title}</title></head>\n<body><h1>{title}</h1>\n<ul>\n")
        nav = "".join(f'<li><a href="{rel(u)}">{rel(u)}</a></li>\n' for u in links)
        nav += "".join(f'<li><a rel="nofollow" href="{rel(u)}">{rel(u)}</a></li>\n' for u in nofollow)
        parts = [head, nav, "</ul>\n"]
        n = sum(len(p) for p in parts)
        while n < size:
            para = "<p>" + " ".join(rng.choice(pool) for _ in range(rng.randint(3, 7))) + "</p>\n"
            parts.append(para)
            n += len(para.encode("utf-8"))
        parts.append("</body></html>\n")
        return "".join(parts).encode(enc)

    def size(self, rng):
        # Log-uniform from 2 KB to the largest size: most pages are small.
        return int(math.exp(rng.uniform(math.log(2000), math.log(self.a.max_kb * 1000))))

    def write(self):
        out = self.a.out
        rng = random.Random(self.a.seed * 7919 + 1)
        for h in self.hosts:
            root = os.path.join(out, "www", h["name"])
            for path, r in sorted(self.res[h["name"]].items()):
                if r[0] == "redirect":
                    continue
                f = os.path.join(root, path.lstrip("/") or "index.html")
                if path.endswith("/"):
                    f = os.path.join(root, path.lstrip("/"), "index.html")
                os.makedirs(os.path.dirname(f), exist_ok=True)
                if r[0] in ("page", "cgi"):
                    _, lang, enc, links, nofollow = r
                    t = f"{h['name']}: {rng.choice(text.TITLES[lang])}"
                    data = self.body(rng, h["name"], lang, enc, t, links, nofollow, self.size(rng))
                elif r[0] == "binary":
                    # Binary data behind an .html name, as some servers send.
                    data = rng.randbytes(rng.randint(5000, 60000))
                else:
                    data = b"\x89PNG\r\n\x1a\n" + rng.randbytes(3000)
                with open(f, "wb") as fh:
                    fh.write(data)
            if h["name"] in self.robots:
                with open(os.path.join(root, "robots.txt"), "w") as fh:
                    fh.write(self.robots[h["name"]])
        self.write_calendar(rng)
        for b in self.bulk:
            root = os.path.join(out, "www", b["name"])
            os.makedirs(root, exist_ok=True)
            links = [self.url(b["name"], f"/saite/{k}.html") for k in range(5)]
            with open(os.path.join(root, "lapa.html"), "wb") as fh:
                fh.write(self.body(rng, b["name"], "lv", "utf-8", "Lapa", links, [], 20000))

    def write_calendar(self, rng):
        """An endless calendar on the first host: /kalendars/ links to 01/,
        and month MM's page, served for any path ending in /MM/, links to
        the next month relative to itself, so every page has a new URL one
        segment deeper, for ever."""
        d = os.path.join(self.a.out, "www", self.hosts[0]["name"], "kal")
        os.makedirs(d, exist_ok=True)
        for m in range(13):
            nxt = f"{m % 12 + 1:02d}/"
            name = "lapa" if m == 0 else text.LV_MONTHS[m - 1]
            title = f"Pasākumu kalendārs: {name}"
            paras = "".join(f"<p>{s}</p>\n" for s in text.LV_CALENDAR)
            paras += "<p>" + " ".join(rng.choice(text.LV) for _ in range(6)) + "</p>\n"
            html = (f'<!DOCTYPE html>\n<html lang="lv"><head><meta charset="utf-8"><title>{title}</title>'
                    f"</head>\n<body><h1>{title}</h1>\n{paras}"
                    f'<p><a href="{nxt}">Nākamais mēnesis</a> <a href="/">Sākums</a></p>\n</body></html>\n')
            fn = "index.html" if m == 0 else f"m{m:02d}.html"
            with open(os.path.join(d, fn), "w", encoding="utf-8") as fh:
                fh.write(html)

    # What a correct crawl does.

    def resource(self, url):
        host, path = split(url)
        if host not in self.res:
            return ("nxdomain",)
        m = CAL_RE.match(path) if host == self.hosts[0]["name"] else None
        if path == "/kalendars/" and host == self.hosts[0]["name"]:
            return ("page", "lv", "utf-8", [self.url(host, "/kalendars/01/"), self.url(host, "/")], [])
        if m:
            nxt = f"{int(m.group(1)) % 12 + 1:02d}/"
            return ("page", "lv", "utf-8", [self.url(host, path + nxt), self.url(host, "/")], [])
        return self.res[host].get(path.split("?")[0], ("missing",))

    def truth(self):
        seeds = [self.url(self.hosts[0]["name"], "/")]
        rules = {n: parse_robots(b) for n, b in self.robots.items()}
        queue, seen = list(seeds), set(seeds)
        requested, verified, outcomes = set(), set(), {}
        while queue:
            u = queue.pop()
            host, path = split(u)
            r = self.resource(u)
            if r[0] == "nxdomain":
                outcomes[u] = ("UNREACH", "")
                continue
            if not robots_allows(rules.get(host, []), path):
                outcomes[u] = ("EXCLUDED", "")
                continue
            requested.add(u)
            new = []
            if r[0] == "redirect":
                outcomes[u] = ("REDIRECT", "")
                new = [r[1]]
            elif r[0] == "page" and r[1] == FILTER_LANG and r[2] in FILTER_CHARSET:
                verified.add(u)
                new = r[3]
            elif r[0] == "page" and r[2] not in FILTER_CHARSET:
                # By the name nlpcrawl gives it: the fetcher's header check
                # names a charset from the header, nlpc-vrfy the WHATWG one.
                outcomes[u] = ("REJECTED", "charset " + WHATWG.get(r[2], r[2]))
            elif r[0] == "page":
                outcomes[u] = ("REJECTED", "language")
            for v in new:
                if v not in seen and not scan_refuses(v):
                    seen.add(v)
                    queue.append(v)
        trap = self.url(self.hosts[0]["name"], "/kalendars/")
        trapped = {u for u in verified if u.startswith(trap)}
        return seeds, sorted(verified - trapped), sorted(requested), trap, len(trapped), outcomes

    def configs(self):
        out = os.path.abspath(self.a.out)
        servers = []
        for h in self.hosts:
            name, role = h["name"], h["role"]
            lines = [f"    listen {h['addr']}:{self.port};", f"    server_name {name};",
                     f"    root {out}/www/{name};"]
            if role == "lv":
                lines.append("    charset utf-8;")
            if role == "lv-slow":
                lines.append("    limit_rate 200k;")
            if role == "ru":
                lines.append("    location ^~ /koi/ { charset koi8-r; }")
            for path, r in sorted(self.res[name].items()):
                if r[0] == "redirect":
                    lines.append(f"    location = {path} {{ return {r[2]} {r[1]}; }}")
            if h is self.hosts[0]:
                lines.append("    location = /kalendars/ { try_files /kal/index.html =404; }")
                lines.append('    location ~ "^/kalendars/(?:\\d\\d/)*(\\d\\d)/$" { try_files /kal/m$1.html =404; }')
            servers.append("  server {\n" + "\n".join(lines) + "\n  }\n")
        for b in self.bulk:
            servers.append(f"  server {{\n    listen {b['addr']}:{self.port};\n    server_name {b['name']};\n"
                           f"    root {out}/www/{b['name']};\n    charset utf-8;\n"
                           "    location / { try_files /lapa.html =404; }\n  }\n")
        write_nginx_conf(out, "gen.py", "text/html html; text/plain txt; image/png png;", servers)
        write(out, "hosts", "".join(f"{h['addr']} {h['name']}\n" for h in self.hosts + self.bulk))
        write_dnsmasq_conf(out, "gen.py", self.dns_port, self.a.dns_addr)

    def save(self):
        out = self.a.out
        seeds, verified, requested, trap, trapped, outcomes = self.truth()
        os.makedirs(os.path.join(out, "truth"), exist_ok=True)
        write(out, "truth/seeds.txt", lines(seeds))
        write(out, "truth/verified.txt", lines(verified))
        write(out, "truth/requested.txt", lines(requested))
        write(out, "truth/forbidden.txt", lines(sorted(self.forbidden)))
        write(out, "truth/trap.txt", f"{trap}\t{trapped}\n")
        write(out, "truth/outcomes.txt", lines(f"{u}\t{st}\t{why}" for u, (st, why) in sorted(outcomes.items())))
        info = {
            "port": self.port, "dns_port": self.dns_port,
            "dns_addr": self.a.dns_addr,
            "nameserver": f"{self.a.dns_addr}:{self.dns_port}",
            "addresses": sorted({h["addr"] for h in self.hosts + self.bulk}),
            "bulk": self.bulk,
            "hosts": self.hosts, "seeds": seeds,
            "filter_lang": FILTER_LANG, "filter_charset": " ".join(FILTER_CHARSET),
            "trap": {"prefix": trap, "max_pages": trapped,
                     "bound": f"nlpc-scan --max-path-depth {MAX_PATH_DEPTH}"},
            "counts": {"verified": len(verified), "requested": len(requested),
                       "forbidden": len(self.forbidden)},
        }
        write(out, "web.json", json.dumps(info, indent=1) + "\n")
        return info


def split(u):
    m = re.match(r"^http://([^/:]+)(?::\d+)?(/.*)$", u)
    return m.group(1), m.group(2)


def lines(v):
    return "".join(x + "\n" for x in v)


def write(out, name, data):
    with open(os.path.join(out, name), "w", encoding="utf-8") as fh:
        fh.write(data)


def write_nginx_conf(out, made_by, types, servers):
    """OUT/nginx.conf for scripts/testweb/serve: one worker, a log line per
    request in the format the tests and benchmarks read, and `servers`, a
    list of `server { ... }` blocks."""
    write(out, "nginx.conf", f"""# Generated by scripts/testweb/{made_by}; served by scripts/testweb/serve.
worker_processes 1;
pid {out}/run/nginx.pid;
error_log {out}/logs/error.log;
events {{ worker_connections 4096; }}
http {{
  # One line per request: what the tests and the benchmark count.
  log_format testweb '$host\\t$server_addr\\t$request_uri\\t$status\\t$body_bytes_sent\\t$msec\\t$http_user_agent';
  access_log {out}/logs/access.log testweb;
  client_body_temp_path {out}/run; proxy_temp_path {out}/run; fastcgi_temp_path {out}/run;
  uwsgi_temp_path {out}/run; scgi_temp_path {out}/run;
  types {{ {types} }}
  default_type application/octet-stream;
  sendfile on;
  keepalive_requests 100000;
  keepalive_timeout 60s;
  server_tokens off;
{''.join(servers)}}}
""")


def write_dnsmasq_conf(out, made_by, port, addr):
    """OUT/dnsmasq.conf: only the names of OUT/hosts, only on `addr`,
    nothing forwarded anywhere."""
    write(out, "dnsmasq.conf", f"""# Generated by scripts/testweb/{made_by}
port={port}
listen-address={addr}
bind-interfaces
no-resolv
no-poll
no-hosts
addn-hosts={out}/hosts
local=/test/
pid-file={out}/run/dnsmasq.pid
log-facility={out}/logs/dnsmasq.log
""")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--hosts", type=int, default=6)
    p.add_argument("--pages", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-addr", type=int, default=2, help="virtual hosts per address")
    p.add_argument("--addr-base", default="127.0.0.100")
    p.add_argument("--max-kb", type=int, default=200, help="largest page, KB")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--dns-port", type=int, default=0)
    p.add_argument("--dns-addr", default="127.0.0.1", help="loopback address of the DNS server")
    p.add_argument("--bulk", type=int, default=0, help="hosts that answer any path")
    p.add_argument("--foreign", type=int, default=0, help="English hosts every Latvian page links to")
    p.add_argument("--no-slow", action="store_true",
                   help="no host asks for a Crawl-delay: the slow host's place is a plain Latvian one")
    a = p.parse_args()
    if a.hosts < 6 or a.pages < 12:
        p.error("at least 6 hosts of 12 pages, so that every kind of host and page is there")
    for d in ("www", "run", "logs"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    w = Web(a)
    w.plan()
    w.write()
    w.configs()
    info = w.save()
    c = info["counts"]
    print(f"testweb: {a.hosts} hosts, {len(info['addresses'])} addresses, port {w.port}, "
          f"DNS {a.dns_addr}:{w.dns_port}; truth: {c['verified']} verified, "
          f"{c['requested']} requested, {c['forbidden']} forbidden, "
          f"trap at most {info['trap']['max_pages']} pages")


if __name__ == "__main__":
    main()
