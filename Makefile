# nsysjax: GNU make.  `make` builds bin/ (tools) from cmd/ and lib/;
# `make check` runs every test suite with the normal build and again with
# AddressSanitizer + UBSan; `make bench` measures speed and memory.

include config.mk

O       ?= build
SRC_LIB := $(wildcard lib/*.c)
SRC_CMD := $(wildcard cmd/*.c)
PROTOS  := $(wildcard protos/*.proto)
PB_C    := $(patsubst protos/%.proto,$(O)/pb/%.pb-c.c,$(PROTOS))
OBJ_LIB := $(patsubst lib/%.c,$(O)/lib/%.o,$(SRC_LIB)) $(PB_C:.c=.o)
BIN     := $(patsubst cmd/%.c,$(O)/bin/%,$(SRC_CMD))
UNIT    := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/*.c))
LIBA    := $(O)/libnsysjax.a
CPPFLAGS += -Ilib -I$(O)/pb

all: $(BIN)

$(O)/pb/%.pb-c.c $(O)/pb/%.pb-c.h: protos/%.proto
	@mkdir -p $(O)/pb
	$(PROTOC_C) --proto_path=protos --c_out=$(O)/pb $<

$(O)/pb/%.pb-c.o: $(O)/pb/%.pb-c.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-unused-parameter -c -o $@ $<

$(O)/lib/%.o: lib/%.c $(wildcard lib/*.h) $(PB_C)
	@mkdir -p $(O)/lib
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBA): $(OBJ_LIB)
	rm -f $@
	$(AR) rc $@ $(OBJ_LIB)
	$(RANLIB) $@

$(O)/bin/%: cmd/%.c $(LIBA) $(wildcard lib/*.h)
	@mkdir -p $(O)/bin
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

$(O)/tests/%: tests/unit/%.c $(LIBA) $(wildcard lib/*.h) $(wildcard tests/unit/*.h)
	@mkdir -p $(O)/tests
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

units: $(UNIT)

# The test suites, run once against the build in $(O).
test: all units
	BIN=$(O)/bin UNITDIR=$(O)/tests sh tests/run.sh

check:
	$(MAKE) test
	$(MAKE) test O=build-san CFLAGS="$(CFLAGS) $(SANFLAGS)" LDFLAGS="$(LDFLAGS) $(SANFLAGS)"

$(O)/bench/floor: tests/bench/floor.c $(LIBA)
	@mkdir -p $(O)/bench
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

bench: all $(O)/bench/floor
	BIN=$(O)/bin FLOOR=$(O)/bench/floor sh tests/bench.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1
	for b in $(BIN); do cp -f $$b $(DESTDIR)$(PREFIX)/bin/ && chmod 755 $(DESTDIR)$(PREFIX)/bin/$${b##*/}; done
	for m in man/*.1; do cp -f $$m $(DESTDIR)$(MANPREFIX)/man1/ && chmod 644 $(DESTDIR)$(MANPREFIX)/man1/$${m##*/}; done

uninstall:
	for c in $(SRC_CMD); do t=$${c##*/}; t=$${t%.c}; rm -f $(DESTDIR)$(PREFIX)/bin/$$t $(DESTDIR)$(MANPREFIX)/man1/$$t.1; done

clean:
	rm -rf build build-san

.PHONY: all units test check bench install uninstall clean
.SECONDARY:

# The main job: every frame of INPUTS into out/.
INPUTS ?= $(wildcard ../shared/data/pax_fsdp4_4proc/*.zip)
run: all
	@test -n "$(INPUTS)" || { echo "make run: name the profiles: make run INPUTS='rank0.zip rank1.zip'" >&2; exit 1; }
	mkdir -p out
	$(O)/bin/nsysjax-extract -o out $(INPUTS)
	@ls -l out
.PHONY: run
