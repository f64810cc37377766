#!/usr/bin/env python3
"""Writes the pages of tests/pages.rs: small pages in the shape of news and
blog pages, each with the response headers it was served with (NAME.headers
beside NAME.html), and MANIFEST: file, URL, the charset nlpc-vrfy must
decide, how, and a phrase the decoded text must contain. Text written for
these tests."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))

LV = ("Rīgas dome šodien apstiprināja jauno satiksmes plānu: vairāk tramvaju, "
      "biežāki autobusi un ērtākas pieturas. Iedzīvotāji jau sen sūdzējās, ka "
      "vakaros jāgaida pusstunda. Pārmaiņas sāksies nākamajā pavasarī, un to "
      "īstenošanai valsts piešķirs papildu naudu.")
LV_QUOTES = ("Domes priekšsēdētājs teica: „Mēs ņemsim vērā katru iedzīvotāju "
             "ierosinājumu.” Žurnālisti jautāja par ceļu remontu Ķengaragā.")
LT = ("Vilniaus savivaldybė šiandien patvirtino naują eismo planą: daugiau "
      "troleibusų, dažnesni autobusai ir patogesnės stotelės. Gyventojai seniai "
      "skundėsi, kad vakarais tenka laukti pusvalandį. Pokyčiai prasidės "
      "kitą pavasarį, o jiems įgyvendinti valstybė skirs papildomų lėšų. "
      "Susisiekimo departamento vadovas pabrėžė, kad keleiviai turės laiko "
      "priprasti prie naujų maršrutų, o senosios stotelės bus atnaujintos.")
ET = ("Tallinna linnavalitsus kiitis täna heaks uue liikluskava: rohkem tramme, "
      "sagedasemad bussid ja mugavamad peatused. Elanikud on ammu kurtnud, et "
      "õhtuti tuleb oodata pool tundi.")
RU = ("Рижская дума сегодня утвердила новый план движения: больше трамваев, "
      "более частые автобусы и удобные остановки. Жители давно жаловались, что "
      "вечером приходится ждать полчаса.")
LV_ASCII = "Sodien Riga lis lietus, bet rit bus saulains laiks un silts."


def page(title, text, head="", body_end=""):
    return ("<!DOCTYPE html>\n<html><head><title>%s</title>%s</head>\n"
            "<body><nav><a href=/>Home</a> | <a href=/news>News</a></nav>\n"
            "<article><h1>%s</h1><p>%s</p></article>%s</body></html>\n"
            % (title, head, title, text, body_end))


# A head long enough to push a meta past the first 1024 bytes: analytics
# and styles, as templates put before the charset.
LONG_HEAD = ("<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}"
             + "gtag('js',new Date());" * 20 + "</script>\n<style>"
             + "body{margin:0;font-family:sans-serif}.nav a{padding:0 4px}" * 12 + "</style>\n")

CASES = [
    # (file, url, headers, body, charset, how, phrase)
    ("lv-news-utf8.html", "https://www.zinas.lv/raksts/1",
     "Content-Type: text/html", page("Ziņas", LV).encode("utf-8"),
     "UTF-8", "valid-utf-8", "biežāki autobusi"),
    ("lv-blog-utf8.html", "https://blogs.example.com/lv/2",
     "Content-Type: text/html", page("Blogs", LV_QUOTES).encode("utf-8"),
     "UTF-8", "valid-utf-8", "„Mēs ņemsim"),
    ("ru-news-utf8.html", "http://novosti.example.lv/3",
     "Content-Type: text/html", page("Новости", RU).encode("utf-8"),
     "UTF-8", "valid-utf-8", "частые автобусы"),
    ("lv-news-1257.html", "http://www.avize.lv/4",
     "Content-Type: text/html", page("Ziņas", LV + " " + LV_QUOTES).encode("cp1257"),
     "windows-1257", "detected", "Ķengaragā"),
    ("lv-news-latin7.html", "http://arhivs.avize.lv/5",
     "Content-Type: text/html", page("Arhīvs", LV + " " + LV_QUOTES).encode("iso8859_13"),
     "ISO-8859-13", "detected", "„Mēs ņemsim vērā"),
    ("lt-news-1257.html", "http://www.naujienos.lt/6",
     "Content-Type: text/html", page("Naujienos", LT).encode("cp1257"),
     "windows-1257", "detected", "patogesnės stotelės"),
    # Estonian's õ ä ö ü have the same bytes in windows-1257 and
    # windows-1252, so without š or ž no detector can tell them apart, and
    # either decodes the text right; chardetng says windows-1252.
    ("et-news-1257.html", "http://www.uudised.ee/7",
     "Content-Type: text/html", page("Uudised", ET).encode("cp1257"),
     "windows-1252", "detected", "õhtuti tuleb oodata"),
    ("ru-news-1251.html", "http://www.novosti.ru/8",
     "Content-Type: text/html", page("Новости", RU).encode("cp1251"),
     "windows-1251", "detected", "частые автобусы"),
    ("lv-ascii.html", "http://www.avize.lv/9",
     "Content-Type: text/html", page("Zinas", LV_ASCII).encode("ascii"),
     "windows-1257", "fallback", "saulains laiks"),
    # A meta charset past the first 1024 bytes: the parser's change of the
    # tentative encoding. On a .com host the bytes alone could read as
    # another charset; the meta decides.
    ("lv-late-meta.html", "http://www.example.com/10",
     "Content-Type: text/html",
     page("Ziņas", LV, head=LONG_HEAD + '<meta charset="iso-8859-13">').encode("iso8859_13"),
     "ISO-8859-13", "meta-late", "piešķirs papildu"),
    ("lv-late-http-equiv.html", "http://www.example.com/11",
     "Content-Type: text/html",
     page("Ziņas", LV, head=LONG_HEAD
          + '<meta http-equiv="Content-Type" content="text/html; charset=windows-1257">').encode("cp1257"),
     "windows-1257", "meta-late", "piešķirs papildu"),
    # A template's late meta that is wrong about a UTF-8 body: valid UTF-8
    # is not decoded as anything else.
    ("lv-late-meta-wrong.html", "http://www.zinas.lv/12",
     "Content-Type: text/html",
     page("Ziņas", LV, head=LONG_HEAD + '<meta charset="windows-1257">').encode("utf-8"),
     "UTF-8", "valid-utf-8", "piešķirs papildu"),
    # The byte order mark wins over a wrong header.
    ("lv-bom-wrong-header.html", "http://www.zinas.lv/13",
     "Content-Type: text/html; charset=windows-1257",
     b"\xef\xbb\xbf" + page("Ziņas", LV).encode("utf-8"),
     "UTF-8", "bom", "biežāki autobusi"),
    # The header wins over the document's meta.
    ("lv-header-over-meta.html", "http://www.avize.lv/14",
     "Content-Type: text/html; charset=windows-1257",
     page("Ziņas", LV, head='<meta charset="utf-8">').encode("cp1257"),
     "windows-1257", "header", "biežāki autobusi"),
    # A meta in the first 1024 bytes, and an http-equiv one.
    ("lv-meta.html", "http://www.example.com/15",
     "Content-Type: text/html",
     page("Ziņas", LV, head='<meta charset="iso-8859-13">').encode("iso8859_13"),
     "ISO-8859-13", "meta", "biežāki autobusi"),
    # Plain text without a charset, in windows-1257.
    ("lv-notes-1257.txt", "http://www.avize.lv/16.txt",
     "Content-Type: text/plain", (LV + "\n").encode("cp1257"),
     "windows-1257", "detected", "biežāki autobusi"),
    # UTF-8 that the server labels ISO-8859-1 (a server-wide default), and
    # UTF-8 saved again with its old meta: UTF-8, not as declared.
    ("lv-utf8-latin1-header.html", "https://www.zinas.lv/17",
     "Content-Type: text/html; charset=ISO-8859-1",
     page("Ziņas", LV).encode("utf-8"),
     "UTF-8", "misdeclared", "biežāki autobusi"),
    ("lv-utf8-old-meta.html", "http://www.avize.lv/18",
     "Content-Type: text/html",
     page("Ziņas", LV_QUOTES, head='<meta http-equiv="Content-Type" '
          'content="text/html; charset=windows-1257">').encode("utf-8"),
     "UTF-8", "misdeclared", "„Mēs ņemsim"),
]


def main():
    rows = []
    for (name, url, headers, body, charset, how, phrase) in CASES:
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(body)
        base = os.path.splitext(name)[0]
        with open(os.path.join(HERE, base + ".headers"), "w", encoding="ascii") as f:
            f.write("HTTP/1.1 200 OK\r\n" + headers + "\r\n")
        rows.append("\t".join((name, url, charset, how, phrase)))
    with open(os.path.join(HERE, "MANIFEST"), "w", encoding="utf-8") as f:
        f.write("# file\turl\tcharset\thow\tphrase. Made by make.py; headers in NAME.headers.\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
