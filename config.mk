# Build configuration; override on the command line (make CC=clang ...).
PREFIX    = /usr/local
MANPREFIX = $(PREFIX)/share/man

CC       ?= cc
AR       ?= ar
RANLIB   ?= ranlib
PROTOC_C ?= protoc-c
PKG_CONFIG ?= pkg-config

# CFLAGS is the user's (optimisation, debugging); the language standard and
# the warnings every build must pass are kept apart, so that
# `make CFLAGS=-O0` cannot drop them.  Warnings are errors only when
# WERROR=-Werror (CI, .ci/run, and developers, as git's DEVELOPER=1): a
# user's or packager's compiler with other flags may warn where ours does
# not (gcc 12's -Wformat-overflow under -fsanitize), and that must not
# break their build.
CFLAGS   ?= -O2 -g
WERROR   ?=
STDCFLAGS = -std=c11 -Wall -Wextra $(WERROR)
NSJ_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
SANFLAGS  = -O1 -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all

PKGS      = libzip liblzma libprotobuf-c zlib libzstd sqlite3 jansson
NSJ_CPPFLAGS += $(shell $(PKG_CONFIG) --cflags $(PKGS))
NSJ_LDLIBS = $(shell $(PKG_CONFIG) --libs $(PKGS)) -lsnappy -lcsv -lm -pthread
