# Pathwatch — the two commands of the README, and what they stand on.
#   make run    install what is missing (as root), build in release mode, run the agent on config.json
#   make test   the same set-up, then the whole test suite
#   make install / make deb   the installed layout of contract §9 (PREFIX, DESTDIR), or a .deb of it
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= config.json

# Debian packages the build and the tests need. Build: libcurl, json-c, c-ares (the dns plug-in
# links it), RE2 (the reachability plug-in links it: linear-time regular expressions for its
# conditions, through a C++ shim that the toolchain's clang++ builds against GCC's C++ library
# headers), pkg-config, a C compiler, libsnappy (the remote_write sink opens it; its tests use it),
# zlib's header (the otlp sink opens libz for gzip; the header gives its stream's layout).
# Tests: iproute2 (ip, tc: namespaces and veth pairs), util-linux (unshare, fallocate),
# coreutils (df), openssl (test certificates), curl (reference timings), python3 (test servers),
# iputils-ping (the reference the ping probe is compared with), dnsmasq-base and unbound (the
# resolvers the dns probe asks; dnsmasq-base is dnsmasq without the system service that the
# `dnsmasq` package starts on port 53; unbound's package starts its own service where services
# may start, which the tests do not use) and bind9-dnsutils (dig, the reference it is compared with),
# prometheus-alertmanager (the webhook's Alertmanager format against the real thing), prometheus
# (promtool checks the metrics exposition) and prometheus-node-exporter (reads the textfile
# output), chromium (the status page in a real headless browser), and from PyPI standardwebhooks
# (an independent check of the webhook signatures), aiosmtpd (a real SMTP server with STARTTLS and
# AUTH for the email format) and opentelemetry-proto (an independent reading
# of the OTLP requests). VictoriaMetrics 1.112, an OTLP receiver newer than Debian 12 has, comes
# from Debian 13's package, unpacked under .build/receivers by tools/trixie-receivers.sh (apt,
# this machine's own archive, suite trixie); Debian 13's Prometheus 2.53 has its OTLP receiver
# patched out, so it is not fetched.
# Install and package: patchelf (run paths into lib/pathwatch), dpkg-dev (dpkg-shlibdeps),
# binutils (readelf, strip). The package test: debootstrap (a Debian 12 root without the toolchain)
# and lintian (Debian's own checks of the .deb; docs/operating.md lists the warnings it leaves);
# the system test: systemd-container (systemd-nspawn boots that root with the package installed).
BUILD_PACKAGES := libcurl4-openssl-dev libcrypt-dev libjson-c-dev libc-ares-dev libre2-dev libstdc++-12-dev pkg-config gcc \
	libsnappy1v5 zlib1g-dev
DIST_PACKAGES := patchelf dpkg-dev binutils
TEST_PACKAGES := iproute2 util-linux coreutils openssl curl python3 python3-pip procps prometheus-alertmanager debootstrap \
	prometheus prometheus-node-exporter iputils-ping chromium dnsmasq-base unbound bind9-dnsutils systemd-container lintian \
	monitoring-plugins-basic monitoring-plugins-standard apache2-utils testssl.sh

# The one version: docs/changelog.md's newest release heading ("## 0.2.0 — date"), which the build
# also stamps into the agent (Sources/ReleaseVersionTool): documents, --version, the package.
VERSION := $(shell sed -n 's/^## \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\( .*\)\{0,1\}$$/\1/p' docs/changelog.md | head -n 1)
PREFIX ?= /usr/local
MANPAGE := .build/plugins/GenerateManual/outputs/PathwatchCLI/pathwatch.1
# install.sh reads these (and defaults the ones left unset: SYSCONFDIR /etc, LOCALSTATEDIR /var, …).
export DESTDIR PREFIX SYSCONFDIR LOCALSTATEDIR UNITDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR MANDIR

.PHONY: run test test-build format format-check deps dist-deps test-deps build release man install deb version example sdk clean bench

## Install missing Debian packages when root; otherwise print the exact command and stop.
define ensure_packages
	@missing=""; \
	for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		else \
			echo "missing packages:$$missing"; echo "run: sudo apt-get install -y$$missing"; exit 1; \
		fi; \
	fi
endef

deps:
	$(call ensure_packages,$(BUILD_PACKAGES))

dist-deps: deps
	$(call ensure_packages,$(DIST_PACKAGES))

test-deps: dist-deps
	$(call ensure_packages,$(TEST_PACKAGES))
	@python3 -c 'import standardwebhooks' 2>/dev/null || python3 -m pip install --quiet standardwebhooks 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages standardwebhooks
	@python3 -c 'import opentelemetry.proto' 2>/dev/null || python3 -m pip install --quiet opentelemetry-proto 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages opentelemetry-proto
	@python3 -c 'import aiosmtpd' 2>/dev/null || python3 -m pip install --quiet aiosmtpd 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages aiosmtpd
	@bash tools/trixie-receivers.sh

## Release builds: only supported compiler and linker settings, nothing to re-record by hand.
## -Osize: the executable's code is resident nearly whole on current kernels (page cache in large
## folios), so code nobody calls still costs memory. Whole-program LTO lets the linker drop what
## the program never reaches (most of swift-async-algorithms, which swift-service-lifecycle links
## for one channel, and the unused parts of SwiftNIO). Relative relocations are packed (DT_RELR,
## glibc 2.36 and later: Debian 12): a bitmap instead of thousands of 24-byte entries read at
## every start. Each plug-in exports only its entry point (Plugins/exports.map, Package.swift).
RELEASE_FLAGS := -c release -Xswiftc -Osize --experimental-lto-mode=full \
	-Xlinker -z -Xlinker pack-relative-relocs

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

build: deps
	$(SWIFT) build

run: release
	@sed -n 's|.*"type": "http", "listen": "\([^"]*\)".*|status page, /metrics, /status, /events: http://\1/|p' $(CONFIG)
	./.build/release/pathwatch run --config $(CONFIG)

## The man page, from the command definitions (swift-argument-parser's generate-manual plug-in).
## The plug-in builds every product first, by default in release with none of RELEASE_FLAGS, which
## would replace the release build that install, deb and the benchmarks use; so it builds debug
## (what the tests build anyway: `make test` builds them first, which leaves the plug-in only its
## own tool to build), and `man` still depends on the release build for install and deb. Dated by
## the last commit, so a rebuild yields the same page.
man: release
	$(SWIFT) package generate-manual --configuration debug --date $$(git log -1 --format=%cs 2>/dev/null || date -u +%F) >/dev/null

install: dist-deps man
	PRODUCTS=.build/release MANPAGE=$(MANPAGE) VERSION=$(VERSION) ./dist/install.sh

deb: dist-deps man
	@test -n "$(VERSION)" || { echo "docs/changelog.md has no release heading (## 0.2.0 — date): no version to package" >&2; exit 1; }
	@PRODUCTS=.build/release MANPAGE=$(MANPAGE) VERSION=$(VERSION) OUT=.build ./dist/make-deb.sh

## The release being built: docs/changelog.md's newest heading.
version:
	@echo $(VERSION)

## Style: the toolchain's `swift format` with the checked-in .swift-format (4 spaces, 120
## columns). `make format` applies it; `make test` fails first on any file it would change.
SWIFT_SOURCES := Package.swift Sources Plugins SDK Tests
format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_SOURCES)

format-check:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_SOURCES)

## The package and system tests (Tests/DistributionTests, Tests/SystemTests) package the release
## build and its man page. The plug-in SDK is a package of its own (SDK/), with its own tests.
## Make takes prerequisites in order: the tests' debug build comes before the man page, whose
## plug-in then finds every product built (about 12 s, against some 200 s when it went first).
test: test-deps format-check release test-build man sdk
	$(SWIFT) test --package-path SDK
	$(SWIFT) test --skip-build

test-build: deps
	$(SWIFT) build --build-tests

## The C example plug-in built the way an out-of-tree author builds one: the header and json-c only.
## (`swift build` also builds it, as the product pathwatch_loadavg.)
example: deps
	mkdir -p .build/example
	cc -shared -fPIC -O2 -Wall -Wextra -Werror -I SDK/Sources/CPathwatchProbe/include \
		$$(pkg-config --cflags json-c) Plugins/Examples/LoadAvg/loadavg.c $$(pkg-config --libs json-c) \
		-o .build/example/libpathwatch_loadavg.so
	@echo "built .build/example/libpathwatch_loadavg.so"

## A pathwatch-probe.pc for the repository's header, for a C plug-in built from a checkout:
## PKG_CONFIG_PATH=$PWD/.build/pkgconfig pkg-config --cflags pathwatch-probe (docs/plugins.md).
sdk:
	mkdir -p .build/pkgconfig
	sed -e "s|@VERSION@|$(VERSION)|g" -e "s|^includedir=.*|includedir=$(CURDIR)/SDK/Sources/CPathwatchProbe/include|" \
		-e "s|^plugindir=.*|plugindir=$(CURDIR)/.build/release|" -e "s|@PREFIX@|$(CURDIR)|g" \
		dist/pathwatch-probe.pc.in > .build/pkgconfig/pathwatch-probe.pc
	@echo "wrote .build/pkgconfig/pathwatch-probe.pc: PKG_CONFIG_PATH=$(CURDIR)/.build/pkgconfig pkg-config --cflags pathwatch-probe"

bench: release
	@for b in bench/*/run.sh; do echo "== $$b"; bash $$b; done

clean:
	rm -rf .build .pathwatch status.json
