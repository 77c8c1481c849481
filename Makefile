# CastScope: `make demo` and `make test` are the two commands of the README's quick start.
SWIFT ?= swift
BIN := .build/release/castscope
DEMO_CAPTURE := captures/multi-device.pcap
# Debian packages: libpcap-dev to build; tshark (the reference decoder), python3 and
# python3-jsonschema (Debian's python, /usr/bin/python3, checks the JSON contract) and
# chromium (renders the HTML report headless), and avahi-daemon, iproute2 and util-linux
# (setpriv, runuser), bsdutils (script: a terminal for the progress-line test) for the live-capture tests in network namespaces, time (/usr/bin/time: the hostile corpus bounds); python-zeroconf from
# PyPI for the live tests' responders and sender; duckdb and jsonschema from PyPI for the same
# python3 (Tests/rows: the rows loaded into DuckDB and checked against docs/rows.schema.json).
# zlib1g-dev, libzstd-dev and liblz4-dev: the decompressors of .gz, .zst and .lz4 captures;
# libssl-dev: the TLS handshake of `castscope probe`; libzip-dev: reading an .ipa (`check-app`).
BUILD_PACKAGES := libpcap-dev zlib1g-dev libzstd-dev liblz4-dev libssl-dev libzip-dev
# zsh and fish check that their completion scripts parse, man-db and groff-base render the man
# page (Tests/cli/completion.sh); zstd and lz4 (and gzip, always there) compress captures for
# the decompression tests and the capture variants of Tests/differential/variants.py; nftables
# (firewalled devices), openssl (the TLS listener's certificate) and tcpdump (a reference capture
# beside the probe's own) for Tests/probe/run.sh; prometheus (prometheus and promtool) for
# Tests/metrics/run.sh; tcpreplay (captures replayed into a veth) for Tests/soak/run.sh.
TEST_PACKAGES := $(BUILD_PACKAGES) tshark python3 python3-jsonschema chromium avahi-daemon iproute2 util-linux bsdutils time \
	zsh fish man-db groff-base zstd lz4 nftables openssl tcpdump prometheus tcpreplay

.PHONY: all build deps test-deps demo test unit lint cli html live probe compare metrics soak rows schema golden golden-update differential hostile realworld clean \
	static install deb man

all: build

deps:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

test-deps:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@python3 -c 'import zeroconf' 2>/dev/null || python3 -m pip install --quiet zeroconf
	@python3 -c 'import duckdb, jsonschema' 2>/dev/null || python3 -m pip install --quiet duckdb jsonschema

# Whole-program (LTO) release build: about 7% fewer instructions per packet on the dense
# benchmark than a plain `swift build -c release`, same output (docs/performance.md). The Swift
# runtime is linked in (--static-swift-stdlib): the binary runs without the toolchain, and it
# starts in about 7 ms of CPU instead of 17 (no dynamic linking of libswiftCore and Foundation).
RELEASE_FLAGS ?= --experimental-lto-mode=full --static-swift-stdlib
# Profile-guided: scripts/pgo-profile builds an instrumented copy, runs it over captures/ and
# prints the flags that hand its profile to this build (13% fewer instructions on the dense
# benchmark, docs/performance.md). PGO=0 builds without it (one build instead of two).
PGO ?= 1

build: deps
ifneq ($(PGO),0)
	@mkdir -p .build/pgo
	SWIFT=$(SWIFT) scripts/pgo-profile $(RELEASE_FLAGS) >.build/pgo/flags
	$(SWIFT) build -c release $(RELEASE_FLAGS) $$(cat .build/pgo/flags)
else
	$(SWIFT) build -c release $(RELEASE_FLAGS)
endif

demo: build
	$(BIN) analyze $(DEMO_CAPTURE)

unit: deps
	$(SWIFT) test

cli: build
	Tests/cli/run.sh
	Tests/cli/compressed.sh
	Tests/cli/plist-extract.sh
	Tests/cli/compare.sh
	Tests/checkapp/run.sh
	Tests/cli/completion.sh
	Tests/cli/install.sh

html: build
	Tests/html/check.sh

live: build
	Tests/live/run.sh

probe: build
	Tests/probe/run.sh

# Two-point captures with nft drop counters as ground truth (root).
compare: build
	Tests/compare/run.sh

# live --metrics in network namespaces: the HTTP server, the exposition (strictly and by
# promtool), ageing and findings over time, a real Prometheus, the alerting rules (root).
metrics: build
	Tests/metrics/run.sh

# Soak (root): live --metrics fed the bundled captures at 5000 pps and ever-new clients and
# devices for SOAK_SECONDS (600); memory flat, every scrape parsed, the counters add up
# (Tests/soak/README.md; the last result is in docs/metrics.md). make test runs 60 s of it.
soak: build
	Tests/soak/run.sh $(or $(SOAK_SECONDS),600)

# analyze --format rows: the schema, the JSON documents' values, loaded into DuckDB (docs/rows.md).
rows: build
	Tests/rows/run.sh

schema: build
	/usr/bin/python3 Tests/schema/validate.py --self-test
	/usr/bin/python3 Tests/schema/validate.py

golden: build
	Tests/golden/run.sh

golden-update: build
	Tests/golden/run.sh --update

# tshark_diff.py: every capture as it is; variants.py: the same captures rewritten in every
# format issue 14 reads (pcapng, both byte orders, if_tsresol/if_tsoffset, SPB/PB, sections,
# mixed link types, gzip/zstd/lz4), decoded as tshark decodes them and analysed alike.
differential: build
	python3 Tests/differential/tshark_diff.py
	python3 Tests/differential/tcp_diff.py
	python3 Tests/differential/variants.py --self-test
	python3 Tests/differential/variants.py

hostile: build
	Tests/hostile/run.sh

# Reviewed verdicts on every public real capture in ../shared/captures/external.
realworld: build
	Tests/realworld/run.sh

lint:
	$(SWIFT) format lint --strict -r Sources Tests Fuzz Package.swift

test: test-deps build lint
	$(SWIFT) test
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/asan/lsan.supp $(SWIFT) test --sanitize=address --scratch-path .build/asan
	Tests/cli/run.sh
	Tests/cli/compressed.sh
	Tests/cli/plist-extract.sh
	Tests/cli/compare.sh
	Tests/checkapp/run.sh
	Tests/cli/completion.sh
	Tests/cli/install.sh
	Tests/html/check.sh
	Tests/live/run.sh
	Tests/probe/run.sh
	Tests/compare/run.sh
	Tests/metrics/run.sh
	Tests/soak/run.sh 60
	Tests/rows/run.sh
	Tests/golden/run.sh
	Tests/hostile/run.sh
	Tests/realworld/run.sh
	/usr/bin/python3 Tests/schema/validate.py --self-test
	/usr/bin/python3 Tests/schema/validate.py
	python3 Tests/differential/tshark_diff.py
	python3 Tests/differential/tcp_diff.py
	python3 Tests/differential/variants.py --self-test
	python3 Tests/differential/variants.py
	scripts/fuzz smoke 30

clean:
	rm -rf .build

# The binary users install is the release build (`make build`, the one benchmarked and tested):
# the Swift runtime is linked in, so it runs without the toolchain and `ldd` shows only libc,
# libstdc++, libm, libgcc_s, libpcap, libz, libzstd, liblz4, libzip, libssl and libcrypto.
PREFIX ?= /usr/local
DESTDIR ?=
STATIC_BIN := $(BIN)

static: build

# bin/castscope, the man page and the bash, zsh and fish completions under $(DESTDIR)$(PREFIX).
install: static
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(STATIC_BIN) $(DESTDIR)$(PREFIX)/bin/castscope
	$(STATIC_BIN) help --man >$(DESTDIR)$(PREFIX)/share/man/man1/castscope.1
	$(STATIC_BIN) completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/castscope
	$(STATIC_BIN) completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_castscope
	$(STATIC_BIN) completion fish >$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/castscope.fish
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/castscope.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/castscope \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_castscope \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/castscope.fish

# A Debian package of the same files under /usr, in .build/deb/ (scripts/make-deb.sh).
deb: static
	scripts/make-deb.sh $(STATIC_BIN) .build/deb

# docs/castscope.1 from the specs (Tests/cli/completion.sh checks that it is current).
man: build
	$(BIN) help --man >docs/castscope.1

# The benchmark of issue 6 (docs/performance.md): release build, then scripts/bench.
# libFuzzer on the decoders and on whole capture files (issue 7): FUZZ_SECONDS each (600).
.PHONY: fuzz
fuzz:
	scripts/fuzz run decode $(or $(FUZZ_SECONDS),600)
	scripts/fuzz run capture $(or $(FUZZ_SECONDS),600)

.PHONY: bench
bench: build
	scripts/bench
