# SPDX-License-Identifier: GPL-2.0
# thpcow: the top-level Makefile, for people. The kernel module is built by
# Kbuild from module/Kbuild; this only wraps it, together with the tools.
#
#   make [all]      the module (when KERNEL_DIR exists) and the tools
#   make module     module/thpcow.ko for KERNEL_DIR, e.g.
#                   make module KERNEL_DIR=/usr/src/linux-headers-6.1.0-57-amd64
#   make tools      tools/thpcowctl and the test programs in tests/prog
#   make deps       (root) install the Debian packages needed here
#   make check      deps, tools, then every test (tests/check)
#   make demo       deps, tools, then the demo (tests/demo)
#   make bench      deps, tools, then the benchmark in guests (bench/run; about
#                   15 minutes): tables on stdout, JSON and plots in bench/results
#   make clean

KERNELRELEASE ?= $(shell uname -r)
KERNEL_DIR ?= /lib/modules/$(KERNELRELEASE)/build

TOOL_DIRS := $(patsubst %/Makefile,%,$(wildcard tools/thpcowctl/Makefile tests/prog/Makefile))

.PHONY: all module tools deps check demo bench clean

all: $(if $(wildcard $(KERNEL_DIR)),module) tools

module:
ifneq ($(wildcard module/Kbuild),)
	$(MAKE) -C $(KERNEL_DIR) M=$(CURDIR)/module modules
else
	@echo "make module: there is no module/ yet"
endif

tools:
	$(foreach d,$(TOOL_DIRS),$(MAKE) -C $(d) &&) true

deps:
	@scripts/deps

check: deps tools
	tests/check

demo: deps tools
	@if [ -x tests/demo ]; then tests/demo; \
	else echo "make demo: not yet: the module core is still being written"; fi

bench: deps tools
	bench/run

clean:
	$(foreach d,$(TOOL_DIRS),$(MAKE) -C $(d) clean &&) true
ifneq ($(wildcard module/Kbuild),)
	cd module && rm -rf *.o *.ko *.mod *.mod.c .*.cmd modules.order Module.symvers .tmp_versions
endif
