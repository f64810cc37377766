# nlpcrawl: build, test, lint and install.
PREFIX ?= /usr/local
DESTDIR ?=
# release (stripped, for installs and benchmarks) or debug (what the tests
# build; `make install PROFILE=debug` installs that, quickly, for tests).
PROFILE ?= release
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man
UNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system
# /etc/default/nlpcrawl under the prefix's etc: /usr/local/etc/default for
# PREFIX=/usr/local is not read by the units, so the file always goes to
# $(DESTDIR)/etc/default unless SYSCONFDIR says otherwise.
SYSCONFDIR ?= /etc
DEFAULTDIR = $(DESTDIR)$(SYSCONFDIR)/default
CARGO ?= cargo
# rustup's cargo, where scripts/install-deps puts it on a new machine.
export PATH := $(PATH):$(or $(CARGO_HOME),$(HOME)/.cargo)/bin
PYTHON ?= python3
VENV = $(CURDIR)/target/venv

BINS = nlpcd nlpc-scan nlpc-resolve nlpc-fetch nlpc-vrfy nlpc-up nlpc-list nlpc-dump \
	nlpc-stat nlpc-index nlpc-search nlpc-relay
MAN1 = man/nlpc-scan.1 man/nlpc-resolve.1 man/nlpc-fetch.1 man/nlpc-vrfy.1 \
	man/nlpc-up.1 man/nlpc-list.1 man/nlpc-dump.1 man/nlpc-stat.1 man/nlpc-search.1
MAN7 = man/nlpcrawl.7
MAN8 = man/nlpcd.8 man/nlpc-index.8 man/nlpc-relay.8
MANS = $(MAN1) $(MAN7) $(MAN8)
UNITS = nlpc-scan nlpc-resolve nlpc-fetch nlpc-vrfy nlpc-up nlpc-index nlpc-relay nlpcd

ifeq ($(PROFILE),release)
CARGO_PROFILE = --release
STRIP =
else
CARGO_PROFILE =
# The debug profile is not stripped by cargo: install strips it.
STRIP = -s
endif

.PHONY: all build test lint lint-figures lint-commits lint-sizes hooks bench fuzz install install-files install-user uninstall clean check-units demo venv deps-test deps-demo

all: build

build:
	$(CARGO) build $(CARGO_PROFILE) --locked

# warcio, the independent WARC reader of tests/dump.rs, in a virtual
# environment of this tree, not in the system's Python.
venv: $(VENV)/.warcio

$(VENV)/.warcio:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python3 -m pip install --quiet warcio
	touch $@

# What the tests need that this machine lacks (Debian packages: nginx,
# dnsmasq, nats-server, chromium, ...; see scripts/install-deps) is
# installed first; NLPCRAWL_NO_INSTALL=1 only names it.
test: deps-test
	$(MAKE) venv
	NLPCRAWL_PYTHON=$(VENV)/bin/python3 $(CARGO) test --locked

deps-test:
	scripts/install-deps test

lint: lint-figures lint-commits lint-sizes
	$(CARGO) fmt --check
	$(CARGO) clippy --locked --all-targets -- -D warnings
	mandoc -Tlint -W warning $(MANS)

# Every figure of README.md and doc/BENCHMARKS.md is in a results file
# under scripts/bench (scripts/lint-figures --self-test shows it can fail).
lint-figures:
	scripts/lint-figures --self-test
	scripts/lint-figures

# No file of logic under lib/ over 800 lines before its tests, but the
# generated files and data tables scripts/lint-sizes names.
lint-sizes:
	scripts/lint-sizes --self-test
	scripts/lint-sizes

# Commit subjects of at most 72 characters, a blank line before the body,
# for commits made after the marker named in scripts/lint-commits.
lint-commits:
	scripts/lint-commits --self-test
	scripts/lint-commits

# The same check on each commit as it is made: a commit-msg hook.
hooks:
	git config core.hooksPath scripts/hooks

bench:
	$(CARGO) bench --locked

# Each cargo-fuzz target for FUZZ_SECONDS, one after another, every one run
# even when one before it failed, the failures listed at the end (nightly and
# cargo-fuzz needed). New inputs collect in target/fuzz-corpus; crashes land
# in fuzz/artifacts/TARGET, to be fixed and kept in tests/fuzz-regressions.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = url robots links charset text record http markup query cluster
fuzz:
	failed=; for t in $(FUZZ_TARGETS); do \
		mkdir -p target/fuzz-corpus/$$t && \
		$(CARGO) +nightly fuzz run --debug-assertions $$t \
			target/fuzz-corpus/$$t fuzz/corpus/$$t -- \
			-max_total_time=$(FUZZ_SECONDS) -timeout=10 || \
			{ echo "make fuzz: target $$t failed (its crash is under fuzz/artifacts/$$t)" >&2; \
			  failed="$$failed $$t"; }; \
	done; \
	if [ -n "$$failed" ]; then echo "make fuzz: failed:$$failed" >&2; exit 1; fi

# A small crawl of a generated web on loopback (see scripts/demo), after
# installing what it needs that the machine lacks (nginx, dnsmasq, ...).
demo: deps-demo
	$(MAKE) build
	scripts/demo

deps-demo:
	scripts/install-deps demo

# Where install takes the binaries from: this tree's target/PROFILE.
BINSRC ?= target/$(PROFILE)

# Binaries (stripped: the release profile strips them), manuals, units and
# /etc/default/nlpcrawl (never overwritten: it holds the operator's options).
install: build install-files

# What install copies, without building (tests/install.rs uses this).
install-files:
	install -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man7 $(MANDIR)/man8 $(UNITDIR) $(DEFAULTDIR)
	for b in $(BINS); do install -m 755 $(STRIP) $(BINSRC)/$$b $(BINDIR)/$$b; done
	install -m 644 $(MAN1) $(MANDIR)/man1/
	install -m 644 $(MAN7) $(MANDIR)/man7/
	install -m 644 $(MAN8) $(MANDIR)/man8/
	for u in $(UNITS); do \
		sed 's#@BINDIR@#$(PREFIX)/bin#' scripts/systemd/$$u.service.in > $(UNITDIR)/$$u.service; \
		chmod 644 $(UNITDIR)/$$u.service; done
	install -m 644 scripts/systemd/nlpcrawl.target $(UNITDIR)/
	test -e $(DEFAULTDIR)/nlpcrawl || install -m 644 scripts/systemd/nlpcrawl.default $(DEFAULTDIR)/nlpcrawl

# The system user the units run as, and its group: members of the group may
# read the crawl (nlpc-list, nlpc-dump). Run as root, once.
install-user:
	getent group nlpcrawl >/dev/null || groupadd --system nlpcrawl
	getent passwd nlpcrawl >/dev/null || useradd --system --gid nlpcrawl \
		--home-dir /var/lib/nlpcrawl --no-create-home --shell /usr/sbin/nologin nlpcrawl

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
