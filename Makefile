# SPDX-License-Identifier: GPL-2.0-or-later
# tally - build, test, fuzz, benchmark and demo.
#
#   make            build build/tally (optimised, with debug info)
#   make check      install missing packages, build, run every test
#   make install    install under PREFIX (default /usr/local), staged in DESTDIR
#   make uninstall  remove what make install put there
#   make man        the man pages, build/man/*.1, from docs/*.md (needs lowdown)
#   make demo       install what the demo needs, build, profile examples/ and show it
#   make asan       build the unit tests with ASan+UBSan
#   make fuzz       run every fuzzer for longer (FUZZ_SECONDS, default 300), and
#                   the differential harness (tests/peer/gendiff.sh) as long
#   make bench      speed and memory against the peer tools
#   make interop    tally's files in KCachegrind (screenshots) and callgrind_annotate
#   make format     reformat the sources with clang-format

CC       ?= gcc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASEFLAGS := -std=c17 -D_GNU_SOURCE -MMD -MP $(WARN)
LIBS     := -lpthread -lmicrohttpd -lcapstone -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm

B        := build
LIBSRC   := $(sort $(wildcard src/model/*.c src/io/*.c src/formats/*.c src/symbols/*.c \
                             src/analysis/*.c src/export/*.c src/report/*.c \
                             src/view/*.c))
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

.PHONY: all deps check unit asan tsan fuzz fuzz-build bench hostile check-valgrind demo format format-check clean examples \
	tool man install uninstall interop

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

# --- man pages: docs/*.md through scripts/mkman.py and lowdown ----------------
DOCPAGES := $(sort $(wildcard docs/tally*.md))
MANPAGES := $(DOCPAGES:docs/%.md=$(B)/man/%.1)

$(B)/man/%.1: docs/%.md scripts/mkman.py $(B)/tally
	@mkdir -p $(dir $@)
	@python3 scripts/mkman.py $(B)/tally $< > $@.tmp && mv $@.tmp $@

man: $(MANPAGES)

# --- install ----------------------------------------------------------------
# PREFIX/bin/tally finds its Valgrind tool in PREFIX/lib/tally (relative to
# the binary, so a tree staged in DESTDIR works wherever it is moved).
PREFIX   ?= /usr/local
DESTDIR  ?=
IBIN     := $(DESTDIR)$(PREFIX)/bin
ILIB     := $(DESTDIR)$(PREFIX)/lib/tally
IINC     := $(DESTDIR)$(PREFIX)/include
IMAN     := $(DESTDIR)$(PREFIX)/share/man/man1
ICOMP    := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
IDOC     := $(DESTDIR)$(PREFIX)/share/doc/tally
TOOLFILES = $(notdir $(wildcard $(B)/valgrind/lib/*))
DOCFILES := $(notdir $(wildcard docs/*.md))
INTFILES := $(notdir $(wildcard docs/internals/*.md))

install: all man
	@test -x $(B)/valgrind/lib/tally-amd64-linux || { echo "make install: the Valgrind tool is not built" >&2; exit 1; }
	install -d $(IBIN) $(ILIB) $(IINC) $(IMAN) $(ICOMP) $(IDOC)/internals
	install -m 755 $(B)/tally $(IBIN)/tally
	@# real files, never links: the tool dir must stand on its own
	@for f in $(B)/valgrind/lib/*; do \
	    if [ -x "$$f" ]; then m=755; else m=644; fi; \
	    echo "install -m $$m $$f $(ILIB)/"; install -m $$m "$$f" $(ILIB)/ || exit 1; done
	install -m 644 $(B)/valgrind/include/tally.h $(IINC)/tally.h
	install -m 644 $(MANPAGES) $(IMAN)/
	install -m 644 scripts/tally.bash $(ICOMP)/tally
	install -m 644 README.md LICENSE $(addprefix docs/,$(DOCFILES)) $(IDOC)/
	install -m 644 $(addprefix docs/internals/,$(INTFILES)) $(IDOC)/internals/

uninstall:
	rm -f $(IBIN)/tally $(IINC)/tally.h $(ICOMP)/tally
	rm -f $(addprefix $(IMAN)/,$(notdir $(MANPAGES)))
	rm -f $(ILIB)/tally-amd64-linux $(ILIB)/tally-valgrind-version $(ILIB)/vgpreload_core-amd64-linux.so \
	    $(ILIB)/default.supp $(ILIB)/getoff-amd64-linux
	rm -f $(addprefix $(IDOC)/internals/,$(INTFILES)) $(addprefix $(IDOC)/,README.md LICENSE $(DOCFILES))
	-rmdir $(ILIB) $(IDOC)/internals $(IDOC) 2>/dev/null || true

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

# --- ThreadSanitizer build of the tests of threaded code (clang) -------------
# the split read, the workers and the streams' read-ahead run on two threads,
# and so do the sort and the printing of long annotate tables (test_lean) and the calls of
# the lean function table, read on a second thread from a profile other views read too
# (test_views)
TSANTESTS := test_split test_fold test_input test_lean test_views
TSANBIN   := $(TSANTESTS:%=$(B)/tsan/tests/%)
$(B)/tsan/tests/%: tests/unit/%.c $(LIBSRC) tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(FUZZCC) $(BASEFLAGS) -O1 -g -fsanitize=thread -Isrc -o $@ $< $(LIBSRC) -lcmocka $(LIBS)

tsan: $(TSANBIN)

# --- fuzzers (clang + libFuzzer) -------------------------------------------
FUZZCC := clang
$(B)/fuzz/%: tests/fuzz/%.c $(LIBSRC)
	@mkdir -p $(dir $@)
	$(FUZZCC) $(BASEFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -Isrc -o $@ $< $(LIBSRC) $(LIBS)

fuzz-build: $(FUZZBIN)

FUZZ_SECONDS ?= 300
fuzz: deps fuzz-build
	@for f in $(FUZZBIN); do sh tests/fuzz/run-fuzzer.sh $$f $(FUZZ_SECONDS) || exit 1; done
	@$(MAKE) -s all
	@GENDIFF_SECONDS=$(FUZZ_SECONDS) sh tests/peer/gendiff.sh

# --- tests ----------------------------------------------------------------
examples:
	@$(MAKE) -s -C examples

# the build of make check uses every CPU (make -j), as the tests do
NPROC    := $(shell nproc 2>/dev/null || echo 1)
check: deps
	@$(MAKE) -s -j$(NPROC) all unit asan tsan fuzz-build examples
	@bash tests/run.sh

# tally's tool against another Valgrind: VALGRIND_PREFIX=DIR names its
# install (scripts/valgrind-build.sh trixie|sid makes one); not part of check
check-valgrind: deps all examples
	@sh tests/check-valgrind.sh "$(VALGRIND_PREFIX)"

# the long mutation sweep of tests/hostile (make check runs 40 mutants)
SWEEP_MUTANTS ?= 1500
hostile: deps all asan examples
	@SWEEP_MUTANTS=$(SWEEP_MUTANTS) sh tests/hostile/sweep.sh

bench: deps all examples
	@sh bench/run.sh

interop: all examples
	@sh scripts/interop.sh

# the demo installs only what it needs (not the tests' browser, Go, protobuf)
demo:
	@sh scripts/install-deps.sh demo
	@$(MAKE) -s all examples
	@sh scripts/demo.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^valgrind/')

format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h' | grep -v '^valgrind/')

clean:
	rm -rf $(B)
	@$(MAKE) -s -C examples clean

-include $(shell find $(B) -name '*.d' 2>/dev/null)
