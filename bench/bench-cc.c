/* bench-cc - cost of the ASMP core: sender per receiver report (1 000 and 10 000 receivers) and
 * receiver per RTP packet, loss-event detection per packet, each next to a baseline measured in
 * the same run.
 * Not a test: prints figures. Targets: report < 1 us at 10 000 receivers (O(log n)), packet
 * < 100 ns. Usage: bench-cc [iterations-scale, default 1] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "amcc/asmp.h"
#include "amcc/loss.h"

#define NRAND (1u << 20)

static volatile double sink;
static uint32_t *idx;
static double *rates;

static double
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
make_random (uint32_t n)
{
  uint32_t x = 12345;
  for (uint32_t i = 0; i < NRAND; i++) {
    x = x * 1664525u + 1013904223u;
    idx[i] = (x >> 4) % n;
    x = x * 1664525u + 1013904223u;
    rates[i] = 100e3 + (double) (x >> 8);
  }
}

/* Baseline 1: the loop's own cost (same array reads, no ASMP). */
static double
bench_empty (long iters)
{
  double t0 = now_ns (), acc = 0;
  for (long i = 0; i < iters; i++)
    acc += rates[i & (NRAND - 1)] + idx[i & (NRAND - 1)];
  sink = acc;
  return (now_ns () - t0) / iters;
}

/* Baseline 2: the naive sender: store the rate in an array, then scan all n for the minimum. */
static double
bench_scan (uint32_t n, long iters)
{
  double *table = malloc (n * sizeof *table);
  for (uint32_t i = 0; i < n; i++)
    table[i] = 1e9;
  double t0 = now_ns (), acc = 0;
  for (long i = 0; i < iters; i++) {
    table[idx[i & (NRAND - 1)]] = rates[i & (NRAND - 1)];
    double m = table[0];
    for (uint32_t k = 1; k < n; k++)
      m = table[k] < m ? table[k] : m;
    acc += m;
  }
  sink = acc;
  free (table);
  return (now_ns () - t0) / iters;
}

/* The ASMP sender: report + eq. 1 rate. churn: receivers time out and rejoin continuously (the
 * timeout covers about half of them), so inserts, expiries and removals are part of the cost. */
static double
bench_sender (uint32_t n, long iters, int churn, uint32_t *live_end)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.min_rate_bps = 1;
  p.max_rate_bps = 1e12;
  p.receiver_timeout = churn ? (amcc_time) n / 2 * 1000 : 1000 * AMCC_NS_PER_S;
  amcc_asmp_sender *tx = amcc_asmp_sender_new (&p, 0);
  amcc_asmp_report r = { 0 };
  for (uint32_t i = 0; i < n; i++) {
    r.rate_bps = 1e9;
    amcc_asmp_sender_on_report (tx, 0, i, &r);
  }
  double t0 = now_ns (), acc = 0;
  for (long i = 0; i < iters; i++) {
    amcc_time t = churn ? (amcc_time) i * 1000 : 0;
    r.rate_bps = rates[i & (NRAND - 1)];
    amcc_asmp_sender_on_report (tx, t, idx[i & (NRAND - 1)], &r);
    acc += amcc_asmp_sender_rate (tx, t);
  }
  double ns = (now_ns () - t0) / iters;
  sink = acc;
  amcc_asmp_sender_stats st;
  amcc_asmp_sender_get_stats (tx, &st);
  *live_end = st.receivers;
  amcc_asmp_sender_free (tx);
  return ns;
}

/* The ASMP receiver per RTP packet (seq, jitter, cumulative jitter, one-way delay, sizes),
 * with 1 % loss and a report every 1000 packets (its cost spread over them). */
static double
bench_receiver (long iters, double *report_share)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_asmp_report rep;
  double t0 = now_ns (), rep_ns = 0;
  for (long i = 0; i < iters; i++) {
    amcc_time send = (amcc_time) i * AMCC_NS_PER_MS;
    if (i % 100 != 37)
      amcc_asmp_receiver_on_rtp (&rx, send + 20 * AMCC_NS_PER_MS + (i % 7) * 1000, (uint16_t) i,
          (uint32_t) (i * 90), send, 1200);
    if (i % 1000 == 999) {
      double r0 = now_ns ();
      amcc_asmp_receiver_make_report (&rx, send + 21 * AMCC_NS_PER_MS, &rep);
      rep_ns += now_ns () - r0;
    }
  }
  double ns = (now_ns () - t0) / iters;
  sink = rep.rate_bps;
  *report_share = rep_ns / iters;
  return ns;
}

/* Loss-event detection per packet (RFC 5348 5.1, the TFMCC receiver's loss path) on a trace with
 * 1 % loss in bursts of 1-5 and 2 % of packets displaced by up to 5; baseline: RFC 3550 sequence
 * tracking alone on the same trace. */
static double
bench_loss_events (long iters, double *seq_ns, uint64_t *lost)
{
  uint64_t *trace = malloc ((size_t) iters * sizeof *trace);
  long n = 0;
  uint32_t x = 777;
  for (uint64_t s = 0; n < iters; s++) {
    x = x * 1664525u + 1013904223u;
    if ((x >> 8) % 500 < 2) {
      s += (x >> 4) % 5;              /* a burst of 1..5 */
      continue;
    }
    trace[n++] = s;
  }
  for (long i = 0; i + 6 < n; i++) {
    x = x * 1664525u + 1013904223u;
    if ((x >> 8) % 50 == 0) {
      long j = i + 1 + (long) ((x >> 4) % 5);
      uint64_t t = trace[i];
      for (long k = i; k < j; k++)
        trace[k] = trace[k + 1];
      trace[j] = t;
    }
  }
  amcc_seq sq;
  amcc_seq_init (&sq);
  double t0 = now_ns ();
  for (long i = 0; i < n; i++)
    amcc_seq_update (&sq, (uint16_t) trace[i], NULL);
  *seq_ns = (now_ns () - t0) / n;
  amcc_loss_events e;
  amcc_loss_events_init (&e);
  t0 = now_ns ();
  for (long i = 0; i < n; i++)
    amcc_loss_events_on_packet (&e, (amcc_time) i * AMCC_NS_PER_MS, trace[i], 50 * AMCC_NS_PER_MS);
  double ns = (now_ns () - t0) / n;
  *lost = e.lost;
  free (trace);
  return ns;
}

int
main (int argc, char **argv)
{
  double scale = argc > 1 ? atof (argv[1]) : 1.0;
  if (!(scale > 0))
    scale = 1.0;
  idx = malloc (NRAND * sizeof *idx);
  rates = malloc (NRAND * sizeof *rates);
  if (!idx || !rates)
    return 1;
  long iters = (long) (2000000 * scale);
  printf ("bench-cc: ASMP sender cost per receiver report (on_report + eq. 1 rate), %ld reports\n", iters);
  printf ("%-10s %12s %12s %12s %14s %12s\n", "receivers", "asmp ns", "churn ns", "empty ns",
      "array-scan ns", "scan/asmp");
  double at[2] = { 0, 0 };
  uint32_t ns_[2] = { 1000, 10000 };
  for (int k = 0; k < 2; k++) {
    uint32_t n = ns_[k], live = 0, live2 = 0;
    make_random (n);
    double e = bench_empty (iters);
    double a = bench_sender (n, iters, 0, &live);
    double c = bench_sender (n, iters, 1, &live2);
    double s = bench_scan (n, iters / (n / 100));      /* the O(n) scan: fewer iterations */
    at[k] = a;
    printf ("%-10u %12.1f %12.1f %12.1f %14.1f %12.1f   (live at end: %u, with churn %u)\n", n, a, c,
        e, s, s / a, live, live2);
  }
  printf ("growth 1 000 -> 10 000 receivers: x%.2f (O(log n) predicts about x%.2f, a scan x10)\n",
      at[1] / at[0], log2 (10000.0) / log2 (1000.0));
  printf ("target < 1000 ns/report at 10 000: %s\n", at[1] < 1000 ? "met" : "NOT met");
  long pk = (long) (5000000 * scale);
  double share = 0;
  double rx = bench_receiver (pk, &share);
  double e = bench_empty (pk);
  printf ("\nbench-cc: ASMP receiver cost per RTP packet, %ld packets (1 %% loss, report every 1000)\n", pk);
  printf ("asmp %.1f ns/packet (of which reports %.2f), empty loop %.1f ns, ratio %.1f\n", rx, share,
      e, rx / (e > 0 ? e : 1));
  printf ("target < 100 ns/packet: %s\n", rx < 100 ? "met" : "NOT met");
  double seq_ns = 0;
  uint64_t lost = 0;
  double le = bench_loss_events (pk, &seq_ns, &lost);
  printf ("\nbench-cc: loss-event detection per packet (3 later arrivals, RFC 5348 5.1), %ld packets "
      "(1 %% loss in bursts, 2 %% reordered; %llu declared lost)\n", pk, (unsigned long long) lost);
  printf ("loss events %.1f ns/packet, RFC 3550 seq tracking alone %.1f ns, ratio %.1f\n", le, seq_ns,
      le / (seq_ns > 0 ? seq_ns : 1));
  free (idx);
  free (rates);
  return 0;
}
