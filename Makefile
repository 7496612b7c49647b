# SPDX-License-Identifier: GPL-2.0
# thpcow: the top-level Makefile, for people. The kernel module is built by
# Kbuild from module/Kbuild; this only wraps it, together with the tools.
#
#   make [all]      the module (when KERNEL_DIR exists) and the tools
#   make module     module/thpcow.ko for KERNEL_DIR, e.g.
#                   make module KERNEL_DIR=/usr/src/linux-headers-6.1.0-57-amd64
#   make tools      tools/thpcowctl, the benchmark's programs (bench/prog: wrf, the
#                   workload the tests and the demo run too) and the tests' (tests/prog)
#   make deps       (root) install the Debian packages needed here
#   make check      deps, tools, then every test (tests/check); each file's
#                   time, the slowest and the total before the last line
#   make check-all  the same and the long runs (THPCOW_CHECK=all): the cases
#                   a test lists as long and the guest scripts' "# vm-all:" runs
#   make demo       deps, tools, then the demo (bench/demo)
#   make bench      deps, tools, then the benchmark in guests (bench/run; about
#                   15 minutes): tables on stdout, JSON and plots in bench/results
#   make install    (root) module/thpcow.ko into
#                   $(DESTDIR)/lib/modules/$(KERNELRELEASE)/extra through the
#                   kernel's modules_install (its signing and compression), then depmod
#   make deb        the Debian packages thpcow-dkms and thpcowctl, into
#                   build/deb/ (dpkg-buildpackage, unsigned, from a copy of the tree)
#   make install-dkms-src  the module's sources and dkms.conf, alone, into
#                   $(DESTDIR)/usr/src/thpcow-VERSION (what thpcow-dkms ships)
#   make install-tools  (root) thpcowctl, its man pages and completion, the
#                   systemd units (thpcow, thpcow-collapse@), the libvirt
#                   hook example into DOCDIR, and /etc/thpcow.conf and
#                   /etc/modprobe.d/thpcow.conf (each unless it exists)
#   make install-all    both; DESTDIR and PREFIX (/usr/local) are honoured
#   make uninstall  remove what they installed (the /etc files if unchanged)
#   make clean

KERNELRELEASE ?= $(shell uname -r)
KERNEL_DIR ?= /lib/modules/$(KERNELRELEASE)/build

# (those present: make deb's copy of the tree has no bench/ or tests/)
TOOL_DIRS := $(patsubst %/Makefile,%,$(wildcard tools/thpcowctl/Makefile bench/prog/Makefile tests/prog/Makefile))

PREFIX ?= /usr/local
MODULEDIR ?= /lib/modules/$(KERNELRELEASE)/extra
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/thpcow
SYSCONFDIR ?= /etc
INSTALL ?= install
VERSION := $(shell sed -n 's/^\#define THPCOW_VERSION[[:space:]]*"\(.*\)"$$/\1/p' include/uapi/thpcow.h)
DKMS_SRC ?= /usr/src/thpcow-$(VERSION)
DEB_DIR ?= build/deb
DEPMOD ?= depmod
export PREFIX INSTALL

.PHONY: all module tools deps check demo bench clean install install-tools \
	install-all uninstall install-dkms-src deb

all: $(if $(wildcard $(KERNEL_DIR)),module) tools

module:
	$(MAKE) -C $(KERNEL_DIR) M=$(CURDIR)/module modules

tools:
	$(foreach d,$(TOOL_DIRS),$(MAKE) -C $(d) &&) true

deps:
	@scripts/deps

check: deps tools
	tests/check

.PHONY: check-all
check-all: deps tools
	THPCOW_CHECK=all tests/check

demo: deps tools
	bench/demo

bench: deps tools
	bench/run

clean:
	$(foreach d,$(TOOL_DIRS),$(MAKE) -C $(d) clean &&) true
	cd module && rm -rf *.o *.ko *.mod *.mod.c .*.cmd modules.order Module.symvers .tmp_versions \
		compat/*.o compat/.*.cmd

# The project's own builds: every warning is an error (never in a user's build).
check check-all demo bench: export THPCOW_WERROR := 1

# The module must have been built for KERNELRELEASE (make module). The
# kernel's modules_install signs and compresses it as the kernel is configured
# to; its depmod is skipped without a System.map (Debian's headers), so ours runs.
install: module
	@v=$$(modinfo -F vermagic module/thpcow.ko) && [ "$${v%% *}" = "$(KERNELRELEASE)" ] || \
		{ echo "make install: module/thpcow.ko is built for $${v%% *}, not $(KERNELRELEASE)" >&2; exit 1; }
	$(MAKE) -C $(KERNEL_DIR) M=$(CURDIR)/module INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra modules_install
	$(DEPMOD) -b $(or $(DESTDIR),/) $(KERNELRELEASE)

# /etc files: installed when absent, never overwritten; the examples stay in DOCDIR.
install-tools:
	$(MAKE) -C tools/thpcowctl install
	$(INSTALL) -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/modprobe.d
	$(INSTALL) -m 0644 dist/thpcow.service $(DESTDIR)$(UNITDIR)/thpcow.service
	$(INSTALL) -m 0644 dist/thpcow-collapse@.service $(DESTDIR)$(UNITDIR)/thpcow-collapse@.service
	$(INSTALL) -m 0755 dist/libvirt-hook-qemu $(DESTDIR)$(DOCDIR)/libvirt-hook-qemu
	$(INSTALL) -m 0644 dist/thpcow.conf $(DESTDIR)$(DOCDIR)/thpcow.conf
	$(INSTALL) -m 0644 dist/modprobe.conf $(DESTDIR)$(DOCDIR)/modprobe.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/thpcow.conf ] || \
		$(INSTALL) -m 0644 dist/thpcow.conf $(DESTDIR)$(SYSCONFDIR)/thpcow.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/modprobe.d/thpcow.conf ] || \
		$(INSTALL) -m 0644 dist/modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/thpcow.conf

install-all: install install-tools

uninstall:
	$(MAKE) -C tools/thpcowctl uninstall
	rm -f $(DESTDIR)$(UNITDIR)/thpcow.service $(DESTDIR)$(DOCDIR)/thpcow.conf \
		$(DESTDIR)$(UNITDIR)/thpcow-collapse@.service \
		$(DESTDIR)$(DOCDIR)/libvirt-hook-qemu $(DESTDIR)$(DOCDIR)/modprobe.conf
	-rmdir $(DESTDIR)$(DOCDIR)
	! cmp -s dist/thpcow.conf $(DESTDIR)$(SYSCONFDIR)/thpcow.conf || \
		rm -f $(DESTDIR)$(SYSCONFDIR)/thpcow.conf
	! cmp -s dist/modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/thpcow.conf || \
		rm -f $(DESTDIR)$(SYSCONFDIR)/modprobe.d/thpcow.conf
	if [ -e $(DESTDIR)$(MODULEDIR)/thpcow.ko ]; then \
		rm -f $(DESTDIR)$(MODULEDIR)/thpcow.ko && \
		$(DEPMOD) -b $(or $(DESTDIR),/) $(KERNELRELEASE); fi

# What the module build needs and nothing else: module/ (sources, Kbuild,
# Kconfig), the ABI header, dkms.conf.
install-dkms-src:
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRC)
	$(INSTALL) -m 0644 dkms.conf $(DESTDIR)$(DKMS_SRC)/dkms.conf
	$(INSTALL) -D -m 0644 include/uapi/thpcow.h $(DESTDIR)$(DKMS_SRC)/include/uapi/thpcow.h
	cd module && find . -type f \( -name '*.[ch]' ! -name '*.mod.c' -o -name Kbuild -o -name Kconfig \) | \
		while read -r f; do $(INSTALL) -D -m 0644 "$$f" "$(DESTDIR)$(DKMS_SRC)/module/$$f" || exit 1; done

# dpkg-buildpackage writes its results next to the source tree: a copy of
# the tree's sources (no build products) in $(DEB_DIR)/src puts them in $(DEB_DIR).
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src/tools/thpcowctl
	cp -r debian dist Makefile LICENSE README.md $(DEB_DIR)/src/
	$(MAKE) install-dkms-src DESTDIR=$(abspath $(DEB_DIR))/src DKMS_SRC=
	cp tools/thpcowctl/Makefile tools/thpcowctl/*.[ch458] tools/thpcowctl/*.bash-completion \
		$(DEB_DIR)/src/tools/thpcowctl/
	cd $(DEB_DIR)/src && dpkg-buildpackage -b --no-sign
	rm -rf $(DEB_DIR)/src
	@ls $(DEB_DIR)/*.deb
