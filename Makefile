# tickframe: the README's two commands are `make run` and `make test`.
# Both install what a fresh Debian or Ubuntu machine lacks (.ci/deps.sh:
# make run only what building and running needs, make test the rest too)
# and provide a display (.ci/with-display starts Xvfb when there is none).

GO       ?= go
ARGS     ?=
FUZZTIME ?= 60s
BENCH    ?= .
WITH_DISPLAY := .ci/with-display

.PHONY: all deps deps-run build run test test-windows bench bench-instruments agree verify stress soak fuzz clean

all: build

deps:
	@.ci/deps.sh test

deps-run:
	@.ci/deps.sh run

build: deps-run
	$(GO) build -o bin/tickframe ./cmd/tickframe

# With a display, the demo runs until you close it. Without one it runs for
# five seconds under Xvfb and leaves a screenshot and a timing report. Xvfb
# means llvmpipe, where every pixel is the CPU's: a 960x540 window on a
# 60 Hz display (Xvfb's vblanks and the emulated rate alike), where the
# demo's software scene (256 bodies) takes about 12 ms of CPU a frame,
# keeps up on two cores; 1280x720 took 19 ms, 144 Hz would need more
# than two cores. ARGS='-refresh 144 -width 1280 -height 720 -bodies 4096'
# asks for the full scene.
run: build
	@if [ -n "$$DISPLAY" ] && xdpyinfo >/dev/null 2>&1; then \
		bin/tickframe $(ARGS); \
	else \
		echo "make run: no display: running 5 s under Xvfb (set DISPLAY to see the window)"; \
		XVFB_FPS=60 $(WITH_DISPLAY) bin/tickframe -duration 5s -refresh 60 -width 960 -height 540 \
			-screenshot tickframe.png -report tickframe-report.json $(ARGS) && \
		echo "make run: last frame in tickframe.png, timing report in tickframe-report.json"; \
	fi

# -p 1: one test binary at a time. Several tests run the real app and
# measure its timing under a load of its own (-stress); another package's
# race-enabled tests on the same two cores would be a second, unmeasured load.
# The virtual day's soak (no display, no real time: 45 s of one core) and
# the vets for Windows (mingw's cgo) and macOS run beside the runtime's
# pass at nice 19, on the CPU its live runs leave idle (they use about 0.8
# of the two cores): a nice-0 task that wakes takes the core back from them
# at once. With a cold build cache the Windows vet compiles GLFW's C for
# Windows (200 s of the 15 minutes in front of everything); with a warm one
# the vets take seconds. The lab's pass, whose timing runs measure alone,
# starts after all of them.
# What an app runs is tested with -race; the lab's packages (.ci/packages.sh:
# the observer, the tickframe command's body, the glTF loader, the commands:
# long deterministic analyses and live runs of a binary built without -race)
# without it, which it would slow five to ten times.
test: deps
	.ci/gltf-validator.sh >/dev/null
	$(GO) mod tidy -diff || { echo "make test: go.mod or go.sum is not tidy: run go mod tidy" >&2; exit 1; }
	@bad=$$(gofmt -l $$(git ls-files '*.go')); [ -z "$$bad" ] || { echo "make test: not gofmt'ed (run gofmt -w): $$bad" >&2; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags wayland ./...
	@echo "the runtime's packages with -race, and beside them at the lowest priority the vets for Windows and macOS, the virtual day's soak and present counts"
	@bg=$$(mktemp -d); \
	{ set -x; GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc nice -n 19 $(GO) vet ./... && \
	  GOOS=darwin CGO_ENABLED=0 nice -n 19 $(GO) vet $$(.ci/darwin/packages.sh); } >$$bg/vet 2>&1 & vet=$$!; \
	{ nice -n 19 $(GO) test -count=1 -run '^TestSoakVirtualDay$$' ./platform/internal/loop && \
	  nice -n 19 $(GO) test -count=1 -run '^TestSoakPresentCounts$$' ./platform/internal/instrument; } >$$bg/soak 2>&1 & soak=$$!; \
	status=0; \
	$(WITH_DISPLAY) $(GO) test -race -shuffle=on -p 1 -timeout 25m $$(.ci/packages.sh runtime) || status=1; \
	wait $$vet || { status=1; echo "make test: the Windows or macOS vet failed" >&2; }; echo "the vets for Windows and macOS:"; cat $$bg/vet; \
	wait $$soak || status=1; echo "the virtual day's soak:"; cat $$bg/soak; rm -rf $$bg; exit $$status
	$(WITH_DISPLAY) $(GO) test -shuffle=on -p 1 -timeout 25m -skip '^TestDisplayMatrix$$' $$(.ci/packages.sh lab)
	$(WITH_DISPLAY) $(GO) test -race -tags wayland -run 'Wayland' ./platform/app
	$(GO) test -race -cpu 1,2,4 -run 'Concurrent' ./sync/...
	.ci/windows/test.sh core

# The whole suite cross-built for Windows and run under Wine, then the demo
# (docs/platforms.md): a few minutes more than make test's part of it.
test-windows: deps
	.ci/windows/test.sh

bench: deps
	$(WITH_DISPLAY) $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem ./...

# What each instrument costs a whole frame, unpaced at 320x240 with 64
# bodies, as ratios of the bare frame, and glxgears at the same size for
# scale (platform/app BenchmarkInstruments). Measure alone.
bench-instruments: deps
	$(WITH_DISPLAY) $(GO) test -run '^$$' -bench '^BenchmarkInstruments$$' -benchtime 1x -v ./platform/app

# The app against the observer, a measurement like a benchmark and not a
# gate of make test: the display matrix (Xvfb's fake CRTC at 60, 144, 240
# and 360 Hz × -refresh 0, 60, 144, 360, quiet; 144/144 and 60/144 under
# -stress and busy processes; the broken present path) watched from
# outside the app by tickframe observe, and the live runs beyond make
# test's one per present path (the observer's loads on Xvfb, Weston's and
# Mutter's). Writes agree/agree.md and agree/agree.json (the machine and
# the date with them). Measure alone.
agree: deps
	$(WITH_DISPLAY) env TICKFRAME_AGREE=$(CURDIR)/agree $(GO) test -count=1 -run '^(TestDisplayMatrix|TestObserverAgreesWithTheApp|TestUnderWeston|TestUnderMutter)$$' -timeout 50m -v ./platform/internal/tickframe
	@echo "make agree: the table is in agree/agree.md and agree/agree.json"

verify: build
	bin/tickframe verify

# The stress benchmark: the demo headless under each kind of CPU load, one
# table (tickframe stress -h). ARGS go to it, e.g. ARGS='-json stress.json'.
stress: deps build
	$(WITH_DISPLAY) bin/tickframe stress $(ARGS)

# The real soak: the demo for SOAK_DURATION (30m) at 320x240 under an Xvfb
# at 144 Hz, watched by tickframe observe; RSS, GC, allocations, the worst
# frame and the vblanks without a new frame, by the app and the observer
# (.ci/soak.sh). make test runs the virtual one: TestSoakVirtualDay, a day
# of virtual time (the -race pass runs half an hour of it).
SOAK_DURATION ?= 30m
soak: deps build
	SOAK_DURATION=$(SOAK_DURATION) .ci/soak.sh

# Runs every fuzz target for FUZZTIME each.
fuzz: deps
	$(GO) test -run '^$$' -fuzz '^FuzzModel$$' -fuzztime $(FUZZTIME) ./sync/waitfree
	$(GO) test -run '^$$' -fuzz '^FuzzAlpha$$' -fuzztime $(FUZZTIME) ./platform/internal/interp
	$(GO) test -run '^$$' -fuzz '^FuzzAlphaSeconds$$' -fuzztime $(FUZZTIME) ./platform/internal/interp
	$(GO) test -run '^$$' -fuzz '^FuzzSlerp$$' -fuzztime $(FUZZTIME) ./renderer
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME) ./platform/internal/record
	$(GO) test -run '^$$' -fuzz '^FuzzChecksummed$$' -fuzztime $(FUZZTIME) ./platform/internal/record
	$(GO) test -run '^$$' -fuzz '^FuzzTiming$$' -fuzztime $(FUZZTIME) ./platform/internal/sim
	$(GO) test -run '^$$' -fuzz '^FuzzFlags$$' -fuzztime $(FUZZTIME) ./platform/internal/tickframe
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./renderer/gltf
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeValidated$$' -fuzztime $(FUZZTIME) ./renderer/gltf

clean:
	rm -rf bin tickframe.png tickframe-report.json soak agree
