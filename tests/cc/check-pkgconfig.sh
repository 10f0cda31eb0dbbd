#!/usr/bin/env bash
# check-pkgconfig.sh - libamcc installs as a library an out-of-tree program (the ns-3 harness)
# builds against with `pkg-config --cflags --libs amcc` alone: install the 'devel' files into a
# scratch DESTDIR, compile a program that drives ASMP and TFMCC through the controller interface,
# run it. Usage: check-pkgconfig.sh BUILD_DIR PREFIX LIBDIR. Prints "# amtest: checks=N failures=M".
set -uo pipefail
build=${1:?usage: check-pkgconfig.sh BUILD_DIR PREFIX LIBDIR}; prefix=$2; libdir=$3
checks=0; failures=0
check () {   # check STATUS MESSAGE
  checks=$((checks + 1))
  if [ "$1" -ne 0 ]; then failures=$((failures + 1)); echo "FAIL $2"; else echo "ok   $2"; fi
}
finish () { echo "# amtest: checks=$checks failures=$failures"; exit $((failures > 0)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet --tags devel >"$tmp/log" 2>&1
check $? "meson install --tags devel (log: $(tail -1 "$tmp/log"))"
export PKG_CONFIG_PATH="$tmp/root$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
flags=$(pkg-config --cflags --libs --static amcc 2>&1)
check $? "pkg-config finds amcc ($flags)"
[ "$checks" -eq "$failures" ] && finish

cat >"$tmp/drive.c" <<'C'
#include <amcc/controller.h>
#include <stdio.h>
int main (void)
{
  size_t i;
  for (i = 0; i < amcc_protocol_count (); i++) {
    const amcc_protocol *p = amcc_protocol_at (i);
    amcc_ctl_config c;
    amcc_sender *s;
    amcc_receiver *r;
    amcc_ctl_config_init (&c);
    if (p->max_layers) {          /* receiver-driven layered (AVMRC): the receiver decides */
      if (p->sender || !(r = amcc_receiver_new (p, &c, 0)))
        return 1;
      printf ("%s %u\n", p->name, amcc_receiver_wanted_layers (r));
      amcc_receiver_free (r);
      continue;
    }
    if (!p->sender) {                     /* relay-only (RMANP) */
      amcc_relay *rl;
      if (!p->relay || !(rl = amcc_relay_new (p, &c, 0)))
        return 1;
      printf ("%s relay\n", p->name);
      amcc_relay_free (rl);
      continue;
    }
    if (!(s = amcc_sender_new (p, &c, 0)))
      return 1;
    printf ("%s %.0f\n", p->name, amcc_sender_rate (s, 0));
    amcc_sender_free (s);
  }
  return amcc_protocol_find ("asmp") && amcc_protocol_find ("tfmcc") ? 0 : 2;
}
C
# shellcheck disable=SC2086 # flags are words
${CC:-cc} -std=c11 -o "$tmp/drive" "$tmp/drive.c" $flags >"$tmp/cc.log" 2>&1
check $? "an out-of-tree program compiles and links with those flags alone$( [ -s "$tmp/cc.log" ] && echo ": $(head -3 "$tmp/cc.log")")"
out=$("$tmp/drive" 2>&1)
check $? "it drives every registered protocol's sender (a layered one's receiver, a relay-only one's relay): $(echo $out)"
finish
