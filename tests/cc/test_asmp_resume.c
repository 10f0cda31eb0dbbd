/* test_asmp_resume.c - a sender restarted on the same group (issue 14's fault: SIGKILL, a new
 * process with a new SSRC, starting from its initial bitrate). The receivers start afresh on
 * the new SSRC; with resume_s they carry the rate the path gave the old sender into their
 * first report. Closed loop: the new sender starts at 300 kbit/s, applies the last report once
 * per 1 s GOP (as the elements set the encoder) at most MAX, 1250-byte packets paced evenly,
 * 20 ms one way on a clean path, a report every 500 ms, the RTT echoed every second. */
#include <stdio.h>
#include <string.h>
#include "amtest.h"
#include "amcc/asmp.h"
#include "amcc/controller.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S
#define PKT 1250
#define MAX 1.5e6
#define INIT 300e3
#define OWD (20 * MS)

typedef struct {
  amcc_asmp_receiver rx;
  uint16_t seq;
  amcc_time next_pkt, next_report, next_echo;
  double reported;             /* last report, bit/s (0 = none yet) */
} path;

/* Sends at `rate` from t0 to t1 (sender clock = receiver clock - OWD); reports and echoes. */
static void
drive (path *P, amcc_time t0, amcc_time t1, double rate)
{
  if (P->next_pkt < t0)
    P->next_pkt = t0;
  while (P->next_pkt < t1) {
    amcc_time now = P->next_pkt + OWD;
    while (P->next_report <= now) {
      amcc_asmp_report rep;
      amcc_asmp_receiver_make_report (&P->rx, P->next_report, &rep);
      P->reported = rep.rate_bps;
      P->next_report += 500 * MS;
    }
    if (P->next_echo <= now) {
      amcc_asmp_receiver_on_rtt_echo (&P->rx, now, 2 * OWD);
      P->next_echo += SEC;
    }
    amcc_asmp_receiver_on_rtp (&P->rx, now, P->seq++, (uint32_t) (P->next_pkt / 100000 * 9),
        P->next_pkt, PKT);
    P->next_pkt += (amcc_time) (8.0 * PKT / rate * SEC);
  }
}

/* Old sender at MAX for 15 s, silent 1 s, new sender from INIT. Returns the seconds until the
 * new sender's rate is within 10 % of MAX (99 = never within 30 s). */
static double
restart (int resume, double silent_s, double *first_report)
{
  amcc_asmp_params p;
  path A, B;

  amcc_asmp_params_init (&p);
  p.initial_rate_bps = INIT;
  p.resume_s = resume ? 10.0 : 0;
  memset (&A, 0, sizeof A);
  amcc_asmp_receiver_init (&A.rx, &p, 90000);
  A.next_report = A.next_echo = 500 * MS;
  drive (&A, 0, 15 * SEC, MAX);
  AMT_CHECK (A.reported >= 0.9 * MAX);
  amcc_time t0 = 15 * SEC + (amcc_time) (silent_s * SEC);
  memset (&B, 0, sizeof B);
  amcc_asmp_receiver_init (&B.rx, &p, 90000);
  /* what rx_reset (asmp_controller.c) does when the old sender was heard within resume_s */
  int r = amcc_asmp_receiver_resume (&B.rx, t0, A.reported);
  AMT_CHECK (resume ? r == AMCC_OK : r == AMCC_ERR_PARAM);
  B.next_report = t0 + OWD + 500 * MS;
  B.next_echo = t0 + OWD;
  double rate = INIT;
  *first_report = 0;
  for (int gop = 0; gop < 30; gop++) {
    amcc_time g = t0 + gop * SEC;
    if (B.reported > 0)
      rate = B.reported < MAX ? B.reported : MAX;
    if (rate >= 0.9 * MAX)
      return gop;
    drive (&B, g, g + SEC, rate);
    if (*first_report == 0)
      *first_report = B.reported;
  }
  return 99;
}

static void
test_restart_closed_loop (void)
{
  double first_on, first_off, on = restart (1, 1.0, &first_on), off = restart (0, 1.0, &first_off);
  printf ("# new sender within 10 %% of %.0f bit/s after %.0f s resumed (first report %.0f), "
      "%.0f s afresh (first report %.0f)\n", MAX, on, first_on, off, first_off);
  /* afresh, the start-up climbs 1.25 x per second from what arrives: 300 k -> 1.35 M takes
   * log(4.5) / log(1.25) = 6.7 s plus a GOP of lag per step; resumed, recv_rate_cap lets each
   * report double what arrives: 300 k -> 600 k -> 1.2 M -> 1.5 M */
  AMT_CHECK (on <= 4);
  AMT_CHECK (off >= 7);                 /* else this test could not fail */
  AMT_CHECK (first_on >= 0.9 * MAX && first_off <= 1.25 * INIT);
}

/* Through the controller interface: a switch of sender SSRC within resume_s resumes, one after
 * a longer silence (a new session) starts from the initial rate. */
static double
first_report_after (double silent_s)
{
  amcc_ctl_config c;
  amcc_receiver_stats st;
  amcc_app app;
  uint8_t buf[1500];
  amcc_time t = 0;
  uint16_t seq = 1;

  amcc_ctl_config_init (&c);
  c.rtcp_interval = 500 * MS;
  c.ssrc = 0x100;
  c.initial_bps = INIT;
  amcc_receiver *r = amcc_receiver_new (amcc_protocol_find ("asmp"), &c, 0);
  amcc_time next_app = 500 * MS;
  /* A at MAX for 15 s; silence; B at INIT until its first report */
  for (int phase = 0; phase < 2; phase++) {
    amcc_time end = t + (phase ? 5 * SEC : 15 * SEC);
    amcc_time step = (amcc_time) (8.0 * PKT / (phase ? INIT : MAX) * SEC);
    for (; t < end; t += step) {
      amcc_packet pk = { .ssrc = phase ? 0xB : 0xA, .seq = seq++,
        .rtp_ts = (uint32_t) (t / 100000 * 9), .bytes = PKT, .send_time = t - OWD };
      amcc_receiver_on_rtp (r, t, &pk);
      if (t >= next_app) {
        amcc_receiver_next_app (r, t, buf, sizeof buf, &app);
        next_app += 500 * MS;
      }
      amcc_receiver_get_stats (r, t, &st);
      if (phase == 1 && st.rate_bps > 0)
        break;
    }
    t += (amcc_time) (silent_s * SEC);
    next_app = t + 500 * MS;
  }
  amcc_receiver_get_stats (r, t, &st);
  AMT_CHECK (st.sender_ssrc == 0xB && st.sender_changes == 1);
  amcc_receiver_free (r);
  return st.rate_bps;
}

static void
test_restart_controller (void)
{
  double soon = first_report_after (1.0), late = first_report_after (12.0);
  printf ("# first report on the new SSRC: %.0f bit/s after 1 s of silence, %.0f after 12 s\n",
      soon, late);
  AMT_CHECK (soon >= 0.9 * MAX);
  AMT_CHECK (late > 0 && late <= 1.25 * INIT);   /* start-up: x 1.125 per 0.5 s */
}

static void
test_resume_refused (void)
{
  amcc_asmp_params p;
  amcc_asmp_receiver rx;

  amcc_asmp_params_init (&p);
  AMT_CHECK (p.resume_s == 10.0);
  p.resume_s = -1;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  p.resume_s = 0;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_OK);
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver_init (&rx, &p, 90000);
  AMT_CHECK (amcc_asmp_receiver_resume (&rx, 0, 0) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_asmp_receiver_resume (&rx, 0, INFINITY) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_asmp_receiver_resume (&rx, 0, 1e6) == AMCC_OK);
  AMT_CHECK (amcc_asmp_receiver_resume (&rx, 0, 1e6) == AMCC_ERR_PARAM);   /* once, before reports */
}

int
main (void)
{
  AMT_RUN (test_resume_refused);
  AMT_RUN (test_restart_closed_loop);
  AMT_RUN (test_restart_controller);
  return amt_summary ();
}
