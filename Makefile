# fprint — build, test, demo, benchmark.
SWIFT ?= swift
PREFIX ?= /usr/local
DEMO_DB ?= $(CURDIR)/.demo/fprint-demo.sqlite
BIN = $(shell $(SWIFT) build --show-bin-path)/fprint

.PHONY: build test demo bench install clean

build:
	$(SWIFT) build

# The whole test suite (debug build, Swift Testing).
test:
	$(SWIFT) test

# A simulated walk of scenarioJ1NP1 into a demo database, then its listing.
demo: build
	@mkdir -p $(dir $(DEMO_DB))
	$(BIN) walk --scenario scenarioJ1NP1 --simulate --fast --db $(DEMO_DB)
	$(BIN) list --db $(DEMO_DB)

# Release-build benchmarks; figures are printed, not asserted.
bench:
	$(SWIFT) build -c release --product fprint-bench
	$(SWIFT) build -c release --product fprint
	$(shell $(SWIFT) build -c release --show-bin-path)/fprint-bench --fprint $(shell $(SWIFT) build -c release --show-bin-path)/fprint
	$(shell $(SWIFT) build -c release --show-bin-path)/fprint-bench --sync --fprint $(shell $(SWIFT) build -c release --show-bin-path)/fprint

install:
	$(SWIFT) build -c release --product fprint
	install -d $(PREFIX)/bin $(PREFIX)/share/fprint
	install -m 0755 $(shell $(SWIFT) build -c release --show-bin-path)/fprint $(PREFIX)/bin/fprint
	cp -R Config Scenarios $(PREFIX)/share/fprint/

clean:
	rm -rf .build .demo
