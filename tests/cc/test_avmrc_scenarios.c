/* test_avmrc_scenarios.c - AVMRC and RMRC through the controller interface on a simulated
 * dumbbell (papers/003 4.3, 5.1-5.2): a server sends the paper's 9 cumulative layers in bursts
 * every tau; a drop-tail FIFO bottleneck forwards a layer while any client behind it takes it
 * (joins and leaves act at once, as in ns-2); each client gets its layers after its own delay.
 * Deterministic (no random numbers): joins and RTTs are fixed values in the paper's ranges.
 *
 * Metrics as in 4.4: steady-state loss = packets dropped at the bottleneck / packets offered to
 * it, from when every client has left its start-up phase (n_startup slots after its join);
 * convergence = from the last join until every client holds the optimal level for good (from
 * then on never below it; failed additions above it show as loss). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/avmrc.h"
#include "amcc/controller.h"
#include "amtest.h"

#define MAXC 16
#define PKT 1000                        /* bytes, the paper's <= 1 KB */
#define TAU (100 * AMCC_NS_PER_MS)
#define D1 (5 * AMCC_NS_PER_MS)         /* server to bottleneck */
/* bytes of headers added to each packet on the link and in its size (IP/UDP 28): 0 here; the
 * sensitivity runs in lib/cc/README.md build this file with -DHDR=24 and -DHDR=28 */
#ifndef HDR
#define HDR 0
#endif
#define MAX_EVENTS (1 << 16)

typedef struct { amcc_time t; int client; uint32_t layer; uint16_t seq; uint32_t bytes, slot;
  int flagged; amcc_time sent; } delivery;

typedef struct {
  double link_bps;
  int buffer;                           /* packets */
  int nc;
  amcc_time join[MAXC], d2[MAXC];
  amcc_receiver *rx[MAXC];              /* through the controller interface, or */
  amcc_avmrc_rx *core[MAXC];            /* VMRC with beta 30 (not a registry entry) directly */
  uint32_t level[MAXC];
  /* bottleneck FIFO: departure times of the packets in it */
  amcc_time fifo[256];
  int head, len;
  amcc_time last_dep;
  /* deliveries, a binary heap on t */
  delivery *ev;
  int nev;
  uint16_t seq[AMCC_AVMRC_MAX_LAYERS];
  /* metrics */
  uint64_t offered, dropped, ss_offered, ss_dropped;
  /* bursts above the optimal level: the longest run of them and the steady-state drops in
   * them (a failed addition) or in bursts at or below it */
  int probe_run, probe_run_max;
  uint64_t ss_dropped_probe;
  amcc_time good_since;                 /* every client at the optimal level since, NONE = no */
  uint32_t optimal;
} sim;

static void
push (sim *s, delivery d)
{
  int i = s->nev++;
  if (s->nev > MAX_EVENTS)
    abort ();
  while (i > 0 && s->ev[(i - 1) / 2].t > d.t) {
    s->ev[i] = s->ev[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  s->ev[i] = d;
}

static delivery
pop (sim *s)
{
  delivery top = s->ev[0], last = s->ev[--s->nev];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= s->nev)
      break;
    if (c + 1 < s->nev && s->ev[c + 1].t < s->ev[c].t)
      c++;
    if (last.t <= s->ev[c].t)
      break;
    s->ev[i] = s->ev[c];
    i = c;
  }
  s->ev[i] = last;
  return top;
}

static void
sim_init (sim *s, const char *proto, int nc, const double *rtt_s, const double *join_s,
    double link_bps, int buffer, uint32_t optimal)
{
  amcc_ctl_config c;
  memset (s, 0, sizeof *s);
  s->ev = calloc (MAX_EVENTS, sizeof *s->ev);
  s->link_bps = link_bps;
  s->buffer = buffer;
  s->nc = nc;
  s->optimal = optimal;
  s->good_since = AMCC_TIME_NONE;
  amcc_ctl_config_init (&c);
  for (int i = 0; i < nc; i++) {
    s->join[i] = amcc_time_from_s (join_s[i]);
    s->d2[i] = amcc_time_from_s (rtt_s[i] / 2) - D1;
    c.ssrc = 100 + (uint32_t) i;
    if (strcmp (proto, "vmrc30") == 0 || strcmp (proto, "avmrc-paper") == 0) {
      amcc_avmrc_params p;
      if (proto[0] == 'v') {
        amcc_vmrc_params_init (&p, 30);
      } else {
        amcc_avmrc_params_init (&p);
        p.add_recp_check = 0;           /* the paper's rules for judging an addition */
      }
      s->core[i] = malloc (sizeof *s->core[i]);
      amcc_avmrc_rx_init (s->core[i], &p, NULL, 0);
    } else {
      s->rx[i] = amcc_receiver_new (amcc_protocol_find (proto), &c, 0);
    }
    s->level[i] = 0;                    /* not joined yet */
  }
}

static void
sim_free (sim *s)
{
  for (int i = 0; i < s->nc; i++) {
    amcc_receiver_free (s->rx[i]);
    free (s->core[i]);
  }
  free (s->ev);
}

static void
deliver (sim *s, const delivery *d)
{
  /* the stamp travels as the header extension's 16 bytes */
  amcc_avmrc_stamp tx = { .send_time = d->sent, .slot = d->slot, .flagged = d->flagged,
    .layer = d->layer }, rx;
  uint8_t ext[AMCC_AVMRC_STAMP_LEN];
  if (amcc_avmrc_stamp_encode (&tx, ext, sizeof ext) != AMCC_AVMRC_STAMP_LEN
      || amcc_avmrc_stamp_decode (&rx, ext, sizeof ext) != AMCC_OK)
    abort ();
  amcc_packet p = { .ssrc = 0x5000 + rx.layer, .seq = d->seq, .bytes = d->bytes,
    .send_time = rx.send_time, .has_slot = 1, .slot = rx.slot, .slot_flagged = rx.flagged,
    .layer = rx.layer };
  amcc_avmrc_rx *core = s->core[d->client];
  if (core) {
    amcc_avmrc_rx_on_packet (core, d->t, rx.layer, d->seq, d->bytes, &rx);
    s->level[d->client] = amcc_avmrc_rx_level (core);
    return;
  }
  amcc_receiver_on_rtp (s->rx[d->client], d->t, &p);
  s->level[d->client] = amcc_receiver_wanted_layers (s->rx[d->client]);
}

/* the burst of slot k reaches the bottleneck at t */
static void
burst (sim *s, uint32_t k, amcc_time t, int steady)
{
  uint32_t top = 0;
  int flagged;
  amcc_avmrc_clock clk;
  amcc_avmrc_params p;
  double cum[AMCC_AVMRC_PAPER_LAYERS];

  amcc_avmrc_params_init (&p);
  amcc_avmrc_clock_init (&clk, 0, &p);
  uint32_t slot = amcc_avmrc_clock_at (&clk, t - D1, &flagged);
  (void) k;
  amcc_avmrc_layer_rates (cum, AMCC_AVMRC_PAPER_LAYERS, AMCC_AVMRC_PAPER_B1_BPS,
      AMCC_AVMRC_PAPER_FACTOR);
  for (int i = 0; i < s->nc; i++) {
    if (t >= s->join[i] && s->level[i] == 0)
      s->level[i] = 1;                  /* joins the base layer */
    if (s->level[i] > top)
      top = s->level[i];
  }
  while (s->len && s->fifo[s->head] <= t) {
    s->head = (s->head + 1) % 256;
    s->len--;
  }
  s->probe_run = top > s->optimal ? s->probe_run + 1 : 0;
  if (steady && s->probe_run > s->probe_run_max)
    s->probe_run_max = s->probe_run;
  for (uint32_t j = 0; j < top; j++) {
    double bytes = (cum[j] - (j ? cum[j - 1] : 0)) * amcc_time_to_s (TAU) / 8.0;
    while (bytes > 0.5) {
      uint32_t b = bytes > PKT ? PKT : (uint32_t) (bytes + 0.5);
      bytes -= b;
      b += HDR;
      uint16_t seq = s->seq[j]++;
      s->offered++;
      s->ss_offered += steady;
      if (s->len >= s->buffer) {
        s->dropped++;
        s->ss_dropped += steady;
        s->ss_dropped_probe += steady && top > s->optimal;
        continue;
      }
      amcc_time start = s->last_dep > t ? s->last_dep : t;
      s->last_dep = start + (amcc_time) (b * 8.0 / s->link_bps * 1e9);
      s->fifo[(s->head + s->len++) % 256] = s->last_dep;
      for (int i = 0; i < s->nc; i++)
        if (j < s->level[i])
          push (s, (delivery) { .t = s->last_dep + s->d2[i], .client = i, .layer = j,
              .seq = seq, .bytes = b, .slot = slot, .flagged = flagged, .sent = t - D1 });
    }
  }
}

typedef struct {
  double ss_loss, conv_s, total_loss;
  double at_optimal;                    /* fraction of steady-state slots every client held it */
  uint32_t final_level[MAXC];
  uint64_t changes;
  int probe_run_max;                    /* longest run of bursts above the optimum (steady) */
  double ss_loss_probe;                 /* steady-state drops in those bursts / offered */
} result;

static result
run (sim *s, double seconds, int verbose)
{
  result r;
  amcc_time last_join = 0, end = amcc_time_from_s (seconds);
  memset (&r, 0, sizeof r);
  for (int i = 0; i < s->nc; i++)
    last_join = s->join[i] > last_join ? s->join[i] : last_join;
  amcc_time steady_from = last_join + 50 * TAU;        /* n_startup slots after the last join */
  uint64_t ss_slots = 0, ss_good = 0;
  for (uint32_t k = 0;; k++) {
    amcc_time tb = (amcc_time) k * TAU + D1;
    if (tb > end)
      break;
    while (s->nev && s->ev[0].t <= tb) {
      delivery d = pop (s);
      deliver (s, &d);
    }
    int good = 1;
    for (int i = 0; i < s->nc; i++)
      good &= s->level[i] >= s->optimal;
    int exact = 1;
    for (int i = 0; i < s->nc; i++)
      exact &= s->level[i] == s->optimal;
    if (tb >= steady_from) {
      ss_slots++;
      ss_good += exact;
    }
    if (!good)
      s->good_since = AMCC_TIME_NONE;
    else if (s->good_since == AMCC_TIME_NONE)
      s->good_since = tb;
    burst (s, k, tb, tb >= steady_from);
    if (verbose > 1 && s->rx[0]) {
      amcc_receiver_stats st;
      amcc_receiver_get_stats (s->rx[0], tb, &st);
      printf ("## t=%6.1f L=%u mode=%s lmin=%.0f p=%.5f dst=%.4f rtt=%.4f lost=%lld\n",
          amcc_time_to_s (tb), st.layers, st.mode, st.rate_bps, st.loss, st.queue_s, st.rtt_s,
          (long long) st.packets_lost);
    }
    if (verbose && k % 10 == 0) {
      printf ("# t=%5.1f", amcc_time_to_s (tb));
      for (int i = 0; i < s->nc; i++)
        printf (" L%d=%u", i, s->level[i]);
      printf (" q=%d drop=%llu\n", s->len, (unsigned long long) s->dropped);
    }
  }
  r.ss_loss = s->ss_offered ? (double) s->ss_dropped / (double) s->ss_offered : 0;
  r.at_optimal = ss_slots ? (double) ss_good / (double) ss_slots : 0;
  r.total_loss = s->offered ? (double) s->dropped / (double) s->offered : 0;
  r.ss_loss_probe = s->ss_offered ? (double) s->ss_dropped_probe / (double) s->ss_offered : 0;
  r.probe_run_max = s->probe_run_max;
  r.conv_s = s->good_since == AMCC_TIME_NONE ? -1
      : amcc_time_to_s ((s->good_since > last_join ? s->good_since : last_join) - last_join);
  for (int i = 0; i < s->nc; i++) {
    amcc_receiver_stats st;
    r.final_level[i] = s->level[i];
    if (s->core[i]) {
      r.changes += s->core[i]->adds + s->core[i]->drops;
      continue;
    }
    amcc_receiver_get_stats (s->rx[i], end, &st);
    r.changes += st.stream_ups + st.stream_downs;
  }
  return r;
}

static int verbose;

static void
report (const char *what, const char *proto, const result *r, int nc)
{
  printf ("# %s: %-6s levels", what, proto);
  for (int i = 0; i < nc; i++)
    printf (" %u", r->final_level[i]);
  printf (", steady-state loss %.3f %% (in bursts above the optimum %.3f %%; all %.3f %%), "
      "converged %.1f s, at the optimum %.1f %% of steady slots, %llu changes, at most %d "
      "bursts in a row above the optimum\n", 100 * r->ss_loss, 100 * r->ss_loss_probe,
      100 * r->total_loss, r->conv_s, 100 * r->at_optimal, (unsigned long long) r->changes,
      r->probe_run_max);
}

/* AVMRC and RMRC in the same network; returns through *ra / *rb */
static void
compare (const char *what, int nc, const double *rtt, const double *join, result *ra,
    result *rb)
{
  sim a, b;
  sim_init (&a, "avmrc", nc, rtt, join, 3e6, 80, 7);
  sim_init (&b, "rmrc", nc, rtt, join, 3e6, 80, 7);
  *ra = run (&a, 300, verbose);
  *rb = run (&b, 300, verbose);
  report (what, "AVMRC", ra, nc);
  report (what, "RMRC", rb, nc);
  sim_free (&a);
  sim_free (&b);
  /* VMRC, static alpha = beta = 6 and 30 (papers/003 5.4), the same network: reported */
  static const char *const vm[2] = { "vmrc", "vmrc30" };
  for (int v = 0; v < 2; v++) {
    sim c;
    sim_init (&c, vm[v], nc, rtt, join, 3e6, 80, 7);
    result rc = run (&c, 300, 0);
    report (what, vm[v], &rc, nc);
    sim_free (&c);
  }
  /* AVMRC with add_recp_check = 0 (3.3 alone judges an addition): the quick drop comes a slot
   * later, after a third 8-layer burst has overflowed the queue */
  sim c;
  sim_init (&c, "avmrc-paper", nc, rtt, join, 3e6, 80, 7);
  result rc = run (&c, 300, 0);
  report (what, "AVMRC, add_recp_check 0", &rc, nc);
  sim_free (&c);
  AMT_CHECK (rc.probe_run_max >= 3 && rc.ss_loss > 0 && rc.ss_loss == rc.ss_loss_probe);
}

/* Both settle on 7 layers (2916 kb/s fits 3 Mb/s, 4374 does not) and hold it; AVMRC converges
 * faster. With no loss p_lt shrinks and beta climbs toward beta_max (3.1), so AVMRC tries the
 * 8th layer at add slots ("periodic attempts to add a channel", 5.1). Each try puts at least two
 * 8-layer bursts on the link (the first is measured only after the second has left the server);
 * AVMRC is loss-free when it stops at two: 19 + 60 packets of the 80 (lib/cc/README.md "AVMRC").
 * RMRC, which sees the overload only by loss, loses. */
static void
check (int nc, const result *ra, const result *rb)
{
  for (int i = 0; i < nc; i++) {
    AMT_CHECK (ra->final_level[i] == 7);
    AMT_CHECK (rb->final_level[i] == 7);
  }
  AMT_CHECK (ra->at_optimal > 0.9);
  AMT_CHECK (ra->conv_s >= 0 && rb->conv_s >= 0);
  AMT_CHECK (ra->conv_s < 0.5 * rb->conv_s);            /* the paper: about a third */
  AMT_CHECK (rb->ss_loss > 0);                          /* RMRC finds its rate by loss */
  AMT_CHECK (ra->probe_run_max == 2);                   /* each try abandoned after 2 bursts */
  AMT_CHECK (ra->ss_loss == 0);                         /* the paper: 0 */
}

/* papers/003 5.1: one client, 3 Mb/s, 80-packet buffer, 100 ms RTT */
static void
test_one_client (void)
{
  double rtt[1] = { 0.100 }, join[1] = { 0.0 };
  result ra, rb;
  compare ("1 client", 1, rtt, join, &ra, &rb);
  check (1, &ra, &rb);
}

/* papers/003 5.2: clients with RTT 40-100 ms joining within 0-5 s behind the same bottleneck */
static void
test_four_clients (void)
{
  double rtt[4] = { 0.040, 0.060, 0.080, 0.100 }, join[4] = { 0.0, 1.3, 2.9, 4.7 };
  result ra, rb;
  compare ("4 clients", 4, rtt, join, &ra, &rb);
  check (4, &ra, &rb);
}

/* papers/003 5.1 as the paper draws it: 4 and 8 clients, RTT uniform in 40-100 ms, joins
 * uniform in 0-5 s, ten draws each (a fixed LCG: the same draws every run) */
static void
test_drawn_clients (void)
{
  uint32_t x = 12345;
  double worst_a = 0, worst_b = 1, ratio = 0;
  for (int nc = 4; nc <= 8; nc += 4) {
    for (int seed = 0; seed < 10; seed++) {
      double rtt[MAXC], join[MAXC];
      for (int i = 0; i < nc; i++) {
        x = x * 1103515245u + 12345u;
        rtt[i] = 0.040 + 0.060 * (double) (x >> 8) / (double) (1u << 24);
        x = x * 1103515245u + 12345u;
        join[i] = 5.0 * (double) (x >> 8) / (double) (1u << 24);
      }
      sim a, b;
      sim_init (&a, "avmrc", nc, rtt, join, 3e6, 80, 7);
      sim_init (&b, "rmrc", nc, rtt, join, 3e6, 80, 7);
      result ra = run (&a, 300, 0), rb = run (&b, 300, 0);
      sim_free (&a);
      sim_free (&b);
      char what[32];
      snprintf (what, sizeof what, "%d clients, draw %d", nc, seed);
      if (verbose) {
        report (what, "AVMRC", &ra, nc);
        report (what, "RMRC", &rb, nc);
      }
      for (int i = 0; i < nc; i++)
        AMT_CHECK (ra.final_level[i] == 7);
      AMT_CHECK (ra.probe_run_max <= 2);
      worst_a = ra.ss_loss > worst_a ? ra.ss_loss : worst_a;
      worst_b = rb.ss_loss < worst_b ? rb.ss_loss : worst_b;
      if (rb.conv_s > 0 && ra.conv_s >= 0 && ra.conv_s / rb.conv_s > ratio)
        ratio = ra.conv_s / rb.conv_s;
    }
  }
  printf ("# 20 draws: AVMRC steady-state loss at most %.3f %%, RMRC at least %.3f %%, "
      "convergence AVMRC / RMRC at most %.2f\n", 100 * worst_a, 100 * worst_b, ratio);
  AMT_CHECK (worst_a < 0.0002);         /* measured 0.006 % in 1 of 20 draws, 0 in 19 */
  AMT_CHECK (worst_b > 0.001);          /* measured 0.117 % at least */
}

int
main (int argc, char **argv)
{
  verbose = argc > 1 && strcmp (argv[1], "-v") == 0 ? 1
      : argc > 1 && strcmp (argv[1], "-vv") == 0 ? 2 : 0;
  AMT_RUN (test_one_client);
  AMT_RUN (test_four_clients);
  AMT_RUN (test_drawn_clients);
  return amt_summary ();
}
