# fprint — build, test, demo, benchmark.
SWIFT ?= swift
PREFIX ?= /usr/local
DEMO_DB ?= $(CURDIR)/.demo/fprint-demo.sqlite
BIN = $(shell $(SWIFT) build --show-bin-path)/fprint
# Release builds link the Swift runtime and Foundation into the binary (no
# symbols to look up across fifteen Swift libraries), as a position-dependent
# executable that exports nothing (no 160,000 relocations to apply, no symbol
# table for every library's lookups to consult): `fprint` starts in ~9 ms of
# CPU instead of ~16, which was most of a no-op sync. libstdc++, which Swift's
# runtime needs, is linked in too (Support/static-libstdc++): ld.so's symbol
# lookups for its ~1,700 relocations took ~1.2 ms of every command's start.
# Every release build takes the same flags, so they share one build folder.
RELEASE = $(SWIFT) build -c release --static-swift-stdlib -Xlinker -no-pie -Xlinker --no-export-dynamic \
	-Xlinker -L$(CURDIR)/Support/static-libstdc++
RELEASE_BIN = $(shell $(RELEASE) --show-bin-path)

.PHONY: build release test test-serial demo bench install clean test-vm fuzz bench-ble test-browser screenshots

build:
	$(SWIFT) build

# The whole test suite (debug build, Swift Testing), tests side by side. Nothing
# in the code under test or in the tests blocks a thread of Swift's cooperative
# pool (two threads on a two-core machine): store work, libcurl, child processes
# and pipes wait on threads of their own (docs/ARCHITECTURE.md, "Threads").
# `make test-serial` runs one test at a time, to tell a race from a failure.
# Swift Testing only: XCTest would add "Executed 0 tests" lines. A test whose
# real component is not installed is listed as skipped, with the reason.
# Tests/swift-test.sh keeps the whole output in .build/test-output.txt and, on
# a failure, repeats the failed tests and a crashed thread's frames at the end.
# Then Tests/cli-tour.sh runs every command example of README.md and docs/*.md on a fresh database, and
# Tests/probe/netns.sh runs `fprint probe` against a gateway in another network
# namespace over veth (root; over loopback, said loudly, without it).
test:
	bash Tests/swift-test.sh
	bash Tests/cli-tour.sh $(BIN)
	bash Tests/probe/netns.sh $(BIN)

test-serial:
	bash Tests/swift-test.sh --no-parallel

# A simulated walk of scenarioJ1NP1 into a demo database, then its listing.
demo: build
	@mkdir -p $(dir $(DEMO_DB))
	$(BIN) walk --scenario scenarioJ1NP1 --simulate --fast --db $(DEMO_DB)
	$(BIN) list --db $(DEMO_DB)

# Release-build benchmarks. Every timed row (issue 63) is a ratio to a
# reference run beside it, alternated in the same invocation (tshark,
# CouchDB's _bulk_docs, curl's same requests, `fprint --version`, eval's own
# evaluating time, one process per method, 20 collectors into CouchDB): `row …: ratio (goal) — both
# figures (load) PASS|MISS`. Memory rows keep absolute goals. A goal missed
# while the load is below 1 fails the bench; on a busier machine it is
# reported and not failed (Sources/fprint-bench/Goals.swift).
bench: bench-ble
	$(RELEASE) --product fprint-bench
	$(RELEASE) --product fprint
	$(RELEASE_BIN)/fprint-bench --fprint $(RELEASE_BIN)/fprint --peers-dir $(CURDIR)/../shared/peers
	$(RELEASE_BIN)/fprint-bench --sync --fprint $(RELEASE_BIN)/fprint
	$(RELEASE_BIN)/fprint-bench --replay --fprint $(RELEASE_BIN)/fprint
	$(RELEASE_BIN)/fprint-bench --track-only --fprint $(RELEASE_BIN)/fprint
	$(RELEASE_BIN)/fprint-bench --datasets --datasets-dir $(CURDIR)/../shared/datasets --fprint $(RELEASE_BIN)/fprint
	# Last: 20 clients and CouchDB, then the floods, leave the machine busy for a minute after them.
	$(RELEASE_BIN)/fprint-bench --collectors --fprint $(RELEASE_BIN)/fprint --peers-dir $(CURDIR)/../shared/peers
	$(RELEASE_BIN)/fprint-bench --abuse --fprint $(RELEASE_BIN)/fprint

# The gateway as an attacker meets it: peak memory under a flood of unfinished
# heads, of the largest authenticated requests and of one revision asked for
# 200 times a request, guesses a second, and the real user's logins
# meanwhile (also part of `make bench`).
.PHONY: bench-abuse
bench-abuse:
	$(RELEASE) --product fprint-bench
	$(RELEASE) --product fprint
	$(RELEASE_BIN)/fprint-bench --abuse --fprint $(RELEASE_BIN)/fprint

# The binary `make install` installs.
release:
	$(RELEASE) --product fprint

# The binary, the shipped Config/ and Scenarios/ (found by the binary in
# PREFIX/share/fprint) and shell completions where bash, zsh and fish look.
install: release
	install -d $(PREFIX)/bin $(PREFIX)/share/fprint $(PREFIX)/share/bash-completion/completions \
		$(PREFIX)/share/zsh/site-functions $(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(RELEASE_BIN)/fprint $(PREFIX)/bin/fprint
	cp -R Config Scenarios $(PREFIX)/share/fprint/
	$(PREFIX)/bin/fprint --generate-completion-script bash > $(PREFIX)/share/bash-completion/completions/fprint
	$(PREFIX)/bin/fprint --generate-completion-script zsh > $(PREFIX)/share/zsh/site-functions/_fprint
	$(PREFIX)/bin/fprint --generate-completion-script fish > $(PREFIX)/share/fish/vendor_completions.d/fprint.fish

clean:
	rm -rf .build .demo

# What `make install` gives a user, end to end, in a temporary prefix: the
# release binary records, exports, serves and syncs (the tests run the debug
# build). The release build takes ~10 minutes the first time.
.PHONY: test-install
test-install:
	bash Tests/install-smoke.sh

# The Debian package, fprint_VERSION_amd64.deb, from the release build
# (packaging/build-deb.sh: binary, Config, completions, man pages, docs,
# copyright, the gateway's systemd unit, debconf's question; docs/install.md),
# then lintian: an error, or a warning not overridden with its reason in
# packaging/lintian-overrides, fails the target.
.PHONY: deb test-deb
deb: release
	bash packaging/build-deb.sh $(RELEASE_BIN)/fprint $(CURDIR)
	lintian --fail-on error,warning --info $(CURDIR)/fprint_$$($(RELEASE_BIN)/fprint --version)_amd64.deb

# The package installed with apt into a clean Debian bookworm root
# (debootstrap, cached in .build/deb-cache): version, man page, bash
# completion, `systemd-analyze verify` of the unit; then that root booted with
# systemd (systemd-nspawn -b): the gateway service started, serving, reloaded,
# restarted with its data, its exposure level, the fprint group's
# capabilities, an upgrade and `remove` keeping every data file byte for
# byte, and purge deleting exactly what it names (Tests/deb/install-test.sh,
# Tests/deb/in-container.sh). Root only; not in CI (docs/install.md gives its time).
test-deb: deb
	bash Tests/deb/install-test.sh $(CURDIR)/fprint_$$($(RELEASE_BIN)/fprint --version)_amd64.deb

# The real-kernel BLE test: qemu VM with btvirt controllers (DESIGN.md §6), ~2–3 min (software emulation).
# Needs linux-image-amd64 qemu-system-x86 bluez bluez-test-tools busybox-static (apt) and virtme-ng (pip).
test-vm:
	bash Tests/vm/run.sh

# libFuzzer (with ASan) over every parser of outside input: fprint-libfuzz's
# targets, each for FUZZ_SECONDS, seeded from Tests/fuzz/corpus (Tests/fuzz/run.sh;
# docs/development.md, "Fuzzing"). FUZZ_TARGETS="json csv" runs only those.
FUZZ_SECONDS ?= 30
# 0: leave out the gateway's and beacon sheets' targets (a build a third as long).
FUZZ_GATEWAY ?= 1
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_GATEWAY=$(FUZZ_GATEWAY) SWIFT=$(SWIFT) bash Tests/fuzz/run.sh $(FUZZ_TARGETS)

# BLE figures: parse and end-to-end reports/s (release build).
bench-ble:
	$(RELEASE) --product fprint-ble-bench
	$(RELEASE_BIN)/fprint-ble-bench Tests/FPHCITests/Fixtures/captures/*.btsnoop
# Real Wi-Fi in a qemu VM (mac80211_hwsim + hostapd; DESIGN.md §6), then `probe --every` over an association. Needs
# linux-image-amd64 qemu-system-x86 hostapd iw busybox-static (apt) and virtme-ng (pip); ~2 min.
.PHONY: test-vm-wifi
test-vm-wifi: build
	bash Tests/vm/wifi/run.sh

# Only eval's leave-one-out benchmark (2,000 fingerprints × 300 transmitters; target < 2 s).
.PHONY: bench-eval
bench-eval:
	$(RELEASE) --product fprint-bench
	$(RELEASE_BIN)/fprint-bench --eval-only

# The tracking figures of docs/positioning.md (issue 59): 30 random seeds per
# map and method (printed; SEEDS=a,b,c repeats a run), the floor changes and
# off-route walks; the table goes to .build/bench-tracking.md. Fails when fewer than
# 90 % of WKNN's or fused's runs have 55–80 % of fixes within the stated accuracy.
.PHONY: bench-tracking
bench-tracking:
	$(RELEASE) --product fprint-bench
	$(RELEASE) --product fprint
	$(RELEASE_BIN)/fprint-bench --tracking-figures --fprint $(RELEASE_BIN)/fprint --out .build/bench-tracking.md $(if $(SEEDS),--seeds $(SEEDS))

# Only the public UJI long-term dataset: `fprint import` of its 15 months and `fprint eval` of the paper's protocol.
.PHONY: bench-datasets
bench-datasets:
	$(RELEASE) --product fprint-bench
	$(RELEASE) --product fprint
	$(RELEASE_BIN)/fprint-bench --datasets --datasets-dir $(CURDIR)/../shared/datasets --fprint $(RELEASE_BIN)/fprint

# Power cuts (issue 61): fprint's store, config and gateway files on ext4 over dm-log-writes in a
# qemu VM, the write log replayed to EVERY crash state after each workload and each state checked
# (Tests/vm/powercut; CI runs a sample: `bash Tests/vm/powercut/run.sh 40`). Slow under software
# emulation (docs/development.md, "Power cuts"); FPRINT_POWERCUT_SEED=N repeats a run's random subsets.
.PHONY: test-powercut
test-powercut: build
	FPRINT_POWERCUT_TIMEOUT=$${FPRINT_POWERCUT_TIMEOUT:-14400} bash Tests/vm/powercut/run.sh 0

# Network-quality probes over netem-shaped veth links in a qemu VM (Debian's kernel has
# sch_netem, the host's has not; DESIGN.md §6), with iperf3 and ping beside fprint's figures.
# Needs linux-image-amd64 qemu-system-x86 busybox-static iperf3 iputils-ping (apt) and virtme-ng (pip); ~3 min.
.PHONY: test-vm-probe
test-vm-probe: build
	bash Tests/vm/probe/run.sh

# The pictures of docs/network-quality.md's worked monitoring example, from a
# VM run's real probes (the monitoring stage, and a tour of desks added).
.PHONY: screenshots-probe
screenshots-probe: build
	bash Tests/vm/probe/run.sh --pictures docs/img

# The dashboard in headless Chromium (Debian's chromium and chromium-driver,
# selenium from PyPI): login, a map's points and heatmap, a live point, no
# console errors, no admin page for a viewer; every figure of the map page agreeing
# after a live sync, plot text of 10 px or more, a wrapped token, My uploads in pages
# and `fprint dashboard` without Admin (dashboard_figures_test.py); then another site's pages
# against a logged-in admin (cross_site_test.py). Screenshots go to
# $(ARTIFACTS)/browser/. Then the Survey page of `fprint dashboard` (survey_test.py): clicks
# measure, a refused click, typed coordinates, a walk, CSRF, a second tab; and on a
# two-floor plan (survey_floors_test.py), each map's page draws its own points only.
# Then bytes users chose (user_bytes_test.py): an SVG floor plan naming an
# uploaded script, and script attachments, opened by an admin run nothing.
# Then a map's Network page (network_test.py): runs shaped like a real `fprint probe --every`
# run against the gateway's --probe-port, over four days: heatmap with its unit, bars per day
# with a known median, a day opened into its hours, the alert rule's limit and alert, the table.
# Skips loudly without them, fails under FPRINT_REQUIRE_REAL=1.
ARTIFACTS ?= $(CURDIR)/.build/artifacts
test-browser: build
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/dashboard_test.py $(BIN)
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/dashboard_figures_test.py $(BIN)
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/cross_site_test.py $(BIN)
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/survey_test.py $(BIN)
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/survey_floors_test.py $(BIN)
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/user_bytes_test.py $(BIN)
	ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/network_test.py $(BIN)

# The docs' pictures: the dashboard's map page, and every kind of plot as PNG (Tests/screenshots-plots.sh).
screenshots: build
	FPRINT_REQUIRE_REAL=1 SCREENSHOTS=$(CURDIR)/docs/img ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/dashboard_test.py $(BIN)
	FPRINT_REQUIRE_REAL=1 SCREENSHOTS=$(CURDIR)/docs/img ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/dashboard_figures_test.py $(BIN)
	FPRINT_REQUIRE_REAL=1 SCREENSHOTS=$(CURDIR)/docs/img ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/survey_test.py $(BIN)
	FPRINT_REQUIRE_REAL=1 SCREENSHOTS=$(CURDIR)/docs/img ARTIFACTS=$(ARTIFACTS) python3 Tests/browser/network_test.py $(BIN)
	bash Tests/screenshots-plots.sh $(BIN) $(CURDIR)/docs/img
