# SPDX-License-Identifier: GPL-2.0-or-later
# tally - build, test, fuzz, benchmark and demo.
#
#   make            build build/tally (optimised, with debug info)
#   make check      install missing packages, build, run every test
#   make demo       install, build, profile examples/ and show the result
#   make asan       build the unit tests with ASan+UBSan
#   make fuzz       run every fuzzer for longer (FUZZ_SECONDS, default 300)
#   make bench      speed and memory against the peer tools
#   make format     reformat the sources with clang-format

CC       ?= gcc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASEFLAGS := -std=c17 -D_GNU_SOURCE -MMD -MP $(WARN)
LIBS     := -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm

B        := build
LIBSRC   := $(sort $(wildcard src/model/*.c src/io/*.c src/formats/*.c src/symbols/*.c \
                             src/analysis/*.c src/report/*.c))
CLISRC   := $(sort $(wildcard src/cli/*.c))
UNITSRC  := $(sort $(wildcard tests/unit/test_*.c))
FUZZSRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIBOBJ   := $(LIBSRC:%.c=$(B)/obj/%.o)
CLIOBJ   := $(CLISRC:%.c=$(B)/obj/%.o)
UNITBIN  := $(UNITSRC:tests/unit/%.c=$(B)/tests/%)
ASANLIBOBJ := $(LIBSRC:%.c=$(B)/asan/%.o)
ASANBIN  := $(UNITSRC:tests/unit/%.c=$(B)/asan/tests/%)
ASANTALLY := $(B)/asan/tally
FUZZBIN  := $(FUZZSRC:tests/fuzz/%.c=$(B)/fuzz/%)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all deps check unit asan fuzz fuzz-build bench hostile demo format format-check clean examples tool

all: $(B)/tally tool

# tally's Valgrind tool and its private VALGRIND_LIB dir (valgrind/Makefile)
tool:
	@$(MAKE) -s -C valgrind B=$(abspath $(B))

deps:
	@sh scripts/install-deps.sh

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

$(B)/libtally.a: $(LIBOBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/tally: $(CLIOBJ) $(B)/libtally.a
	$(CC) $(CFLAGS) -o $@ $(CLIOBJ) $(B)/libtally.a $(LIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libtally.a tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Isrc -o $@ $< $(B)/libtally.a -lcmocka $(LIBS)

unit: $(UNITBIN)

# --- sanitizer build ------------------------------------------------------
$(B)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O1 -g $(SANFLAGS) -c $< -o $@

$(B)/asan/libtally.a: $(ASANLIBOBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/asan/tests/%: tests/unit/%.c $(B)/asan/libtally.a tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O1 -g $(SANFLAGS) -Isrc -o $@ $< $(B)/asan/libtally.a -lcmocka $(LIBS)

$(ASANTALLY): $(CLISRC:%.c=$(B)/asan/%.o) $(B)/asan/libtally.a
	$(CC) -g $(SANFLAGS) -o $@ $^ $(LIBS)

asan: $(ASANBIN) $(ASANTALLY)

# --- fuzzers (clang + libFuzzer) -------------------------------------------
FUZZCC := clang
$(B)/fuzz/%: tests/fuzz/%.c $(LIBSRC)
	@mkdir -p $(dir $@)
	$(FUZZCC) $(BASEFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -Isrc -o $@ $< $(LIBSRC) $(LIBS)

fuzz-build: $(FUZZBIN)

FUZZ_SECONDS ?= 300
fuzz: deps fuzz-build
	@for f in $(FUZZBIN); do sh tests/fuzz/run-fuzzer.sh $$f $(FUZZ_SECONDS) || exit 1; done

# --- tests ----------------------------------------------------------------
examples:
	@$(MAKE) -s -C examples

check: deps
	@$(MAKE) -s all unit asan fuzz-build examples
	@sh tests/run.sh

# the long mutation sweep of tests/hostile (make check runs 40 mutants)
SWEEP_MUTANTS ?= 1500
hostile: deps all asan examples
	@SWEEP_MUTANTS=$(SWEEP_MUTANTS) sh tests/hostile/sweep.sh

bench: deps all examples
	@sh bench/run.sh

demo: deps all examples
	@sh scripts/demo.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^valgrind/')

format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h' | grep -v '^valgrind/')

clean:
	rm -rf $(B)
	@$(MAKE) -s -C examples clean

-include $(shell find $(B) -name '*.d' 2>/dev/null)
