# Build configuration; override on the command line (make CC=clang ...).
PREFIX    = /usr/local
MANPREFIX = $(PREFIX)/share/man

CC       ?= cc
AR       ?= ar
RANLIB   ?= ranlib
PROTOC_C ?= protoc-c
PKG_CONFIG ?= pkg-config

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
SANFLAGS  = -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

PKGS      = libzip liblzma libprotobuf-c zlib libzstd
CPPFLAGS += $(shell $(PKG_CONFIG) --cflags $(PKGS))
LDLIBS   += $(shell $(PKG_CONFIG) --libs $(PKGS)) -lsnappy -lcsv -lm -pthread
