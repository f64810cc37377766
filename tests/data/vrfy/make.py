#!/usr/bin/env python3
"""Writes the nlpc-vrfy test corpus and its MANIFEST from texts.py.

Run from this directory: python3 make.py. The pages are committed; this
script says how they were made and remakes them after a change.

MANIFEST columns (tab-separated, "-" for empty):
  file  content-type  http-charset  charset  language
  strict-verdict  strict-reason  open-verdict  open-reason
"charset" is the WHATWG name nlpc-vrfy must record, "language" what it must
detect ("?" where the text is mangled and any guess will do). The strict
verdict is under the Latvian crawl options of tests/vrfy.rs
(--filter-charset "utf-8 windows-1257 iso-8859-4 iso-8859-13"
--filter-lang "lv lt" --filter-dict lv.dict), the open one under none.
"""

import html
import os

from texts import CHROME, TEXTS

HERE = os.path.dirname(os.path.abspath(__file__))

SCRIPT = """<script>
window.dataLayer = window.dataLayer || [];
function gtag() { dataLayer.push(arguments); }
if (window.innerWidth < 640 && document.cookie.indexOf("consent=1") < 0) {
  document.write("<div class='banner'>We use cookies to improve this site</div>");
}
</script>"""

STYLE = """<style>
body { font-family: Georgia, serif; margin: 0 auto; max-width: 48em; }
nav a { padding: 0 .5em; } .banner:after { content: "cookies"; }
</style>"""


def body_html(key, lang, title, text, menu=None):
    items, footer = CHROME[lang]
    menu = menu if menu is not None else items
    nav = " | ".join(f'<a href="/{i}/">{html.escape(m)}</a>' for i, m in enumerate(menu))
    paras = "\n".join(
        f"<p>{html.escape(p, quote=False).replace(' — ', ' &mdash; ')}</p>"
        for p in text.strip().split("\n\n")
    )
    return f"""<body>
<!-- header: {key} -->
<nav class="menu">{nav}</nav>
<main><article>
<h1>{html.escape(title)}</h1>
<p class="meta"><time datetime="2024-05-16">16.05.2024.</time></p>
{paras}
</article></main>
<footer><p>&copy; 2024 &ndash; {html.escape(footer)}</p>
<img src="/logo.png" alt="logo"><noscript><img src="/pixel.gif" alt=""></noscript></footer>
</body>
</html>
"""


def page(key, head_decl="", menu=None, extra_head=""):
    lang, title, text = TEXTS[key]
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
{head_decl}<title>{html.escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
{extra_head}{STYLE}
{SCRIPT}
</head>
{body_html(key, lang, title, text, menu)}"""


def xhtml(key, encoding):
    lang, title, text = TEXTS[key]
    return f"""<?xml version="1.0" encoding="{encoding}"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="{lang}">
<head><title>{html.escape(title)}</title><script type="text/javascript" src="/js/site.js"/>
{STYLE}
</head>
{body_html(key, lang, title, text)}"""


def feed(key):
    lang, title, text = TEXTS[key]
    items = "\n".join(
        f"<item><title>{html.escape(p.split('. ')[0])}</title>"
        f"<link>http://example.lv/raksts/{i}</link>"
        f"<description><![CDATA[{p}]]></description></item>"
        for i, p in enumerate(text.strip().split("\n\n"))
    )
    return f"""<rss version="2.0"><channel><title>{html.escape(title)}</title>
<link>http://example.lv/</link><language>{lang}</language>
{items}
</channel></rss>
"""


def plain(key):
    lang, title, text = TEXTS[key]
    return f"{title}\n{'=' * len(title)}\n\n{text.replace(' — ', ' - ')}"


def meta_charset(c):
    return f'<meta charset="{c}">\n'


def meta_http_equiv(c):
    return f'<meta http-equiv="Content-Type" content="text/html; charset={c}">\n'


def enc(s, codec):
    """Encodes like a web page would: characters the charset lacks become
    numeric character references."""
    return s.encode(codec, errors="xmlcharrefreplace")


EN_MENU = ["Home", "About us", "News", "Events", "Tickets and prices", "Opening hours",
           "Contact", "Privacy policy", "Cookie settings", "Accessibility", "Sitemap",
           "Search", "Log in", "Subscribe to our newsletter", "Follow us on Facebook",
           "Follow us on Instagram", "Careers", "Press", "Partners", "Terms of use"]

TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000010000000100806000000"
    "1ff3ff610000001974455874536f6674776172650041646f626520496d"
    "616765526561647971c9653c000000b24944415478da6364a031601c54"
    "00c0c4404f3054c3a80603052a00000e0b0010a7a07d0000000049454e"
    "44ae426082") * 8

# file, content type, HTTP charset, body, charset, language,
# strict verdict and reason, open verdict and reason.
V, R = "VERIFIED", "REJECTED"
CASES = [
    # Correct declarations of every kind.
    ("lv-daugava-utf8.html", "text/html", "", enc(page("lv-daugava", meta_charset("utf-8")), "utf-8"),
     "UTF-8", "lv", V, "", V, ""),
    ("lv-riga-win1257.html", "text/html", "", enc(page("lv-riga", meta_http_equiv("windows-1257")), "cp1257"),
     "windows-1257", "lv", V, "", V, ""),
    ("lv-mezi-latin4.html", "text/html", "iso-8859-4", enc(page("lv-mezi"), "iso8859_4"),
     "ISO-8859-4", "lv", V, "", V, ""),
    ("lv-riga-latin7.xhtml", "application/xhtml+xml", "", enc(xhtml("lv-riga", "ISO-8859-13"), "iso8859_13"),
     "ISO-8859-13", "lv", V, "", V, ""),
    ("lv-mezi-win1257.txt", "text/plain", "windows-1257", plain("lv-mezi").encode("cp1257"),
     "windows-1257", "lv", V, "", V, ""),
    ("lv-daugava-feed.xml", "application/rss+xml", "", feed("lv-daugava").encode("utf-8"),
     "UTF-8", "lv", V, "", V, ""),
    ("lv-riga-english-menu.html", "text/html", "utf-8", enc(page("lv-riga", menu=EN_MENU * 3), "utf-8"),
     "UTF-8", "lv", V, "", V, ""),
    ("lt-vilnius-win1257.html", "text/html", "", enc(page("lt-vilnius", meta_charset("windows-1257")), "cp1257"),
     "windows-1257", "lt", R, "dictionary", V, ""),
    ("lt-orai-latin13.html", "text/html", "", enc(page("lt-orai", meta_http_equiv("iso-8859-13")), "iso8859_13"),
     "ISO-8859-13", "lt", R, "dictionary", V, ""),
    ("lt-vilnius-utf8-bom.html", "text/html", "", b"\xef\xbb\xbf" + enc(page("lt-vilnius"), "utf-8"),
     "UTF-8", "lt", R, "dictionary", V, ""),
    ("et-tartu-latin4.html", "text/html", "", enc(page("et-tartu", meta_charset("iso-8859-4")), "iso8859_4"),
     "ISO-8859-4", "et", R, "language et", V, ""),
    ("et-maksud-win1257.html", "text/html", "windows-1257", enc(page("et-maksud"), "cp1257"),
     "windows-1257", "et", R, "language et", V, ""),
    ("ru-baikal-koi8r.html", "text/html", "", enc(page("ru-baikal", meta_http_equiv("koi8-r")), "koi8_r"),
     "KOI8-R", "ru", R, "charset KOI8-R", V, ""),
    ("ru-metro-win1251.html", "text/html", "windows-1251", enc(page("ru-metro", meta_charset("windows-1251")), "cp1251"),
     "windows-1251", "ru", R, "charset windows-1251", V, ""),
    ("ru-baikal-utf8.html", "text/html", "utf-8", enc(page("ru-baikal"), "utf-8"),
     "UTF-8", "ru", R, "language ru", V, ""),
    ("en-baltic-utf8.html", "text/html", "", enc(page("en-baltic", meta_charset("UTF-8")), "utf-8"),
     "UTF-8", "en", R, "language en", V, ""),
    ("de-bodensee-latin1.html", "text/html", "", enc(page("de-bodensee", meta_http_equiv("ISO-8859-1")), "cp1252"),
     "windows-1252", "de", R, "charset windows-1252", V, ""),
    ("de-solar-utf8.txt", "text/plain; charset=utf-8", "", plain("de-solar").encode("utf-8"),
     "UTF-8", "de", R, "language de", V, ""),
    # UTF-16 with a byte order mark, which wins over every declaration.
    ("lv-daugava-utf16le.html", "text/html", "iso-8859-1",
     enc(page("lv-daugava", meta_charset("utf-8")), "utf-16"),
     "UTF-16LE", "lv", R, "charset UTF-16LE", V, ""),
    ("ru-metro-utf16be.html", "text/html", "", b"\xfe\xff" + enc(page("ru-metro"), "utf-16-be"),
     "UTF-16BE", "ru", R, "charset UTF-16BE", V, ""),
    ("de-solar-utf16le.txt", "text/plain", "", b"\xff\xfe" + plain("de-solar").encode("utf-16-le"),
     "UTF-16LE", "de", R, "charset UTF-16LE", V, ""),
    # Missing declarations: chardetng's guess (the host is corpus.test, a
    # generic domain), or for ASCII the generic fallback, windows-1252.
    ("lv-riga-nodecl.html", "text/html", "", enc(page("lv-riga"), "cp1257"),
     "windows-1257", "lv", V, "", V, ""),
    ("et-tartu-nodecl.html", "text/html", "", enc(page("et-tartu"), "cp1252"),
     "windows-1252", "et", R, "charset windows-1252", V, ""),
    ("en-library-ascii.html", "", "", enc(page("en-library"), "ascii"),
     "windows-1252", "en", R, "charset windows-1252", V, ""),
    # Wrong declarations.
    ("lv-daugava-1257-as-utf8.html", "text/html", "", enc(page("lv-daugava", meta_charset("utf-8")), "cp1257"),
     "UTF-8", "?", R, "charset UTF-8 does not fit", R, "charset UTF-8 does not fit"),
    # UTF-8 the server labels windows-1257: valid UTF-8 is UTF-8 whatever
    # is declared (the charset source "misdeclared").
    ("lv-riga-utf8-as-1257.html", "text/html", "windows-1257", enc(page("lv-riga", meta_charset("utf-8")), "utf-8"),
     "UTF-8", "lv", V, "", V, ""),
    ("ru-baikal-koi8-as-1251.html", "text/html", "", enc(page("ru-baikal", meta_charset("windows-1251")), "koi8_r"),
     "windows-1251", "?", R, "charset windows-1251", V, ""),
    ("ru-metro-koi8-as-utf8.html", "text/html", "utf-8", enc(page("ru-metro"), "koi8_r"),
     "UTF-8", "?", R, "undecodable", R, "undecodable"),
    ("de-solar-1252-as-utf8.html", "text/html", "", enc(page("de-solar", meta_charset("utf-8")), "cp1252"),
     "UTF-8", "?", R, "charset UTF-8 does not fit", R, "charset UTF-8 does not fit"),
    # Robots, one sentence (judged by whatlang's confidence, not its
    # length), binary.
    ("lv-mezi-noindex.html", "text/html", "utf-8",
     enc(page("lv-mezi", extra_head='<meta name="robots" content="noindex, follow">\n'), "utf-8"),
     "UTF-8", "-", R, "noindex (meta robots)", R, "noindex (meta robots)"),
    ("lv-short.html", "text/html", "utf-8",
     "<html><head><title>Kontakti</title></head><body><p>Zvaniet mums darba dienās no deviņiem līdz pieciem.</p></body></html>".encode("utf-8"),
     "UTF-8", "lv", V, "", V, ""),
    ("image.html", "text/html", "", TINY_PNG,
     "windows-1252", "-", R, "undecodable (binary)", R, "undecodable (binary)"),
]


def main():
    rows = []
    for (name, ct, http, body, charset, lang, sv, sr, ov, orr) in CASES:
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(body)
        rows.append("\t".join(x or "-" for x in (name, ct, http, charset, lang, sv, sr, ov, orr)))
    with open(os.path.join(HERE, "MANIFEST"), "w", encoding="utf-8") as f:
        f.write("# file\tcontent-type\thttp-charset\tcharset\tlanguage\t"
                "strict-verdict\tstrict-reason\topen-verdict\topen-reason\n")
        f.write("# A reason is a prefix of the recorded one. Made by make.py.\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
