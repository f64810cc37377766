#!/usr/bin/env python3
"""Reads a WARC file back with warcio, a reader independent of nlpcrawl.

Prints one JSON object a line for every record: its type and WARC fields,
the HTTP status and headers, whether warcio verified its digests, the
SHA-1 (base32) and length of the payload as warcio hands it over, and with
--payloads the payload itself in base64. Digest failures are fatal
(check_digests='raise'). Exits 2 with a message when warcio is missing.
"""

import base64
import hashlib
import json
import sys

try:
    from warcio.archiveiterator import ArchiveIterator
except ImportError:
    sys.stderr.write(
        "warc_read.py: the Python module warcio is missing; "
        "install it with: python3 -m pip install warcio\n"
    )
    sys.exit(2)

FIELDS = {
    "id": "WARC-Record-ID",
    "date": "WARC-Date",
    "uri": "WARC-Target-URI",
    "ip": "WARC-IP-Address",
    "warcinfo_id": "WARC-Warcinfo-ID",
    "concurrent_to": "WARC-Concurrent-To",
    "payload_digest": "WARC-Payload-Digest",
    "block_digest": "WARC-Block-Digest",
    "profile": "WARC-Profile",
    "refers_to": "WARC-Refers-To",
    "refers_to_uri": "WARC-Refers-To-Target-URI",
    "refers_to_date": "WARC-Refers-To-Date",
    "content_type": "Content-Type",
    "filename": "WARC-Filename",
    "lang": "WARC-Identified-Content-Language",
    "lang_conf": "nlpcrawl-Language-Confidence",
    "charset": "nlpcrawl-Charset",
    "charset_source": "nlpcrawl-Charset-Source",
}


def main():
    path = sys.argv[1]
    payloads = "--payloads" in sys.argv[2:]
    with open(path, "rb") as f:
        it = ArchiveIterator(f, check_digests="raise")
        for rec in it:
            h = rec.rec_headers
            out = {"type": rec.rec_type, "version": h.protocol}
            for k, name in FIELDS.items():
                v = h.get_header(name)
                if v is not None:
                    out[k] = v
            if rec.http_headers is not None:
                out["status"] = rec.http_headers.get_statuscode()
                out["http"] = rec.http_headers.headers
            body = rec.content_stream().read()
            digest = hashlib.sha1(body).digest()
            out["sha1"] = "sha1:" + base64.b32encode(digest).decode()
            out["length"] = len(body)
            out["digests_verified"] = rec.digest_checker.passed
            if payloads:
                out["payload"] = base64.b64encode(body).decode()
            print(json.dumps(out))


if __name__ == "__main__":
    main()
