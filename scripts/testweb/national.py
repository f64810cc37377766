#!/usr/bin/env python3
"""Generate a national web for scripts/bench/focus: a few hundred hosts
sharing a few dozen loopback addresses, a fifth of them Latvian.

    scripts/testweb/national.py --out DIR [--hosts 300] [--per-addr 10]
                                [--large 6] [--large-pages 2000] [--seed 1]
                                [--addr-base 127.0.1.1] [--dns-addr 127.0.1.250]
                                [--port P] [--dns-port Q]

The same arguments give the same web, byte for byte (ports aside: 0, the
default, picks free ones). The web, beside gen.py's (whose outputs it
leaves alone) and served the same way (scripts/testweb/serve):

  - a fifth of the hosts are Latvian (lv-NNN.test), the rest Russian and
    English (ru-NNN.test, en-NNN.test), all in UTF-8 and with no
    robots.txt (a 404 allows everything);
  - every Latvian page links within its host, to two other Latvian hosts
    and to two Russian or English pages; those link within their host and
    to three other foreign hosts, half the time one of the --large ones
    (--large-pages pages each), and seldom back to a Latvian host;
  - a fifth of the Latvian hosts are hidden: no Latvian page links to
    them, only foreign pages do, some one rejected page away from a
    Latvian one, some two (what --filter-tunnel 2 reaches); a few foreign
    hosts are mixed, with a tenth of their pages in Latvian;
  - a third of the visible Latvian hosts publish an RSS feed (/rss.xml,
    named by <link rel="alternate" type="application/rss+xml"> on each of
    their pages) listing their ten last pages, which are otherwise linked
    only at the end of the host's chain of pages.

DIR gets www/, nginx.conf, dnsmasq.conf, hosts and web.json as gen.py
makes them, and:

    truth/seeds.txt     where a crawl starts (three visible Latvian homes)
    truth/pages.tsv     URL, language, bytes, text bytes and links (space
                        separated) of every page
    truth/latvian.txt   the Latvian pages reachable from the seeds over
                        links of any page (what a crawl that follows
                        everything can find)
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import text  # noqa: E402
from gen import SECTIONS, free_port, lines, write, write_dnsmasq_conf, write_nginx_conf  # noqa: E402

import socket  # noqa: E402


class National:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.port = a.port or free_port(socket.SOCK_STREAM)
        self.dns_port = a.dns_port or free_port(socket.SOCK_DGRAM, a.dns_addr)
        rng = self.rng
        base = a.addr_base.rsplit(".", 1)
        nlv = a.hosts // 5
        langs = ["lv"] * nlv + ["ru"] * ((a.hosts - nlv) // 2)
        langs += ["en"] * (a.hosts - len(langs))
        rng.shuffle(langs)
        self.hosts = []
        for i, lang in enumerate(langs):
            self.hosts.append({"name": f"{lang}-{i:03d}.test",
                               "addr": f"{base[0]}.{int(base[1]) + i // a.per_addr}",
                               "lang": lang, "npages": rng.randint(10, 30) if lang == "lv" else rng.randint(5, 40),
                               "kind": "plain"})
        lv = [h for h in self.hosts if h["lang"] == "lv"]
        foreign = [h for h in self.hosts if h["lang"] != "lv"]
        for h in lv[: max(1, nlv // 5)]:
            h["kind"] = "hidden"
        for h in [h for h in lv if h["kind"] == "plain"][::3]:
            h["kind"] = "feed"
        for h in foreign[: a.large]:
            h["kind"] = "large"
            h["npages"] = a.large_pages
        for h in foreign[a.large: a.large + max(1, len(foreign) // 20)]:
            h["kind"] = "mixed"
        self.lv_visible = [h for h in lv if h["kind"] != "hidden"]
        self.lv_hidden = [h for h in lv if h["kind"] == "hidden"]
        self.foreign = foreign
        self.large = [h for h in foreign if h["kind"] == "large"]
        # url → [lang, links, rss]
        self.pages = {}

    def url(self, h, n):
        if n == 0:
            return f"http://{h['name']}:{self.port}/"
        return f"http://{h['name']}:{self.port}/{SECTIONS[n % len(SECTIONS)]}/{n}.html"

    def rand_page(self, h):
        return self.url(h, self.rng.randrange(h["npages"]))

    def plan(self):
        rng = self.rng
        for h in self.hosts:
            n_pages = h["npages"]
            feed = h["kind"] == "feed"
            # A feed host's last ten pages are linked only from the feed
            # and from the page before them (the end of the chain).
            last = max(1, n_pages - 10) if feed else n_pages
            for n in range(n_pages):
                lang = h["lang"]
                if h["kind"] == "mixed" and n > 0 and rng.random() < 0.1:
                    lang = "lv"
                links = []
                if n + 1 < n_pages:
                    links.append(self.url(h, n + 1))
                pick = range(last) if n < last else range(n_pages)
                for m in rng.sample(pick, min(3, len(pick))):
                    if m != n:
                        links.append(self.url(h, m))
                if h["lang"] == "lv":
                    for o in rng.sample(self.lv_visible, 2):
                        if o is not h:
                            links.append(self.rand_page(o))
                    for o in rng.sample(self.foreign, 2):
                        links.append(self.url(o, 0) if rng.random() < 0.5 else self.rand_page(o))
                else:
                    for _ in range(3):
                        o = rng.choice(self.large) if rng.random() < 0.5 else rng.choice(self.foreign)
                        if o is not h:
                            links.append(self.rand_page(o))
                    if rng.random() < 0.03:
                        links.append(self.rand_page(rng.choice(self.lv_visible)))
                if n == 0:
                    links += [self.url(h, m) for m in range(1, min(8, last))]
                self.pages[self.url(h, n)] = [lang, links, feed]
        # Hidden Latvian hosts: linked from foreign pages only, each from
        # three, one or two rejected pages away from a Latvian page.
        hop1 = sorted({u for u, p in self.pages.items() if p[0] == "lv"
                       for u in p[1] if self.pages.get(u, ["lv"])[0] != "lv"})
        hop2 = sorted({v for u in hop1 for v in self.pages[u][1]
                       if self.pages.get(v, ["lv"])[0] != "lv"} - set(hop1))
        for k, h in enumerate(self.lv_hidden):
            for j in range(3):
                src = rng.choice(hop1 if (k + j) % 2 == 0 else hop2)
                self.pages[src][1].append(self.url(h, 0))

    def body(self, rng, h, url, lang, links, feed):
        pool = text.POOLS[lang]
        own = f"http://{h['name']}:{self.port}"
        title = f"{h['name']}: {rng.choice(text.TITLES[lang])}"
        alt = ('<link rel="alternate" type="application/rss+xml" title="RSS" href="/rss.xml">'
               if feed else "")
        head = (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
                f"<title>{title}</title>{alt}</head>\n<body><h1>{title}</h1>\n<ul>\n")
        rel = [u[len(own):] if u.startswith(own + "/") else u for u in links]
        parts = [head, "".join(f'<li><a href="{u}">{u}</a></li>\n' for u in rel), "</ul>\n"]
        size = rng.randint(3000, 9000)
        n, textb = sum(len(p.encode("utf-8")) for p in parts), 0
        while n < size:
            words = " ".join(rng.choice(pool) for _ in range(rng.randint(3, 7)))
            para = "<p>" + words + "</p>\n"
            parts.append(para)
            n += len(para.encode("utf-8"))
            textb += len(words.encode("utf-8"))
        parts.append("</body></html>\n")
        return "".join(parts).encode("utf-8"), textb

    def write(self):
        out = self.a.out
        rng = random.Random(self.a.seed * 7919 + 1)
        self.sizes = {}
        for h in self.hosts:
            root = os.path.join(out, "www", h["name"])
            for n in range(h["npages"]):
                u = self.url(h, n)
                lang, links, feed = self.pages[u]
                data, textb = self.body(rng, h, u, lang, links, feed)
                self.sizes[u] = (len(data), textb)
                path = u.split(f":{self.port}", 1)[1]
                f = os.path.join(root, path.lstrip("/") or "index.html")
                os.makedirs(os.path.dirname(f), exist_ok=True)
                with open(f, "wb") as fh:
                    fh.write(data)
            if h["kind"] == "feed":
                items = "".join(f"<item><title>{n}</title><link>{self.url(h, n)}</link></item>\n"
                                for n in range(max(1, h["npages"] - 10), h["npages"]))
                with open(os.path.join(root, "rss.xml"), "w", encoding="utf-8") as fh:
                    fh.write('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
                             f"<title>{h['name']}</title><link>{self.url(h, 0)}</link>\n{items}"
                             "</channel></rss>\n")

    def configs(self):
        out = os.path.abspath(self.a.out)
        servers = [f"  server {{\n    listen {h['addr']}:{self.port};\n    server_name {h['name']};\n"
                   f"    root {out}/www/{h['name']};\n    charset utf-8;\n  }}\n" for h in self.hosts]
        write_nginx_conf(out, "national.py", "text/html html; text/plain txt; application/rss+xml xml;", servers)
        write(out, "hosts", "".join(f"{h['addr']} {h['name']}\n" for h in self.hosts))
        write_dnsmasq_conf(out, "national.py", self.dns_port, self.a.dns_addr)

    def save(self):
        out = self.a.out
        seeds = [self.url(h, 0) for h in self.lv_visible[:3]]
        seen, queue = set(seeds), list(seeds)
        while queue:
            u = queue.pop(0)
            for v in self.pages[u][1]:
                if v not in seen and v in self.pages:
                    seen.add(v)
                    queue.append(v)
        latvian = sorted(u for u in seen if self.pages[u][0] == "lv")
        os.makedirs(os.path.join(out, "truth"), exist_ok=True)
        write(out, "truth/seeds.txt", lines(seeds))
        write(out, "truth/latvian.txt", lines(latvian))
        write(out, "truth/pages.tsv", lines(
            f"{u}\t{p[0]}\t{self.sizes[u][0]}\t{self.sizes[u][1]}\t{' '.join(p[1])}"
            for u, p in sorted(self.pages.items())))
        hidden = {h["name"] for h in self.lv_hidden}
        info = {
            "port": self.port, "dns_port": self.dns_port, "dns_addr": self.a.dns_addr,
            "nameserver": f"{self.a.dns_addr}:{self.dns_port}",
            "addresses": sorted({h["addr"] for h in self.hosts}),
            "hosts": self.hosts, "seeds": seeds,
            "filter_lang": "lv", "filter_charset": "utf-8",
            "counts": {"pages": len(self.pages), "reachable": len(seen),
                       "latvian": len(latvian),
                       "latvian_hidden": sum(1 for u in latvian if u.split("/")[2].split(":")[0] in hidden),
                       "feeds": sum(1 for h in self.hosts if h["kind"] == "feed")},
        }
        write(out, "web.json", json.dumps(info, indent=1) + "\n")
        return info


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--hosts", type=int, default=300)
    p.add_argument("--per-addr", type=int, default=10, help="virtual hosts per address")
    p.add_argument("--large", type=int, default=6, help="large foreign hosts")
    p.add_argument("--large-pages", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--addr-base", default="127.0.1.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--dns-port", type=int, default=0)
    p.add_argument("--dns-addr", default="127.0.1.250")
    a = p.parse_args()
    if a.hosts < 50:
        p.error("at least 50 hosts, so that every kind of host is there")
    for d in ("www", "run", "logs"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    w = National(a)
    w.plan()
    w.write()
    w.configs()
    info = w.save()
    c = info["counts"]
    print(f"national web: {a.hosts} hosts, {len(info['addresses'])} addresses, port {w.port}, "
          f"DNS {a.dns_addr}:{w.dns_port}; {c['pages']} pages, {c['reachable']} reachable, "
          f"{c['latvian']} of them Latvian ({c['latvian_hidden']} on hidden hosts), {c['feeds']} feeds")


if __name__ == "__main__":
    main()
