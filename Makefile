# nlpcrawl: build, test, lint and install.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man
CARGO ?= cargo

BINS = nlpc-scan nlpc-resolve nlpc-fetch nlpc-up nlpc-list nlpc-dump
MAN1 = man/nlpc-scan.1 man/nlpc-resolve.1 man/nlpc-fetch.1 man/nlpc-up.1 \
	man/nlpc-list.1 man/nlpc-dump.1
MAN7 = man/nlpcrawl.7
MANS = $(MAN1) $(MAN7)

.PHONY: all test lint bench install uninstall clean

all:
	$(CARGO) build --release --locked

test:
	$(CARGO) test --locked

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --locked --all-targets -- -D warnings
	mandoc -Tlint -W warning $(MANS)

bench:
	$(CARGO) bench --locked

install: all
	install -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man7
	for b in $(BINS); do install -m 755 target/release/$$b $(BINDIR)/$$b; done
	install -m 644 $(MAN1) $(MANDIR)/man1/
	install -m 644 $(MAN7) $(MANDIR)/man7/

uninstall:
	for b in $(BINS); do rm -f $(BINDIR)/$$b; done
	for m in $(MAN1); do rm -f $(MANDIR)/man1/$${m#man/}; done
	for m in $(MAN7); do rm -f $(MANDIR)/man7/$${m#man/}; done

clean:
	$(CARGO) clean
