# nsysjax: GNU make.  `make` builds bin/ (tools) from cmd/ and lib/;
# `make check` runs every test suite with the normal build and again with
# AddressSanitizer + UBSan; `make bench` measures speed and memory.

include config.mk

# The version every tool prints for --version (lib/base/opt.c).
VERSION = 0.4.0
# The tables of `nsys export --type=sqlite` that nsysjax reads
# (those lib/profile/nsysdb.c probes), for nsysjax-profile and for
# nsysjax-extract's .nsys-rep inputs (lib/profile/nsysrep.c).
EXPORT_TABLES = NVTX_EVENTS,StringIds,ThreadNames,CUPTI_ACTIVITY_KIND_RUNTIME,CUPTI_ACTIVITY_KIND_KERNEL,CUPTI_ACTIVITY_KIND_MEMCPY,CUPTI_ACTIVITY_KIND_MEMSET,CUPTI_ACTIVITY_KIND_GRAPH_TRACE,CUDA_GRAPH_NODE_EVENTS,CUDA_GRAPH_EVENTS,TARGET_INFO_GPU,TARGET_INFO_NVTX_CUDA_DEVICE,TARGET_INFO_SYSTEM_ENV,TARGET_INFO_SESSION_START_TIME,ANALYSIS_DETAILS,META_DATA_EXPORT,EXPORT_META_DATA,ENUM_NSYS_EVENT_TYPE,ENUM_NSYS_EVENT_CLASS,PROCESSES

O       ?= build
SRC_LIB := $(wildcard lib/*/*.c)
HDR_LIB := $(wildcard lib/*/*.h)
SRC_CMD := $(wildcard cmd/*.c)
PROTOS  := $(wildcard protos/*.proto)
PB_C    := $(patsubst protos/%.proto,$(O)/pb/%.pb-c.c,$(PROTOS))
OBJ_LIB := $(patsubst lib/%.c,$(O)/lib/%.o,$(SRC_LIB)) $(PB_C:.c=.o)
SH_CMD  := $(wildcard cmd/*.sh)
BIN     := $(patsubst cmd/%.c,$(O)/bin/%,$(SRC_CMD)) \
	   $(patsubst cmd/%.sh,$(O)/bin/%,$(SH_CMD))
UNIT    := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/*.c))
FUZZ    := $(patsubst tests/fuzz/%.c,%,$(filter-out tests/fuzz/replay.c,$(wildcard tests/fuzz/*.c)))
LIBA    := $(O)/libnsysjax.a
ALL_CPPFLAGS = -Ilib -I$(O)/pb $(NSJ_CPPFLAGS) $(CPPFLAGS)
ALL_CFLAGS   = $(STDCFLAGS) $(CFLAGS)
ALL_LDLIBS   = $(NSJ_LDLIBS) $(LDLIBS)

all: $(BIN)

$(O)/pb/%.pb-c.c $(O)/pb/%.pb-c.h: protos/%.proto
	@mkdir -p $(O)/pb
	$(PROTOC_C) --proto_path=protos --c_out=$(O)/pb $<

$(O)/pb/%.pb-c.o: $(O)/pb/%.pb-c.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Wno-unused-parameter -c -o $@ $<

$(O)/lib/base/opt.o: ALL_CPPFLAGS += -DNSYSJAX_VERSION='"$(VERSION)"'
$(O)/lib/profile/nsysrep.o: ALL_CPPFLAGS += -DNSYSJAX_EXPORT_TABLES='"$(EXPORT_TABLES)"'

$(O)/lib/%.o: lib/%.c $(HDR_LIB) $(PB_C)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIBA): $(OBJ_LIB)
	rm -f $@
	$(AR) rc $@ $(OBJ_LIB)
	$(RANLIB) $@

$(O)/bin/%: cmd/%.c $(LIBA) $(HDR_LIB)
	@mkdir -p $(O)/bin
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)

# Tools written in shell: the version filled in, made executable.
$(O)/bin/%: cmd/%.sh Makefile
	@mkdir -p $(O)/bin
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@EXPORT_TABLES@/$(EXPORT_TABLES)/' $< > $@.tmp && chmod 755 $@.tmp && mv $@.tmp $@

$(O)/tests/%: tests/unit/%.c $(LIBA) $(HDR_LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(O)/tests
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)

units: $(UNIT)

# Fuzz targets (tests/fuzz/T.c), linked with FUZZMAIN: replay.c, which
# runs a target over the files of tests/corpus/T, or nothing for libFuzzer.
FUZZMAIN ?= tests/fuzz/replay.c
$(O)/fuzz/%: tests/fuzz/%.c $(FUZZMAIN) $(LIBA) $(HDR_LIB) $(wildcard tests/fuzz/*.h)
	@mkdir -p $(O)/fuzz
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $< $(FUZZMAIN) $(LIBA) $(ALL_LDLIBS)

fuzzers: $(FUZZ:%=$(O)/fuzz/%)

# Regenerate the generated seeds tests/corpus/*/gen-* (deterministic).
$(O)/fuzz/mkseeds: tests/fuzz/seeds/mkseeds.c $(LIBA) tests/unit/pqwrite.h
	@mkdir -p $(O)/fuzz
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)

seeds: $(O)/fuzz/mkseeds
	$(O)/fuzz/mkseeds tests/corpus

# The test suites, run once against the build in $(O).
test: all units fuzzers
	BIN=$(O)/bin UNITDIR=$(O)/tests FUZZDIR=$(O)/fuzz sh tests/run.sh

check:
	$(MAKE) test
	$(MAKE) test O=build-san CFLAGS="$(CFLAGS) $(SANFLAGS)" LDFLAGS="$(LDFLAGS) $(SANFLAGS)"

$(O)/bench/floor: tests/bench/floor.c $(LIBA)
	@mkdir -p $(O)/bench
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)

# make bench: speed and memory (never in make check).  The cost of costing
# every instruction of a run (bench/hlocost), tests/bench.sh (the tools
# against the reference's figures and the decompression floor), the scale
# table (tests/bench/scale.sh: N = 4 .. 256 synthetic processes;
# SCALE_N and SCALE_STEPS choose others), and the workers' table
# (tests/bench/workers.sh: each figure a ratio against its floor or peer
# measured in the same run).
$(O)/bench/hlocost: tests/bench/hlocost.c $(LIBA)
	@mkdir -p $(O)/bench
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)
bench: all $(O)/bench/floor $(O)/bench/hlocost $(O)/sqlite/mkexport $(O)/example/mkexample
	BIN=$(O)/bin FLOOR=$(O)/bench/floor MKEXPORT=$(O)/sqlite/mkexport sh tests/bench.sh
	BIN=$(O)/bin FLOOR=$(O)/bench/floor MKEXAMPLE=$(O)/example/mkexample sh tests/bench/scale.sh
	BIN=$(O)/bin FLOOR=$(O)/bench/floor MKEXPORT=$(O)/sqlite/mkexport \
	    MKEXAMPLE=$(O)/example/mkexample sh tests/bench/workers.sh

# libFuzzer with ASan and UBSan (clang): FUZZTIME seconds per target on a
# copy of its corpus, in fork mode (a finding does not stop the target),
# an input over FUZZTIMEOUT seconds a timeout; every distinct finding is
# reported and left in a temporary directory (tests/fuzz.sh).
FUZZTIME ?= 60
FUZZTIMEOUT ?= 10
FUZZCC   ?= clang
FUZZFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	    -fno-sanitize-recover=all
fuzz:
	$(MAKE) fuzzers O=build-fuzz CC=$(FUZZCC) FUZZMAIN= \
	    CFLAGS="$(CFLAGS) $(FUZZFLAGS) -fsanitize=fuzzer-no-link" \
	    LDFLAGS="$(LDFLAGS) $(FUZZFLAGS) -fsanitize=fuzzer"
	FUZZDIR=build-fuzz/fuzz FUZZTIME=$(FUZZTIME) FUZZTIMEOUT=$(FUZZTIMEOUT) \
	    sh tests/fuzz.sh $(FUZZTARGETS)

# The tools, their man pages, and the pipelines under share/nsysjax
# (nsysjax-report and nsysjax-profile -a find them there).
SHAREDIR = $(PREFIX)/share/nsysjax
install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 \
	    $(DESTDIR)$(SHAREDIR)/pipelines/lib
	for b in $(BIN); do cp -f $$b $(DESTDIR)$(PREFIX)/bin/ && chmod 755 $(DESTDIR)$(PREFIX)/bin/$${b##*/}; done
	for m in man/*.1; do cp -f $$m $(DESTDIR)$(MANPREFIX)/man1/ && chmod 644 $(DESTDIR)$(MANPREFIX)/man1/$${m##*/}; done
	for p in pipelines/*.sh pipelines/lib/*; do cp -f $$p $(DESTDIR)$(SHAREDIR)/$$p && chmod 644 $(DESTDIR)$(SHAREDIR)/$$p; done

uninstall:
	for c in $(SRC_CMD) $(SH_CMD); do t=$${c##*/}; t=$${t%.*}; rm -f $(DESTDIR)$(PREFIX)/bin/$$t $(DESTDIR)$(MANPREFIX)/man1/$$t.1; done
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -rf $(O) build build-san build-fuzz

.PHONY: all units fuzzers seeds test check fuzz bench install uninstall clean
.SECONDARY:

# The example profile: a synthetic 2-GPU run (tests/example/mkexample.c)
# in $(O)/example/profile/rank{0,1}, with the facts planted in truth.tsv,
# and the same run as nsys SQLite exports (tests/sqlite/mkexport.c) in
# $(O)/example/sqlite/rank{0,1} (rankN.sqlite and dump/).
$(O)/example/mkexample: tests/example/mkexample.c $(LIBA) $(HDR_LIB) tests/unit/pqwrite.h
	@mkdir -p $(O)/example
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)

example: $(O)/example/mkexample $(O)/sqlite/mkexport
	rm -rf $(O)/example/profile $(O)/example/sqlite
	$(O)/example/mkexample $(O)/example/profile
	for r in rank0 rank1; do mkdir -p $(O)/example/sqlite/$$r && \
	    $(O)/sqlite/mkexport archive $(O)/example/profile/$$r $(O)/example/sqlite/$$r/$$r.sqlite && \
	    cp -R $(O)/example/profile/$$r/dump $(O)/example/sqlite/$$r/ || exit 1; done

# tests/t75-example.sh runs the generator.
# The suites read the example run (t75, t78, t95, t97): made first.
test: example

# The main job: pipelines/report.sh on the profiles INPUTS (the nsys-jax
# archives of one run, .zip or extracted, or its nsys SQLite exports: a
# directory or zip holding one .sqlite and dump/ per process) into OUT
# (default out/); without INPUTS, on the example profile, which its first
# line says, naming any variable of the command line that none of the
# makefiles uses (INPUTS mistyped: the example would be reported
# silently).
# INPUTS may hold newlines (INPUTS="$$(ls prof_*.zip)"): strip makes them
# spaces, which would otherwise end the command line.  OUT is not removed
# here: report.sh replaces it whole once the new report is complete, so a
# bad input keeps the previous report.  EXTRACT_OPTS: options for
# nsysjax-extract, each word one report.sh -X (EXTRACT_OPTS="-k
# --hlo-dump=dumps").  report.sh writes the aligned timeline into OUT.
OUT = out
ifeq ($(strip $(INPUTS)),)
RUNIN  = $(O)/example/profile/rank0 $(O)/example/profile/rank1
RUNDEP = example
RUNEX  = 1
else
RUNIN  = $(strip $(INPUTS))
RUNDEP =
RUNEX  =
endif
# The command line's variables that no makefile line (comments left
# out) names: evaluated in run's recipe alone.
RUN_CLVARS  = $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
RUN_WORDS   = $(shell grep -hv '^[[:space:]]*\#' $(MAKEFILE_LIST) | grep -o '[A-Za-z_][A-Za-z0-9_]*' | sort -u)
RUN_UNKNOWN = $(filter-out $(RUN_WORDS),$(RUN_CLVARS))
RUN_NOTE    = $(if $(RUN_UNKNOWN),$(foreach v,$(RUN_UNKNOWN),$(v)=) is not a variable of make run (its variables: INPUTS=, OUT=, EXTRACT_OPTS=))
run: all $(RUNDEP)
	@$(if $(RUNEX),echo "make run: no INPUTS: the report of the example profile$(if $(RUN_NOTE),; $(RUN_NOTE))",$(if $(RUN_NOTE),echo "make run: $(RUN_NOTE)",:))
	NSYSJAX_BIN=$(O)/bin sh pipelines/report.sh $(strip $(foreach x,$(EXTRACT_OPTS),-X $(x)) -o $(OUT) $(RUNIN))
	@echo "make run: the report of $(RUNIN) is in $(OUT)/ ($(OUT)/report.txt, $(OUT)/report.html)"
	@[ ! -s $(OUT)/timeline.perfetto-trace ] || echo "make run: the aligned timeline is $(OUT)/timeline.perfetto-trace (open it in https://ui.perfetto.dev)"
.PHONY: example run

# mkexport (tests/sqlite/mkexport.c): nsys SQLite exports for the tests,
# hand-made from a text spec or converted from an nsys-jax archive.
$(O)/sqlite/mkexport: tests/sqlite/mkexport.c $(LIBA) $(HDR_LIB)
	@mkdir -p $(O)/sqlite
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(ALL_LDLIBS)
test: $(O)/sqlite/mkexport

# The generated seeds of the sqlite fuzz target: small exports from the
# specs in tests/sqlite/seeds (deterministic).
sqlite-seeds: $(O)/sqlite/mkexport
	for s in tests/sqlite/seeds/*.spec; do \
	    n=$${s##*/}; $(O)/sqlite/mkexport spec $$s tests/corpus/sqlite/gen-$${n%.spec}.sqlite || exit 1; done
seeds: sqlite-seeds
.PHONY: sqlite-seeds

# ---- growth boundaries ----
# The unit tests again with every array growing from capacity 1
# (-DMEM_GROW_MIN=1, base/mem.h) and the sanitizers: an element pointer
# kept across an append shows at once.  Part of make check.
check-grow:
	$(MAKE) units O=build-grow CPPFLAGS="$(CPPFLAGS) -DMEM_GROW_MIN=1" \
	    CFLAGS="$(CFLAGS) $(SANFLAGS)" LDFLAGS="$(LDFLAGS) $(SANFLAGS)"
	for t in build-grow/tests/*; do $$t > /dev/null || { echo "check-grow: $$t failed"; exit 1; }; done
	@echo "check-grow: the unit tests pass with growth from capacity 1"
check: check-grow
clean: clean-grow
clean-grow:
	rm -rf build-grow
.PHONY: check-grow clean-grow

# ---- command buffers ----
# The seeds of the thunkmeta fuzz target: XLA thunk metadata dumps that
# mkexport writes from the specs in tests/sqlite/seeds/thunkmeta.
thunkmeta-seeds: $(O)/sqlite/mkexport
	mkdir -p tests/corpus/thunkmeta $(O)/seeds/thunkmeta
	for s in tests/sqlite/seeds/thunkmeta/*.spec; do \
	    n=$${s##*/}; n=$${n%.spec}; rm -rf $(O)/seeds/thunkmeta/$$n; mkdir -p $(O)/seeds/thunkmeta/$$n; \
	    $(O)/sqlite/mkexport spec $$s $(O)/seeds/thunkmeta/$$n/x.sqlite || exit 1; \
	    cp $(O)/seeds/thunkmeta/$$n/dump/*.thunk_metadata.pb tests/corpus/thunkmeta/gen-$$n.pb || exit 1; done
seeds: thunkmeta-seeds
.PHONY: thunkmeta-seeds
