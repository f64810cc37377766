# nlpcrawl: build, test, lint and install.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man
CARGO ?= cargo

BINS = nlpcd nlpc-scan nlpc-resolve nlpc-fetch nlpc-vrfy nlpc-up nlpc-list nlpc-dump
MAN1 = man/nlpc-scan.1 man/nlpc-resolve.1 man/nlpc-fetch.1 man/nlpc-vrfy.1 \
	man/nlpc-up.1 man/nlpc-list.1 man/nlpc-dump.1
MAN7 = man/nlpcrawl.7
MAN8 = man/nlpcd.8
MANS = $(MAN1) $(MAN7) $(MAN8)
UNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system
UNITS = nlpc-scan nlpc-resolve nlpc-fetch nlpc-vrfy nlpc-up nlpcd

.PHONY: all test lint bench fuzz install uninstall clean check-units demo

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

# Each cargo-fuzz target for FUZZ_SECONDS, one after another (nightly and
# cargo-fuzz needed). New inputs collect in target/fuzz-corpus; crashes land
# in fuzz/artifacts/TARGET, to be fixed and kept in tests/fuzz-regressions.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = url robots links charset text record http
fuzz:
	for t in $(FUZZ_TARGETS); do \
		mkdir -p target/fuzz-corpus/$$t && \
		$(CARGO) +nightly fuzz run --debug-assertions $$t \
			target/fuzz-corpus/$$t fuzz/corpus/$$t -- \
			-max_total_time=$(FUZZ_SECONDS) -timeout=10 || exit 1; \
	done

# A small crawl of a generated web on loopback (see scripts/demo).
demo: all
	scripts/demo

install: all
	install -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man7 $(MANDIR)/man8 $(UNITDIR)
	for b in $(BINS); do install -m 755 target/release/$$b $(BINDIR)/$$b; done
	install -m 644 $(MAN1) $(MANDIR)/man1/
	install -m 644 $(MAN7) $(MANDIR)/man7/
	install -m 644 $(MAN8) $(MANDIR)/man8/
	for u in $(UNITS); do \
		sed 's#@BINDIR@#$(PREFIX)/bin#' scripts/systemd/$$u.service.in > $(UNITDIR)/$$u.service; \
		chmod 644 $(UNITDIR)/$$u.service; done
	install -m 644 scripts/systemd/nlpcrawl.target $(UNITDIR)/

# The units, made for the binaries of this tree, checked by systemd itself.
check-units:
	$(CARGO) build --locked
	rm -rf target/units && mkdir -p target/units
	for u in $(UNITS); do \
		sed 's#@BINDIR@#$(CURDIR)/target/debug#' scripts/systemd/$$u.service.in > target/units/$$u.service; done
	cp scripts/systemd/nlpcrawl.target target/units/
	systemd-analyze verify --man=no target/units/*.service target/units/nlpcrawl.target

uninstall:
	for b in $(BINS); do rm -f $(BINDIR)/$$b; done
	for m in $(MAN1); do rm -f $(MANDIR)/man1/$${m#man/}; done
	for m in $(MAN7); do rm -f $(MANDIR)/man7/$${m#man/}; done
	for m in $(MAN8); do rm -f $(MANDIR)/man8/$${m#man/}; done
	for u in $(UNITS); do rm -f $(UNITDIR)/$$u.service; done
	rm -f $(UNITDIR)/nlpcrawl.target

clean:
	$(CARGO) clean
