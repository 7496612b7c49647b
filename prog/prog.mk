# SPDX-License-Identifier: GPL-2.0
# prog.mk: how the C programs of prog/, bench/prog and tests/prog are built;
# each of their Makefiles includes it. PROG_DIR is prog/, whose prog.h they
# all use (-I$(PROG_DIR)).

PROG_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

CC	?= cc
CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Werror -std=gnu11 -I$(PROG_DIR)
# static when glibc's static libraries are there (the guest then needs
# nothing from the host's /usr/lib); dynamic otherwise
STATIC	:= $(shell echo 'int main(void){return 0;}' | \
	     $(CC) -static -x c -o /dev/null - 2>/dev/null && echo -static)
LDFLAGS	+= $(STATIC)
