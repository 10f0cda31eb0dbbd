#!/usr/bin/env bash
# check-deps.sh - lib/cc must depend on nothing but libm and libc memory functions: no clock,
# no random numbers, no sockets, no GLib (the core is "time in, decisions out").
# Usage: check-deps.sh LIBAMCC_A [NM]. Prints "# amtest: checks=N failures=M".
set -uo pipefail
lib=${1:?usage: check-deps.sh libamcc.a [nm]}
nm=${2:-nm}
checks=0; failures=0
check () {   # check COND-STATUS MESSAGE
  checks=$((checks + 1))
  if [ "$1" -ne 0 ]; then failures=$((failures + 1)); echo "FAIL $2"; else echo "ok   $2"; fi
}

defined=$("$nm" -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
undef=$("$nm" -u "$lib" | awk '$1 == "U" { print $2 }' | sort -u)
[ -n "$defined" ]; check $? "$lib defines symbols (nm works)"
# external = used but not defined in the archive; compiler/sanitizer runtime (__*) and the GOT
# are not dependencies of the code
external=$(comm -23 <(printf '%s\n' "$undef") <(printf '%s\n' "$defined") \
  | grep -v -e '^__' -e '^_GLOBAL_OFFSET_TABLE_$' -e '^$' || true)
echo "# external symbols: $(echo $external)"

forbidden='clock_gettime gettimeofday time clock clock_getres ftime times rand random srand
  srandom rand_r drand48 lrand48 getrandom arc4random socket bind connect send sendto sendmsg
  recv recvfrom recvmsg select poll getaddrinfo pthread_create sleep usleep nanosleep
  getenv fopen printf fprintf puts abort exit'
for f in $forbidden; do
  ! printf '%s\n' "$external" | grep -qx "$f"; check $? "no $f"
done
! printf '%s\n' "$external" | grep -q '^g_\|^gst_\|^G_'; check $? "no GLib/GStreamer symbol"

# everything else must be libc memory management or libm
allowed='^(malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|sqrt|exp|expm1|exp2|log|log1p|log2|log10|pow|fmin|fmax|fabs|floor|ceil|round|lround|llround|trunc|isnan|isinf|nan)$'
unknown=$(printf '%s\n' "$external" | grep -Ev "$allowed" || true)
[ -z "$unknown" ]; check $? "only libm and libc memory functions (unknown: ${unknown//$'\n'/ })"

echo "# amtest: checks=$checks failures=$failures"
[ "$failures" -eq 0 ]
