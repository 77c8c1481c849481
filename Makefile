# CastScope: `make demo` and `make test` are the two commands of the README's quick start.
SWIFT ?= swift
BIN := .build/release/castscope
DEMO_CAPTURE := captures/multi-device.pcap
# Debian packages: libpcap-dev to build; tshark (the reference decoder), python3 and
# python3-jsonschema (Debian's python, /usr/bin/python3, checks the JSON contract) and
# chromium (renders the HTML report headless), and avahi-daemon, iproute2 and util-linux
# (setpriv, runuser), bsdutils (script: a terminal for the progress-line test) for the live-capture tests in network namespaces, time (/usr/bin/time: the hostile corpus bounds); python-zeroconf from
# PyPI for the live tests' responders and sender.
BUILD_PACKAGES := libpcap-dev
TEST_PACKAGES := libpcap-dev tshark python3 python3-jsonschema chromium avahi-daemon iproute2 util-linux bsdutils time

.PHONY: all build deps test-deps demo test unit lint cli html live schema golden golden-update differential hostile clean

all: build

deps:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

test-deps:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@python3 -c 'import zeroconf' 2>/dev/null || python3 -m pip install --quiet zeroconf

# Whole-program (LTO) release build: about 7% fewer instructions per packet on the dense
# benchmark than a plain `swift build -c release`, same output (docs/performance.md).
RELEASE_FLAGS ?= --experimental-lto-mode=full

build: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS)

demo: build
	$(BIN) analyze $(DEMO_CAPTURE)

unit: deps
	$(SWIFT) test

cli: build
	Tests/cli/run.sh
	Tests/cli/plist-extract.sh

html: build
	Tests/html/check.sh

live: build
	Tests/live/run.sh

schema: build
	/usr/bin/python3 Tests/schema/validate.py --self-test
	/usr/bin/python3 Tests/schema/validate.py

golden: build
	Tests/golden/run.sh

golden-update: build
	Tests/golden/run.sh --update

differential: build
	python3 Tests/differential/tshark_diff.py

hostile: build
	Tests/hostile/run.sh

lint:
	$(SWIFT) format lint --strict -r Sources Tests Fuzz Package.swift

test: test-deps build lint
	$(SWIFT) test
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/asan/lsan.supp $(SWIFT) test --sanitize=address --scratch-path .build/asan
	Tests/cli/run.sh
	Tests/cli/plist-extract.sh
	Tests/html/check.sh
	Tests/live/run.sh
	Tests/golden/run.sh
	Tests/hostile/run.sh
	/usr/bin/python3 Tests/schema/validate.py --self-test
	/usr/bin/python3 Tests/schema/validate.py
	python3 Tests/differential/tshark_diff.py
	scripts/fuzz smoke 30

clean:
	rm -rf .build

# The benchmark of issue 6 (docs/performance.md): release build, then scripts/bench.
# libFuzzer on the decoders and on whole capture files (issue 7): FUZZ_SECONDS each (600).
.PHONY: fuzz
fuzz:
	scripts/fuzz run decode $(or $(FUZZ_SECONDS),600)
	scripts/fuzz run capture $(or $(FUZZ_SECONDS),600)

.PHONY: bench
bench: build
	scripts/bench
