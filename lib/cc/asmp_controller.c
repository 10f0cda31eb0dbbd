/* asmp_controller.c - ASMP behind the controller interface (amcc/controller.h): an adapter over
 * amcc_asmp_sender / amcc_asmp_receiver and the ASMP APP codecs; no ASMP arithmetic here.
 * Sender: receivers' APP reports in (eq. 1), RR blocks give eq. 9 RTTs, the SR's APP echoes them.
 * Receiver: each SR starts a feedback round (eq. 20 above T_suspend asks for an early report),
 * every RTCP packet closes a measurement interval; the report goes out unless suppressed. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/asmp.h"
#include "amcc/tcpmodel.h"
#include "asmp_controller.h"

#define MAX_ECHO 128            /* echo entries per SR at most (the RTCP MTU usually binds first) */
#define MAX_ECHO_IN 256         /* entries a receiver decodes; beyond, it looks its own up */

static int
is_asmp (const char name[4])
{
  return memcmp (name, AMCC_ASMP_APP_NAME, 4) == 0;
}

/* ---------------------------------------------------------------- sender */

int
amcc_asmp_tx_init (asmp_tx *a, const amcc_ctl_config *cfg, amcc_time now)
{
  amcc_asmp_params p;

  amcc_asmp_params_init (&p);
  p.initial_rate_bps = cfg->initial_bps;
  /* the limits may change while playing and amcc_sender_rate applies them; eq. 1 runs open */
  p.min_rate_bps = 1;
  p.max_rate_bps = 1e12;
  p.receiver_timeout = cfg->receiver_timeout;
  a->tx = amcc_asmp_sender_new (&p, now);
  return a->tx ? AMCC_OK : AMCC_ERR_NOMEM;
}

static amcc_sender *
tx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  asmp_tx *a = calloc (1, sizeof *a);

  if (a && amcc_asmp_tx_init (a, cfg, now) != AMCC_OK) {
    free (a);
    a = NULL;
  }
  return a ? &a->base : NULL;
}

void
amcc_asmp_tx_destroy (amcc_sender *s)
{
  amcc_asmp_sender_free (((asmp_tx *) s)->tx);
  free (s);
}

void
amcc_asmp_tx_on_report_block (amcc_sender *s, amcc_time now, uint32_t reporter, uint32_t lsr,
    uint32_t dlsr, uint32_t a_ntp32)
{
  amcc_time rtt;
  amcc_peer *v;

  if (amcc_rtcp_rtt (a_ntp32, lsr, dlsr, &rtt) != AMCC_OK       /* eq. 9 */
      || amcc_asmp_sender_on_report_block (((asmp_tx *) s)->tx, now, reporter, rtt) != AMCC_OK)
    return;
  if ((v = amcc_peers_get (&s->peers, reporter)))
    v->sender_rtt_s = amcc_time_to_s (rtt);
}

amcc_app_result
amcc_asmp_tx_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  amcc_asmp_report r;
  amcc_peer *v;

  if (!is_asmp (name))
    return AMCC_APP_FOREIGN;
  if (subtype == AMCC_ASMP_SUBTYPE_ECHO)
    return AMCC_APP_IGNORED;    /* another sender's echo */
  amcc_asmp_sender_set_timeout (((asmp_tx *) s)->tx, s->cfg.receiver_timeout);
  if (subtype != AMCC_ASMP_SUBTYPE_REPORT || amcc_asmp_report_decode (data, len, &r) != AMCC_OK
      || amcc_asmp_sender_on_report (((asmp_tx *) s)->tx, now, ssrc, &r) != AMCC_OK)
    return AMCC_APP_MALFORMED;
  if ((v = amcc_peers_get (&s->peers, ssrc))) {
    v->heard = v->reported = now;
    v->rate_bps = r.rate_bps;
    v->loss = r.loss;
    v->rtt_s = r.rtt_s;
    v->jitter_s = r.jitter_s;
    v->congested = r.ci == AMCC_CI_CONGESTED;
  }
  return AMCC_APP_TAKEN;
}

void
amcc_asmp_tx_on_bye (amcc_sender *s, amcc_time now, uint32_t ssrc)
{
  amcc_asmp_sender_on_bye (((asmp_tx *) s)->tx, now, ssrc);
}

double
amcc_asmp_tx_rate (amcc_sender *s, amcc_time now)
{
  /* the timeout follows the RTCP interval (amcc_sender_set_rtcp_interval) */
  amcc_asmp_sender_set_timeout (((asmp_tx *) s)->tx, s->cfg.receiver_timeout);
  return amcc_asmp_sender_rate (((asmp_tx *) s)->tx, now);
}

int
amcc_asmp_tx_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  amcc_asmp_echo_entry e[MAX_ECHO];
  size_t n = AMCC_ASMP_ECHO_FIT (cap), written = 0;
  int ret;

  if (cap < AMCC_ASMP_ECHO_HEADER_LEN)
    return AMCC_ERR_NOSPACE;
  /* ask only for what fits, so no fresh RTT is consumed and then dropped */
  n = amcc_asmp_sender_fill_echo (((asmp_tx *) s)->tx, now, e, n < MAX_ECHO ? n : MAX_ECHO);
  if ((ret = amcc_asmp_echo_encode (e, n, buf, cap, &written)) != AMCC_OK)
    return ret;
  return amcc_app_made (out, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_ECHO, written);
}

void
amcc_asmp_tx_get_stats (amcc_sender *s, amcc_time now, amcc_sender_stats *st)
{
  amcc_asmp_sender_stats as;

  amcc_asmp_sender_get_stats (((asmp_tx *) s)->tx, &as);
  st->receivers = as.receivers;
  st->have_slowest = as.rated > 0;
  st->slowest_ssrc = as.slowest_ssrc;
  st->slowest_rate_bps = as.rated ? as.slowest_rate_bps : 0;
}

/* A report for the containment rules (contain.c): its rate, its loss and eq. 12 at that loss
 * and the RTT it reports, with the mean packet we send as P. */
int
amcc_asmp_tx_claim (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len, amcc_claim *c)
{
  amcc_asmp_report r;

  (void) now;
  (void) ssrc;
  if (!is_asmp (name) || subtype != AMCC_ASMP_SUBTYPE_REPORT
      || amcc_asmp_report_decode (data, len, &r) != AMCC_OK)
    return 0;
  c->rate_bps = r.rate_bps;
  c->loss = r.loss;              /* eq. 2-3: a fraction of packets */
  c->recv_bps = 0;
  c->model_bps = r.loss > 0 && r.rtt_s > 0 ? 8 * amcc_pftk_rate (s->pkt_bytes, r.rtt_s, r.loss)
      : 0;
  return 1;
}

int
amcc_asmp_tx_set_claim_rate (amcc_sender *s, uint8_t *buf, size_t len, double rate_bps)
{
  amcc_asmp_report r;
  size_t w;
  int ret;

  (void) s;
  if ((ret = amcc_asmp_report_decode (buf, len, &r)) != AMCC_OK)
    return ret;
  r.rate_bps = rate_bps;
  return amcc_asmp_report_encode (&r, buf, len, &w);
}

static const amcc_sender_ops sender_ops = {
  .create = tx_create, .destroy = amcc_asmp_tx_destroy,
  .on_report_block = amcc_asmp_tx_on_report_block, .on_app = amcc_asmp_tx_on_app,
  .on_bye = amcc_asmp_tx_on_bye, .rate = amcc_asmp_tx_rate, .next_app = amcc_asmp_tx_next_app,
  .get_stats = amcc_asmp_tx_get_stats, .claim = amcc_asmp_tx_claim,
  .set_claim_rate = amcc_asmp_tx_set_claim_rate,
};

/* ---------------------------------------------------------------- receiver */

void
amcc_asmp_rx_init (asmp_rx *a, const amcc_ctl_config *cfg, const amcc_asmp_params *p)
{
  a->p = *p;
  if (cfg->initial_bps > 0)
    a->p.initial_rate_bps = cfg->initial_bps;
  amcc_asmp_receiver_init (&a->rx, &a->p, cfg->clock_rate);
  a->report_due = AMCC_TIME_NONE;
}

static amcc_receiver *
rx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  asmp_rx *a = calloc (1, sizeof *a);
  amcc_asmp_params p;

  amcc_asmp_params_init (&p);
  if (a)
    amcc_asmp_rx_init (a, cfg, &p);
  return a ? &a->base : NULL;
}

void
amcc_asmp_rx_restart (asmp_rx *a)
{
  amcc_asmp_params p = a->p;
  uint64_t suppressed = a->suppressed, echoes = a->echoes;

  memset (&a->rx, 0, sizeof *a - offsetof (asmp_rx, rx));
  amcc_asmp_rx_init (a, &a->base.cfg, &p);
  a->suppressed = suppressed;
  a->echoes = echoes;
}

/* A new sender SSRC (the caller saw the old one silent for an RTCP interval). Heard within
 * resume_s, the old sender was restarted on the same path: resume from what the path gave it
 * (a restarted sender took 11-14 s to climb back from its initial rate, tests/net/test_faults.py) */
static void
rx_reset (amcc_receiver *r, amcc_time now)
{
  asmp_rx *a = (asmp_rx *) r;
  double rate = a->rx.have_rate ? a->rx.rate_Bps * 8.0 : 0;
  int recent = r->sender_last != AMCC_TIME_NONE
      && amcc_time_to_s (now - r->sender_last) <= a->p.resume_s;

  amcc_asmp_rx_restart (a);
  a->suppressed = a->echoes = 0;
  if (recent && rate > 0)
    amcc_asmp_receiver_resume (&a->rx, now, rate);
}

void amcc_asmp_rx_destroy (amcc_receiver *r) { free (r); }

static void
asmp_rx_on_extra_bytes (amcc_receiver *r, amcc_time now, size_t bytes)
{
  (void) now;
  amcc_asmp_receiver_on_extra_bytes (&((asmp_rx *) r)->rx, bytes > UINT32_MAX ? UINT32_MAX
      : (uint32_t) bytes);
}

void
amcc_asmp_rx_on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt)
{
  amcc_asmp_receiver_on_rtp (&((asmp_rx *) r)->rx, now, pkt->seq, pkt->rtp_ts, pkt->send_time,
      pkt->bytes);
}

void
amcc_asmp_rx_on_sender_report (amcc_receiver *r, amcc_time now, uint32_t ssrc,
    uint32_t members)
{
  asmp_rx *a = (asmp_rx *) r;
  /* the computed interval (the caller's RFC 3550 Td), not the configured minimum, which is
   * never above T_suspend: with it eq. 20 never started */
  amcc_time iv = amcc_receiver_rtcp_interval (r);
  /* each SR starts a feedback round; lib/cc says when to report (eq. 20 above T_suspend) */
  amcc_time due = amcc_asmp_receiver_schedule (&a->rx, now, iv, members ? members : 1,
      amcc_ctl_uniform (&r->rng));

  a->report_due = due < now + iv ? due : AMCC_TIME_NONE;
}

static amcc_app_result
rx_on_echo (asmp_rx *a, amcc_time now, const uint8_t *data, size_t len)
{
  amcc_asmp_echo_entry e[MAX_ECHO_IN];
  size_t n = MAX_ECHO_IN;
  uint32_t own = a->base.cfg.ssrc;
  amcc_time rtt;
  int ret = amcc_asmp_echo_decode (data, len, e, &n);

  if (ret == AMCC_ERR_NOSPACE) {        /* more entries than we keep: look ours up directly */
    if (amcc_asmp_echo_lookup (data, len, own, &rtt) == AMCC_OK
        && amcc_asmp_receiver_on_rtt_echo (&a->rx, now, rtt) == AMCC_OK)
      a->echoes++;
    return AMCC_APP_TAKEN;
  }
  if (ret != AMCC_OK)
    return AMCC_APP_MALFORMED;
  for (size_t i = 0; i < n; i++)
    if (e[i].ssrc == own && amcc_asmp_receiver_on_rtt_echo (&a->rx, now, e[i].rtt) == AMCC_OK)
      a->echoes++;
  return AMCC_APP_TAKEN;
}

amcc_app_result
amcc_asmp_rx_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  asmp_rx *a = (asmp_rx *) r;
  amcc_asmp_report rep;

  if (!is_asmp (name))
    return AMCC_APP_FOREIGN;
  if (subtype == AMCC_ASMP_SUBTYPE_ECHO)
    return rx_on_echo (a, now, data, len);
  if (subtype != AMCC_ASMP_SUBTYPE_REPORT || amcc_asmp_report_decode (data, len, &rep) != AMCC_OK)
    return AMCC_APP_MALFORMED;
  /* a peer's report: feedback suppression (section 3.8) */
  amcc_asmp_receiver_on_peer_report (&a->rx, now, rep.rate_bps);
  return AMCC_APP_TAKEN;
}

int
amcc_asmp_rx_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  asmp_rx *a = (asmp_rx *) r;
  size_t written = 0;
  int ret;

  if (cap < AMCC_ASMP_REPORT_LEN)
    return AMCC_ERR_NOSPACE;
  /* every RTCP packet closes a measurement interval, suppressed or not */
  amcc_asmp_receiver_make_report (&a->rx, now, &a->last);
  a->have_last = 1;
  a->report_due = AMCC_TIME_NONE;
  if (amcc_asmp_receiver_suppressed (&a->rx)) {
    a->suppressed++;
    return 0;
  }
  if ((ret = amcc_asmp_report_encode (&a->last, buf, cap, &written)) != AMCC_OK)
    return ret;
  return amcc_app_made (out, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT, written);
}

amcc_time
amcc_asmp_rx_early_due (amcc_receiver *r, amcc_time now)
{
  return ((asmp_rx *) r)->report_due;
}

void
amcc_asmp_rx_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st)
{
  static const char *const modes[] = { "startup", "delay", "competing" };
  asmp_rx *a = (asmp_rx *) r;

  st->packets_lost = amcc_seq_lost (&a->rx.seq);
  st->reports_suppressed = a->suppressed;
  st->random_losses = a->rx.random_losses;
  st->echoes = a->echoes;
  if (!a->have_last)
    return;
  st->rate_bps = a->last.rate_bps;
  st->loss = a->last.loss;
  st->rtt_s = a->last.rtt_s;
  st->jitter_s = a->last.jitter_s;
  st->queue_s = a->last.queue_s;
  st->congested = a->last.ci == AMCC_CI_CONGESTED;
  st->mode = (unsigned) a->last.mode < 3 ? modes[a->last.mode] : "";
}

static const amcc_receiver_ops receiver_ops = {
  .create = rx_create, .destroy = amcc_asmp_rx_destroy, .on_rtp = amcc_asmp_rx_on_rtp,
  .on_extra_bytes = asmp_rx_on_extra_bytes,
  .on_sender_report = amcc_asmp_rx_on_sender_report, .on_app = amcc_asmp_rx_on_app,
  .next_app = amcc_asmp_rx_next_app, .early_due = amcc_asmp_rx_early_due,
  .get_stats = amcc_asmp_rx_get_stats, .reset = rx_reset,
};

const amcc_protocol amcc_asmp_protocol = {
  .name = "asmp",
  .description = "ASMP (Adaptive Smooth Multicast Protocol)",
  .rtp_profile = AMCC_RTP_AVP,  /* regular RTCP carries everything (eq. 20 asks early rarely) */
  .max_streams = 1,
  .sender = &sender_ops,
  .receiver = &receiver_ops,
};
