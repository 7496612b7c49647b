# SPDX-License-Identifier: GPL-2.0
# thpcow: the top-level Makefile, for people. The kernel module is built by
# Kbuild from module/Kbuild; this only wraps it, together with the tools.
#
#   make [all]      the module (when KERNEL_DIR exists) and the tools
#   make module     module/thpcow.ko for KERNEL_DIR, e.g.
#                   make module KERNEL_DIR=/usr/src/linux-headers-6.1.0-57-amd64
#   make tools      tools/thpcowctl, the programs the benchmark and the tests
#                   share (prog: wrf, migfw.bin), the benchmark's own
#                   (bench/prog) and the tests' (tests/prog)
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
#                   build/deb/ (dpkg-buildpackage, unsigned, from a copy of the tree);
#                   DEB_VERSION=V: as version V (THPCOW_VERSION and a changelog
#                   entry changed in the copy; tests/vm/packages.t's upgrade);
#                   SUITE=bullseye|bookworm|trixie: built in that Debian
#                   release's chroot, for it, into build/deb/SUITE/ (vm/debbuild;
#                   root, debootstrap)
#   make rpm        the RPM packages thpcow-dkms and thpcowctl (rpm/thpcow.spec)
#                   and the source package, into build/rpm/ (rpmbuild from a
#                   tarball of the tree's sources; on Debian: apt-get install rpm)
#   make install-dkms-src  the module's sources and dkms.conf (its
#                   PACKAGE_VERSION the header's), alone, into
#                   $(DESTDIR)/usr/src/thpcow-VERSION
#   make install-dkms  those and the kernel hook that builds thpcow for each
#                   new kernel (LIBEXECDIR/thpcow/dkms-kernel-hook, linked
#                   in /etc/kernel/postinst.d and header_postinst.d): what
#                   thpcow-dkms ships
#   make install-tools  (root) thpcowctl, its man pages and completion, the
#                   systemd units (thpcow, thpcow-collapse@, thpcow-metrics
#                   and its timer), the libvirt hook into LIBEXECDIR/thpcow,
#                   and /etc/thpcow.conf, /etc/modprobe.d/thpcow.conf and
#                   /etc/libvirt/hooks/qemu.d/thpcow, which runs that hook
#                   (each unless it exists)
#   make install-all    both; DESTDIR and PREFIX (/usr/local) are honoured
#   make uninstall  remove what they installed (the /etc files if unchanged)
#   make -s list-installed  what the install targets install, where (below)
#   make clean

KERNELRELEASE ?= $(shell uname -r)
KERNEL_DIR ?= /lib/modules/$(KERNELRELEASE)/build

# (those present: a source tree may come without prog/, bench/ or tests/)
TOOL_DIRS := $(patsubst %/Makefile,%,$(wildcard tools/thpcowctl/Makefile prog/Makefile bench/prog/Makefile \
	tests/prog/Makefile))

PREFIX ?= /usr/local
MODULEDIR ?= /lib/modules/$(KERNELRELEASE)/extra
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/thpcow
LIBEXECDIR ?= $(PREFIX)/libexec
SYSCONFDIR ?= /etc
INSTALL ?= install
VERSION := $(shell sed -n 's/^\#define THPCOW_VERSION[[:space:]]*"\(.*\)"$$/\1/p' include/uapi/thpcow.h)
DKMS_SRC ?= /usr/src/thpcow-$(VERSION)
DEB_DIR ?= build/deb$(if $(SUITE),/$(SUITE))
RPM_DIR ?= build/rpm
DEPMOD ?= depmod

.PHONY: all module tools deps check demo bench clean install install-tools \
	install-all uninstall install-dkms-src install-dkms list-installed deb rpm

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

# What the install targets install, listed once, MODE:SOURCE:DESTINATION:
# install-tools, install-dkms-src and uninstall expand these lists, debian/rules
# calls them with Debian's directories, and `make -s list-installed` prints
# them (TARGET MODE SOURCE DESTINATION a line) for tests/host/install.t and
# deb.t. DESTINATION is under DESTDIR. MODE 0777: a symbolic link to SOURCE.
MODULE_FILES = 0644:module/thpcow.ko:$(MODULEDIR)/thpcow.ko
TOOLS_FILES = \
	0755:tools/thpcowctl/thpcowctl:$(SBINDIR)/thpcowctl \
	0644:man/thpcowctl.8:$(MANDIR)/man8/thpcowctl.8 \
	0644:man/thpcow.conf.5:$(MANDIR)/man5/thpcow.conf.5 \
	0644:man/thpcow.4:$(MANDIR)/man4/thpcow.4 \
	0644:tools/thpcowctl/thpcowctl.bash-completion:$(COMPLETIONDIR)/thpcowctl \
	0644:dist/thpcow.service:$(UNITDIR)/thpcow.service \
	0644:dist/thpcow-collapse@.service:$(UNITDIR)/thpcow-collapse@.service \
	0644:dist/thpcow-metrics.service:$(UNITDIR)/thpcow-metrics.service \
	0644:dist/thpcow-metrics.timer:$(UNITDIR)/thpcow-metrics.timer \
	0755:dist/libvirt-hook-qemu:$(LIBEXECDIR)/thpcow/libvirt-hook-qemu \
	0644:dist/prometheus/thpcow.rules.yml:$(PREFIX)/share/thpcowctl/prometheus/thpcow.rules.yml \
	$(if $(filter yes,$(CONF_EXAMPLES)),$(foreach e,$(CONF_FILES),0644:$(call src,$e):$(DOCDIR)/$(notdir $(call src,$e))))
# /etc: installed when absent, never overwritten; uninstall removes them if
# unchanged. CONF_EXAMPLES=yes: their defaults also in DOCDIR, to compare
# with (Debian's conffiles do that instead).
CONF_FILES = \
	0644:dist/thpcow.conf:$(SYSCONFDIR)/thpcow.conf \
	0644:dist/modprobe.conf:$(SYSCONFDIR)/modprobe.d/thpcow.conf \
	0755:dist/libvirt-hook-qemu.d-thpcow:$(SYSCONFDIR)/libvirt/hooks/qemu.d/thpcow
CONF_EXAMPLES ?= yes
# What the module build needs and nothing else: module/ (sources, Kbuild,
# Kconfig), the ABI headers, dkms.conf; under DKMS_SRC.
DKMS_FILES = $(foreach f,dkms.conf $(sort $(wildcard include/uapi/*.h)) \
	$(shell find module -type f \( -name '*.[ch]' ! -name '*.mod.c' -o -name Kbuild -o -name Kconfig \) | \
		LC_ALL=C sort),0644:$f:$(DKMS_SRC)/$f)
# Links, not conffiles: they go with the package that owns them (dpkg
# removes them at remove, not only at purge) and are never left stale.
DKMS_HOOK_FILES = 0755:dist/dkms-kernel-hook:$(LIBEXECDIR)/thpcow/dkms-kernel-hook \
	$(foreach d,postinst.d header_postinst.d,\
		0777:$(LIBEXECDIR)/thpcow/dkms-kernel-hook:$(SYSCONFDIR)/kernel/$d/thpcow)

mode = $(word 1,$(subst :, ,$1))
src = $(word 2,$(subst :, ,$1))
dest = $(DESTDIR)$(word 3,$(subst :, ,$1))
define nl


endef
# install_entry ENTRY: the command that installs one list entry
install_entry = $(if $(filter 0777,$(call mode,$1)),mkdir -p $(dir $(call dest,$1)) && \
	ln -sfn $(call src,$1) $(call dest,$1),$(INSTALL) -D -m $(call mode,$1) $(call src,$1) $(call dest,$1))

# The module must have been built for KERNELRELEASE (make module). The
# kernel's modules_install signs and compresses it as the kernel is configured
# to; its depmod is skipped without a System.map (Debian's headers), so ours runs.
install: module
	@v=$$(modinfo -F vermagic module/thpcow.ko) && [ "$${v%% *}" = "$(KERNELRELEASE)" ] || \
		{ echo "make install: module/thpcow.ko is built for $${v%% *}, not $(KERNELRELEASE)" >&2; exit 1; }
	$(MAKE) -C $(KERNEL_DIR) M=$(CURDIR)/module INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra modules_install
	$(DEPMOD) -b $(or $(DESTDIR),/) $(KERNELRELEASE)

install-tools:
	$(MAKE) -C tools/thpcowctl
	$(foreach e,$(TOOLS_FILES),$(call install_entry,$e)$(nl))
	$(foreach e,$(CONF_FILES),[ -e $(call dest,$e) ] || \
		$(INSTALL) -D -m $(call mode,$e) $(call src,$e) $(call dest,$e)$(nl))

install-all: install install-tools

uninstall:
	rm -f $(foreach e,$(TOOLS_FILES),$(call dest,$e))
	-rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(LIBEXECDIR)/thpcow $(DESTDIR)$(PREFIX)/share/thpcowctl/prometheus $(DESTDIR)$(PREFIX)/share/thpcowctl
	$(foreach e,$(CONF_FILES),! cmp -s $(call src,$e) $(call dest,$e) || rm -f $(call dest,$e)$(nl))
	if [ -e $(call dest,$(MODULE_FILES)) ]; then \
		rm -f $(call dest,$(MODULE_FILES)) && \
		$(DEPMOD) -b $(or $(DESTDIR),/) $(KERNELRELEASE); fi

install-dkms-src:
	$(foreach e,$(DKMS_FILES),$(INSTALL) -D -m $(call mode,$e) $(call src,$e) $(call dest,$e)$(nl))
	sed -i 's/#MODULE_VERSION#/$(VERSION)/' $(DESTDIR)$(DKMS_SRC)/dkms.conf

install-dkms: install-dkms-src
	$(foreach e,$(DKMS_HOOK_FILES),$(call install_entry,$e)$(nl))
	sed -i 's/#MODULE_VERSION#/$(VERSION)/' $(DESTDIR)$(LIBEXECDIR)/thpcow/dkms-kernel-hook

list-installed:
	$(foreach t,install:MODULE install-tools:TOOLS install-tools:CONF install-dkms-src:DKMS install-dkms:DKMS_HOOK,\
		$(foreach e,$($(word 2,$(subst :, ,$t))_FILES),\
			$(info $(word 1,$(subst :, ,$t)) $(call mode,$e) $(call src,$e) $(word 3,$(subst :, ,$e)))))@:

# dpkg-buildpackage writes its results next to the source tree: a copy of
# the tree's sources (what git tracks or would add, not what it ignores: no
# build products) in $(DEB_DIR)/src puts them in $(DEB_DIR). So make deb
# needs a git checkout; a tree without one builds its packages with
# dpkg-buildpackage -b in the tree itself. Each build replaces the files of
# the one before in $(DEB_DIR), not the other suites' directories below it.
deb:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
		{ echo "make deb: $(CURDIR) is not a git checkout (or git is missing): run dpkg-buildpackage -b --no-sign in it instead" >&2; exit 1; }
	rm -rf $(DEB_DIR)/src
	mkdir -p $(DEB_DIR)/src
	find $(DEB_DIR) -maxdepth 1 -type f -delete
	git ls-files -d >$(DEB_DIR)/deleted
	git ls-files -co --exclude-standard | grep -vxF -f $(DEB_DIR)/deleted | \
		xargs -d '\n' cp -P --parents -t $(DEB_DIR)/src
	rm $(DEB_DIR)/deleted
ifneq ($(DEB_VERSION),)
	sed -i 's/^\(#define THPCOW_VERSION[[:space:]]*\)".*"$$/\1"$(DEB_VERSION)"/' $(DEB_DIR)/src/include/uapi/thpcow.h
	{ printf 'thpcow ($(DEB_VERSION)) unstable; urgency=medium\n\n  * %s as %s (make deb DEB_VERSION=).\n\n -- %s  %s\n\n' \
		$(VERSION) $(DEB_VERSION) "$$(dpkg-parsechangelog -S Maintainer)" "$$(date -R)"; cat debian/changelog; } \
		>$(DEB_DIR)/src/debian/changelog
endif
	$(if $(SUITE),vm/debbuild $(SUITE) $(DEB_DIR),cd $(DEB_DIR)/src && dpkg-buildpackage -b --no-sign)
	rm -rf $(DEB_DIR)/src
	@ls $(DEB_DIR)/*.deb

# rpmbuild -ba from a tarball of the tree's sources (as make deb copies them:
# a git checkout needed), BuildRequires not checked against an RPM database
# (a Debian host has none): the RPMs and the SRPM land in $(RPM_DIR).
rpm:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
		{ echo "make rpm: $(CURDIR) is not a git checkout (or git is missing)" >&2; exit 1; }
	@command -v rpmbuild >/dev/null || { echo "make rpm: no rpmbuild (Debian: apt-get install rpm)" >&2; exit 1; }
	rm -rf $(RPM_DIR)
	mkdir -p $(RPM_DIR)/SOURCES
	git ls-files -d >$(RPM_DIR)/deleted
	git ls-files -co --exclude-standard | grep -vxF -f $(RPM_DIR)/deleted | LC_ALL=C sort | \
		tar -czf $(RPM_DIR)/SOURCES/thpcow-$(VERSION).tar.gz --transform 's,^,thpcow-$(VERSION)/,' -T -
	rm $(RPM_DIR)/deleted
	rpmbuild -ba --nodeps --define '_topdir $(abspath $(RPM_DIR))' --define 'thpcow_version $(VERSION)' \
		rpm/thpcow.spec
	@find $(RPM_DIR)/RPMS $(RPM_DIR)/SRPMS -name '*.rpm' | sort
