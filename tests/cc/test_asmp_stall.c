/* test_asmp_stall.c - an ASMP receiver whose application stalls (issue 8: a loaded machine
 * deschedules the receiving process for 100-400 ms; the packets wait in the socket buffer and
 * are read as one burst, so their arrival times bunch and the bytes between two reports read low
 * before a burst and high after it). Nothing is lost to the stalls: the same packets arrive,
 * only later. Such a receiver must stay out of COMPETING and report about the path's rate
 * (recv_least_delay, lib/cc/README.md). First the measurement by hand, then a closed loop: the
 * sender sends what was last reported, paced, 1000-byte packets, 1.3 x for the first 200 ms of
 * each 1 s GOP (a key frame) and 0.925 x after, through a drop-tail link of 600 kbit/s with a
 * 100 ms buffer (the testbed's tbf default) and 20 ms each way (net-rtcp-loss's slow
 * receiver), a report every 500 ms and the true RTT echoed every second.
 * Run with -v [SEED] to print every report of one seed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "amtest.h"
#include "amcc/asmp.h"

#define MS AMCC_NS_PER_MS
#define US AMCC_NS_PER_US
#define SEC AMCC_NS_PER_S
#define PKT 1000
#define CAP_Bps 75000.0                 /* 600 kbit/s */
#define BUFFER 7                        /* packets queued beyond the one in service: 100 ms */
#define SEEDS 10
#define BASE (20 * MS)
#define RTCP (500 * MS)
#define RUN_S 60
#define FIFO 1024

static int verbose;

typedef struct {
  amcc_time s0, s1;                     /* the application reads nothing in [s0, s1) */
} stall;

/* stalls of 100-400 ms with 0.2-1.2 s of normal reading between them, from a fixed LCG so
 * the run is the same every time; n = 0: none */
static int
make_stalls (stall *st, int max, uint32_t seed)
{
  int n = 0;
  amcc_time t = 2 * SEC;
  while (n < max && t < RUN_S * SEC) {
    seed = seed * 1664525u + 1013904223u;
    amcc_time len = (100 + (amcc_time) (seed >> 8) % 301) * MS;
    seed = seed * 1664525u + 1013904223u;
    amcc_time gap = (200 + (amcc_time) (seed >> 8) % 1001) * MS;
    st[n].s0 = t;
    st[n].s1 = t + len;
    n++;
    t += len + gap;
  }
  return n;
}

/* when the application reads a packet that reached its socket at t */
static amcc_time
read_time (const stall *st, int n, amcc_time t)
{
  for (int i = 0; i < n; i++)
    if (t >= st[i].s0 && t < st[i].s1)
      return st[i].s1;
  return t;
}

/* the sending process stopped in [p0, p1) (SIGSTOP-like): what it would have sent then leaves
 * at p1 at once, the backlog x264 catches up on; p0 = p1: never. send_gap_s: the receivers'. */
static struct { amcc_time p0, p1; double send_gap_s, burst_cut_max; } pause = { 0, 0, 0.3, 0.2 };

typedef struct {
  double after_pause;                   /* mean reported rate over 10 s from the pause's end */
  int reports, competing;               /* competing: reports in COMPETING, from the start */
  double lo, hi;                        /* least and most reported rate after the warm-up, bit/s */
  int out_of_band;                      /* reports after the warm-up outside [0.7, 1.15] x C */
  double mean;                          /* mean reported rate after the warm-up, bit/s */
  uint32_t lost;                        /* packets the link dropped */
} outcome;

/* stall_reports 0: the report timer runs on (another thread); 1: it stalls too (the whole
 * process is descheduled) and reports at the stall's end before the burst is read; 2: amid the
 * burst, after its first 6 packets */
static outcome
run (int least_delay, int with_stalls, int stall_reports, uint32_t seed)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.initial_rate_bps = 300e3;
  p.recv_least_delay = least_delay;
  p.send_gap_s = pause.send_gap_s;
  p.burst_cut_max = pause.burst_cut_max;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  stall st[256];
  int ns = with_stalls ? make_stalls (st, 256, seed) : 0;
  struct { amcc_time read, send; uint16_t seq; } q[FIFO];
  int head = 0, tail = 0;
  const amcc_time service = (amcc_time) (PKT / CAP_Bps * 1e9);
  amcc_time free_at = 0, next_send = 0, next_report = RTCP, next_echo = SEC, last_read = 0;
  double rate_bps = p.initial_rate_bps, sum = 0, sum_after = 0;
  int n_after = 0;
  uint16_t seq = 0;
  outcome o = { 0, 0, 0, 1e12, 0, 0, 0, 0 };
  for (amcc_time now = 0; now < RUN_S * SEC; now += 100 * US) {
    while (next_send <= now) {          /* the sender, paced at the last reported rate */
      amcc_time sent = next_send >= pause.p0 && next_send < pause.p1 ? pause.p1 : next_send;
      if (free_at - sent > BUFFER * service)
        o.lost++;                       /* drop-tail */
      else {
        free_at = (free_at > sent ? free_at : sent) + service;
        amcc_time t = read_time (st, ns, free_at + BASE);
        if (t <= last_read)
          t = last_read + 10 * US;      /* a burst is read in order, 10 us a packet */
        last_read = t;
        q[tail % FIFO].read = t;
        q[tail % FIFO].send = sent;
        q[tail % FIFO].seq = seq;
        tail++;
      }
      seq++;
      /* a key frame: 1.3 x the rate for the first 200 ms of each 1 s GOP, 0.925 x after */
      double gop = (next_send % SEC) < 200 * MS ? 1.3 : 0.925;
      next_send += (amcc_time) (8.0 * PKT / (gop * rate_bps) * 1e9);
    }
    amcc_time report_at = next_report;
    if (stall_reports) {
      report_at = read_time (st, ns, next_report);
      if (stall_reports == 2 && report_at != next_report)
        report_at += 55 * US;           /* amid the burst: after its first 6 packets */
    }
    int report = report_at <= now;
    while (head != tail && q[head % FIFO].read <= now
        && !(report && q[head % FIFO].read >= report_at)) {     /* read before the report */
      amcc_asmp_receiver_on_rtp (&rx, q[head % FIFO].read, q[head % FIFO].seq,
          (uint32_t) amcc_time_to_rtp_units (q[head % FIFO].send, 90000), q[head % FIFO].send, PKT);
      head++;
    }
    if (report) {
      amcc_asmp_report r;
      amcc_asmp_receiver_make_report (&rx, report_at, &r);
      rate_bps = r.rate_bps;
      if (verbose)
        printf ("%7.3f rate %7.0f mode %d q %5.1f ms loss %.4f recv %7.0f knee %7.0f ev %llu\n",
            amcc_time_to_s (report_at), r.rate_bps, r.mode, 1e3 * r.queue_s, r.loss,
            8 * rx.recv_Bps, 8 * rx.knee_Bps, (unsigned long long) rx.ev.events);
      o.competing += r.mode == AMCC_ASMP_COMPETING;
      if (report_at >= 10 * SEC) {
        o.reports++;
        o.lo = fmin (o.lo, r.rate_bps);
        o.hi = fmax (o.hi, r.rate_bps);
        o.out_of_band += r.rate_bps < 0.7 * 8 * CAP_Bps || r.rate_bps > 1.15 * 8 * CAP_Bps;
        sum += r.rate_bps;
      }
      if (pause.p1 > pause.p0 && report_at >= pause.p1 && report_at < pause.p1 + 10 * SEC) {
        sum_after += r.rate_bps;
        n_after++;
      }
      next_report += RTCP;
    }
    if (next_echo <= now) {
      amcc_time queue = free_at > now ? free_at - now : 0;
      amcc_asmp_receiver_on_rtt_echo (&rx, now, 2 * BASE + queue);
      next_echo += SEC;
    }
  }
  o.mean = o.reports ? sum / o.reports : 0;
  o.after_pause = n_after ? sum_after / n_after : 0;
  return o;
}

static void
print_outcome (const char *what, const outcome *o)
{
  printf ("# %-28s reports %d competing %d rate %.0f-%.0f mean %.0f bit/s, %d out of band, "
      "%u lost\n", what, o->reports, o->competing, o->lo, o->hi, o->mean, o->out_of_band, o->lost);
}

/* Packet k (1000 bytes) is sent at k x 10 ms and arrives 20 ms later; reports at 0.5, 1.0 and
 * 1.5 s take what arrived until then. The application reads nothing in [0.8, 1.195) s: the 40
 * packets that arrived then (k = 78-117) are read at 1.195 s + 10 us each. Report 1 has no
 * anchor yet: packets 1-48 (0 is on probation, RFC 3550 A.1) over the 0.47 s since packet 1 =
 * 102128 B/s; packet 48 (read at 0.50 s, 20 ms late like every packet read on time) becomes the
 * anchor. Report 2: packets 49-77, the last read at 0.79 s: 29000 B / 0.29 s = 100 kB/s (over
 * the 0.5 s between reports: 58 kB/s). Report 3: the burst and packets 118-148, the last at
 * 1.50 s: 71000 B / 0.71 s = 100 kB/s (over 0.5 s: 142 kB/s). amid: the report due at 1.0 s
 * comes at 1.195195 s after 20 of the burst's packets; those, read after packet 77, wait for
 * report 3; both still read 100 kB/s. */
static void
feed (amcc_asmp_receiver *rx, int amid, double *recv)
{
  amcc_time report[3] = { 500 * MS, amid ? 1195 * MS + 195 * US : 1000 * MS, 1500 * MS };
  int k = 0, burst = 0;
  for (int i = 0; i < 3; i++) {
    for (;; k++) {
      amcc_time send = (amcc_time) k * 10 * MS, arr = send + 20 * MS;
      if (arr >= 800 * MS && arr < 1195 * MS)
        arr = 1195 * MS + (amcc_time) burst * 10 * US;
      if (arr > report[i])
        break;
      if (arr >= 800 * MS && arr < 1195 * MS + 400 * US)
        burst++;
      amcc_asmp_receiver_on_rtp (rx, arr, (uint16_t) k, (uint32_t) (900 * k), send, 1000);
    }
    amcc_asmp_report r;
    amcc_asmp_receiver_make_report (rx, report[i], &r);
    recv[i] = rx->recv_Bps;
  }
}

static void
test_rate_by_hand (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  AMT_CHECK (p.recv_least_delay == 1);
  amcc_asmp_receiver rx;
  double recv[3];
  for (int amid = 0; amid < 2; amid++) {
    amcc_asmp_receiver_init (&rx, &p, 90000);
    feed (&rx, amid, recv);
    AMT_NEAR (recv[0], 48000 / 0.47, 1);
    AMT_NEAR (recv[1], 100000, 1);
    AMT_NEAR (recv[2], 100000, 1);
  }
  p.recv_least_delay = 0;                 /* the bytes between reports */
  amcc_asmp_receiver_init (&rx, &p, 90000);
  feed (&rx, 0, recv);
  AMT_NEAR (recv[1], 58000, 1);
  AMT_NEAR (recv[2], 142000, 1);
}

/* Reports 50 ms apart (packets 1-48 by 0.5 s, 49-53 by 0.55 s): the last packet (0.55 s) is
 * 50 ms after the anchor, under 0.1 s, so the rate received holds (48000 B / 0.47 s) and the
 * anchor stays; at 1.0 s, packets 49-98 over the 0.5 s since it: 100 kB/s. */
static void
test_short_window_holds (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_time report[3] = { 500 * MS, 550 * MS, 1000 * MS };
  double expect[3] = { 48000 / 0.47, 48000 / 0.47, 100000 };
  int k = 0;
  for (int i = 0; i < 3; i++) {
    for (; (amcc_time) k * 10 * MS + 20 * MS <= report[i]; k++)
      amcc_asmp_receiver_on_rtp (&rx, (amcc_time) k * 10 * MS + 20 * MS, (uint16_t) k,
          (uint32_t) (900 * k), (amcc_time) k * 10 * MS, 1000);
    amcc_asmp_report r;
    amcc_asmp_receiver_make_report (&rx, report[i], &r);
    AMT_NEAR (rx.recv_Bps, expect[i], 1);
  }
}

/* Closed loop, seeds 1-10 of the stall pattern, the three report timings. Bounds: no report
 * in COMPETING; from 10 s on every report within [0.7, 1.15] x C and the mean within [0.9,
 * 1.0] x C. Measured (seeds 1-30, each timing): 0.84-1.06 x C, means 0.957-0.988 (buffers of
 * 4 and 10 packets: 0.80-1.06); without stalls 0.89-1.05 (DELAY drains a key frame's queue).
 * With recv_least_delay 0 the same runs must fail them (else this test could not fail): 8 of
 * seeds 1-30 went COMPETING, reports read 0.21-1.54 x C. */
static void
test_stalls_closed_loop (void)
{
  const double C = 8 * CAP_Bps;
  int old_competing = 0, old_out = 0;
  outcome calm = run (1, 0, 0, 1);
  print_outcome ("no stalls", &calm);
  AMT_CHECK (calm.competing == 0 && calm.out_of_band == 0);
  for (uint32_t seed = 1; seed <= SEEDS; seed++) {
    for (int timing = 0; timing < 3; timing++) {
      outcome o = run (1, 1, timing, seed);
      AMT_CHECK (o.competing == 0);
      AMT_CHECK (o.out_of_band == 0);
      AMT_CHECK (o.mean >= 0.9 * C && o.mean <= 1.0 * C);
      if (o.competing || o.out_of_band || o.mean < 0.9 * C || o.mean > C) {
        printf ("# seed %u, report timing %d:\n", seed, timing);
        print_outcome ("stalls", &o);
      }
    }
    outcome old = run (0, 1, 0, seed);
    old_competing += old.competing > 0;
    old_out += old.out_of_band;
  }
  printf ("# recv_least_delay 0: %d of %d seeds went COMPETING, %d reports out of band\n",
      old_competing, SEEDS, old_out);
  AMT_CHECK (old_competing >= 1 && old_out >= SEEDS);
}

/* The sender stops 0.4-2 s (x264 and the pacer descheduled, or SIGSTOP) at 20 s and sends its
 * backlog at once after, which the 100 ms buffer mostly drops. Over the 10 s after the pause the
 * mean report must stay >= 0.85 x C (issue 8's bound for a receiver alone): the interval into which the send times carry the pause is
 * not judged, and its low rate is not the one a short window holds (send_gap_s). With
 * send_gap_s 0 and burst_cut_max 0 the 1 s pause must fail it (else this test could not fail);
 * burst_cut_max alone bounds the cut the backlog's loss makes, and is printed. Live (/tmp runs of
 * amcast-node, SIGSTOP 1 s, 600 kbit/s): mean target over 2-22 s after 0.22-0.87 x before
 * without, 0.92-1.01 with. */
static void
test_sender_pause (void)
{
  const double C = 8 * CAP_Bps;
  static const double len_s[] = { 0.4, 1.0, 2.0 };
  for (int i = 0; i < 3; i++) {
    pause.p0 = 20200 * MS;               /* between reports (every 0.5 s) */
    pause.p1 = pause.p0 + (amcc_time) (len_s[i] * SEC);
    pause.send_gap_s = 0.3;
    outcome o = run (1, 0, 0, 1);
    printf ("# pause %.1f s: mean over the 10 s after %.0f bit/s (%.2f x C), %u lost\n", len_s[i],
        o.after_pause, o.after_pause / C, o.lost);
    AMT_CHECK (o.after_pause >= 0.85 * C);
    AMT_CHECK (o.competing == 0);
  }
  pause.p1 = pause.p0 + SEC;
  pause.send_gap_s = 0;
  outcome cut = run (1, 0, 0, 1);
  printf ("# pause 1.0 s, send_gap_s 0: %.0f bit/s (%.2f x C)\n", cut.after_pause, cut.after_pause / C);
  pause.burst_cut_max = 0;
  outcome old = run (1, 0, 0, 1);
  printf ("# pause 1.0 s, send_gap_s 0, burst_cut_max 0: %.0f bit/s (%.2f x C)\n", old.after_pause,
      old.after_pause / C);
  AMT_CHECK (old.after_pause < 0.85 * C);
  pause.p0 = pause.p1 = 0;
  pause.send_gap_s = 0.3;
  pause.burst_cut_max = 0.2;
}

/* A slideshow (one frame a second, 100 packets 1 ms apart, a report after each) pauses 0.9 s
 * between frames every time: that is its pace, not a pause (send_gap_s also wants 3 x the
 * stream's usual longest gap), so from 8 s on a lost packet in each frame must still back off;
 * on send_gap_s alone every interval held the rate. */
static void
test_low_frame_rate (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  uint16_t seq = 0;
  amcc_asmp_report r;
  double before = 0;
  for (int sec = 0; sec < 12; sec++) {
    amcc_time f = (amcc_time) sec * SEC;
    for (int k = 0; k < 100; k++, seq++) {
      if (sec >= 8 && k == 50)
        continue;
      amcc_time st = f + (amcc_time) k * MS;
      /* the burst overflowed a full queue: the packets after the lost one waited 20 ms (a
       * loss with none would be random, random_loss_q_s, and back off nothing) */
      amcc_time q = sec >= 8 && k > 50 ? 20 * MS : 0;
      amcc_asmp_receiver_on_rtp (&rx, st + BASE + q, seq, (uint32_t) (st / (SEC / 90000)), st,
          PKT);
    }
    amcc_asmp_receiver_make_report (&rx, f + 500 * MS, &r);
    if (sec == 7)
      before = r.rate_bps;
  }
  printf ("# 1 fps: rate %.0f bit/s at 7.5 s, %.0f after 4 lossy frames\n", before, r.rate_bps);
  AMT_CHECK (before > 0 && r.rate_bps < 0.95 * before);
}

int
main (int argc, char **argv)
{
  verbose = argc > 1 && strcmp (argv[1], "-v") == 0;
  if (verbose) {
    uint32_t seed = argc > 2 ? (uint32_t) atoi (argv[2]) : 1;
    for (int timing = 0; timing < 3; timing++) {
      outcome o = run (1, 1, timing, seed);
      print_outcome ("stalls", &o);
    }
    outcome old = run (0, 1, 0, seed);
    print_outcome ("stalls, recv_least_delay 0", &old);
    return 0;
  }
  AMT_RUN (test_rate_by_hand);
  AMT_RUN (test_short_window_holds);
  AMT_RUN (test_stalls_closed_loop);
  AMT_RUN (test_sender_pause);
  AMT_RUN (test_low_frame_rate);
  return amt_summary ();
}
