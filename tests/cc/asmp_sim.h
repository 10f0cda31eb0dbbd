/* asmp_sim.h - a small packet-level simulator for ASMP scenario tests: drop-tail links
 * (capacity, buffer, base delay), synthetic clocks, RTCP reports every second and an RTT echo in
 * every SR. All times are multiples of 100 us so that 90 kHz RTP timestamps are exact (9 ticks)
 * and delay variation is only the queue's. Included by the scenario tests (static functions). */
#ifndef ASMP_SIM_H
#define ASMP_SIM_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amtest.h"
#include "amcc/asmp.h"
#include "amcc/tcpmodel.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S
#define Q (100 * AMCC_NS_PER_US)       /* time quantum */
#define P 1000                          /* packet size, bytes */
#define FIFO 8192
#define MAXREP 512

typedef struct { amcc_time arr, send; uint16_t seq; } pkt;

typedef struct node {
  amcc_asmp_receiver rx;
  uint32_t ssrc;
  double cap_bps;                /* 0 = no bottleneck */
  int buffer_pkts;
  amcc_time base, free_at;
  amcc_time join, leave;         /* receives and reports in [join, leave) */
  amcc_time drop_from, drop_to;  /* every 10th packet dropped in this window */
  pkt fifo[FIFO];
  int head, tail;
  amcc_time next_report;
  amcc_time first_loss;          /* first drop at the link, or -1 */
  uint64_t bytes_in_window;      /* delivered in [win_from, win_to) */
  int nrep;
  amcc_asmp_report rep[MAXREP];
  amcc_time rep_t[MAXREP];
} node;

typedef struct sim {
  amcc_asmp_params p;
  amcc_asmp_sender *tx;
  node *n;
  int nn;
  amcc_time now, next_send, next_sr;
  uint32_t seq;
  double fixed_rate;             /* > 0: the sender ignores ASMP (scenario C) */
  amcc_time fixed_switch;        /* at this time fixed_rate becomes fixed_rate2 */
  double fixed_rate2;
  amcc_time win_from, win_to;
  double tx_rate_sum;            /* sender rate sampled every ms in the window */
  int tx_rate_n;
} sim;

static amcc_time
ceil_q (double seconds)
{
  amcc_time t = (amcc_time) ceil (seconds * 1e9 / (double) Q - 1e-9);
  return (t < 1 ? 1 : t) * Q;
}

static void
sim_init (sim *s, node *n, int nn, const amcc_asmp_params *p)
{
  memset (s, 0, sizeof *s);
  s->p = *p;
  s->tx = amcc_asmp_sender_new (p, 0);
  s->n = n;
  s->nn = nn;
  for (int i = 0; i < nn; i++) {
    amcc_asmp_receiver_init (&n[i].rx, p, 90000);
    n[i].ssrc = 0x1000 + (uint32_t) i;
    n[i].first_loss = -1;
    n[i].next_report = n[i].join + SEC + (amcc_time) i * 7 * MS;   /* staggered */
    if (n[i].leave == 0)
      n[i].leave = INT64_MAX;
  }
  s->next_sr = 500 * MS;
}

static double
tx_rate (sim *s, amcc_time t)
{
  if (s->fixed_rate > 0)
    return (s->fixed_switch && t >= s->fixed_switch) ? s->fixed_rate2 : s->fixed_rate;
  return amcc_asmp_sender_rate (s->tx, t);
}

static void
emit (sim *s, amcc_time t)
{
  for (int i = 0; i < s->nn; i++) {
    node *x = &s->n[i];
    if (t < x->join || t >= x->leave)
      continue;
    if (t >= x->drop_from && t < x->drop_to && s->seq % 10 == 0)
      continue;
    amcc_time arr = t + x->base;
    if (x->cap_bps > 0) {
      amcc_time service = ceil_q (8.0 * P / x->cap_bps);
      if (x->free_at - t > (amcc_time) x->buffer_pkts * service) {    /* drop-tail */
        if (x->first_loss < 0)
          x->first_loss = t;
        continue;
      }
      x->free_at = (x->free_at > t ? x->free_at : t) + service;
      arr = x->free_at + x->base;
    }
    x->fifo[x->tail % FIFO] = (pkt) { arr, t, (uint16_t) s->seq };
    x->tail++;
  }
  s->seq++;
}

static void
sim_run (sim *s, amcc_time until)
{
  for (; s->now <= until; s->now += MS) {
    amcc_time t = s->now;
    if (s->next_send == 0)
      s->next_send = Q;
    while (s->next_send <= t) {
      emit (s, s->next_send);
      s->next_send += ceil_q (8.0 * P / tx_rate (s, s->next_send));
    }
    for (int i = 0; i < s->nn; i++) {
      node *x = &s->n[i];
      while (x->head != x->tail && x->fifo[x->head % FIFO].arr <= t) {
        pkt *k = &x->fifo[x->head % FIFO];
        amcc_asmp_receiver_on_rtp (&x->rx, k->arr, k->seq, amcc_time_to_rtp_units (k->send, 90000),
            k->send, P);
        if (k->arr >= s->win_from && k->arr < s->win_to)
          x->bytes_in_window += P;
        x->head++;
      }
      if (t >= x->join && t < x->leave && x->next_report <= t) {
        amcc_asmp_report r;
        amcc_asmp_receiver_make_report (&x->rx, t, &r);
        amcc_asmp_sender_on_report (s->tx, t, x->ssrc, &r);
        /* eq. 9 at the sender: the true RTT (base both ways + the standing queue) */
        amcc_time queue = x->free_at > t ? x->free_at - t : 0;
        amcc_asmp_sender_on_report_block (s->tx, t, x->ssrc, 2 * x->base + queue);
        if (x->nrep < MAXREP) {
          x->rep[x->nrep] = r;
          x->rep_t[x->nrep++] = t;
        }
        x->next_report += SEC;
      }
    }
    if (s->next_sr <= t) {
      amcc_asmp_echo_entry e[16];
      size_t ne = amcc_asmp_sender_fill_echo (s->tx, t, e, 16);
      for (size_t j = 0; j < ne; j++)
        for (int i = 0; i < s->nn; i++)
          if (s->n[i].ssrc == e[j].ssrc && t < s->n[i].leave)
            amcc_asmp_receiver_on_rtt_echo (&s->n[i].rx, t, e[j].rtt);
      s->next_sr += SEC;
    }
    if (t >= s->win_from && t < s->win_to) {
      s->tx_rate_sum += tx_rate (s, t);
      s->tx_rate_n++;
    }
  }
}

static void
base_params (amcc_asmp_params *p)
{
  amcc_asmp_params_init (p);
  amcc_asmp_params_single_regime (p);
  p->receiver_timeout = 3 * SEC;        /* 3 RTCP intervals of 1 s (spec/asmp.md) */
}

#endif
