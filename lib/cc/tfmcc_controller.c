/* tfmcc_controller.c - TFMCC (RFC 4654) behind the controller interface (amcc/controller.h): an
 * adapter over amcc_tfmcc_sender / amcc_tfmcc_receiver and the TFMS/TFMR codecs (tfmcc.h says
 * how TFMCC rides on RTCP). No TFMCC arithmetic here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/tcpmodel.h"
#include "amcc/tfmcc.h"
#include "controller_impl.h"

/* ---------------------------------------------------------------- sender */

typedef struct {
  amcc_sender base;
  struct amcc_tfmcc_sender *tx;
} tfmcc_tx;

static struct amcc_tfmcc_sender *
tx_of (amcc_sender *s)
{
  return ((tfmcc_tx *) s)->tx;
}

static amcc_sender *
tx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  tfmcc_tx *a = calloc (1, sizeof *a);
  struct amcc_tfmcc_params p;

  if (!a)
    return NULL;
  amcc_tfmcc_params_init (&p);
  /* slowstart from the encoder's initial bitrate, not 1 packet per R_max (lib/cc/README.md) */
  p.initial_rate_bps = cfg->initial_bps;
  p.min_rate_bps = cfg->min_bps;
  p.max_rate_bps = cfg->max_bps;
  if (!(a->tx = amcc_tfmcc_sender_new (&p, now))) {
    free (a);
    return NULL;
  }
  return &a->base;
}

static void
tx_destroy (amcc_sender *s)
{
  amcc_tfmcc_sender_free (tx_of (s));
  free (s);
}

static void
tx_on_rtp_sent (amcc_sender *s, amcc_time now, size_t bytes)
{
  amcc_tfmcc_sender_on_packet_sent (tx_of (s), now, bytes);
}

static void
tx_on_report_block (amcc_sender *s, amcc_time now, uint32_t reporter, uint32_t lsr,
    uint32_t dlsr, uint32_t a_ntp32)
{
  amcc_peer *v = amcc_peers_get (&s->peers, reporter);

  /* receivers are counted by their RTCP: suppression keeps most TFMR reports rare (4.5) */
  if (v)
    v->heard = now;
}

static amcc_app_result
tx_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4], uint8_t subtype,
    const uint8_t *data, size_t len)
{
  struct amcc_tfmcc_report r;
  amcc_peer *v;

  if (memcmp (name, AMCC_TFMCC_APP_SENDER, 4) == 0)
    return AMCC_APP_IGNORED;    /* another sender's */
  if (memcmp (name, AMCC_TFMCC_APP_REPORT, 4) != 0)
    return AMCC_APP_FOREIGN;
  if (amcc_tfmcc_report_decode (&r, data, len) < 0)
    return AMCC_APP_MALFORMED;
  amcc_tfmcc_sender_on_report (tx_of (s), now, ssrc, &r);
  if (r.leaving) {              /* RFC 4654 4: the leave flag, like a BYE */
    amcc_peers_remove (&s->peers, ssrc);
    return AMCC_APP_TAKEN;
  }
  if ((v = amcc_peers_get (&s->peers, ssrc))) {
    v->heard = v->reported = now;
    v->rate_bps = r.rate_bps;
    v->loss = r.loss_event_rate;
    v->congested = r.have_loss;
  }
  return AMCC_APP_TAKEN;
}

static void
tx_on_bye (amcc_sender *s, amcc_time now, uint32_t ssrc)
{
  amcc_tfmcc_sender_on_bye (tx_of (s), now, ssrc);
}

static double
tx_rate (amcc_sender *s, amcc_time now)
{
  return amcc_tfmcc_sender_rate (tx_of (s), now);
}

static void
tx_set_limits (amcc_sender *s, double min_bps, double max_bps)
{
  amcc_tfmcc_sender_set_limits (tx_of (s), min_bps, max_bps);
}

static int
tx_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  struct amcc_tfmcc_sender_info info;
  int w;

  if (cap < AMCC_TFMCC_SENDER_INFO_LEN)
    return AMCC_ERR_NOSPACE;
  amcc_tfmcc_sender_fill_info (tx_of (s), now, &info);
  if ((w = amcc_tfmcc_sender_info_encode (&info, buf, cap)) < 0)
    return w;
  return amcc_app_made (out, AMCC_TFMCC_APP_SENDER, 0, (size_t) w);
}

/* tfmcc.h: the sender fields ride in RTCP, much sparser than the RFC's data packets; an extra
 * sender APP about every R_max / 4 keeps feedback rounds and suppression going */
static amcc_time
tx_early_due (amcc_sender *s, amcc_time now)
{
  struct amcc_tfmcc_sender_state st;

  amcc_tfmcc_sender_get_state (tx_of (s), &st);
  return now + amcc_time_from_s (st.r_max_s / 4);
}

static void
tx_get_stats (amcc_sender *s, amcc_time now, amcc_sender_stats *st)
{
  struct amcc_tfmcc_sender_state ts;

  amcc_tfmcc_sender_get_state (tx_of (s), &ts);
  st->receivers = amcc_peers_alive (&s->peers, now, s->cfg.receiver_timeout);
  st->have_slowest = ts.has_clr;
  st->slowest_ssrc = ts.has_clr ? ts.clr_ssrc : 0;
  st->slowest_rate_bps = ts.has_clr ? ts.clr_rate_bps : 0;
}

/* A report for the containment rules (contain.c): its rate, p and the RFC 4654 2.1 equation
 * at p with R = the largest RTT we measured (R_max), or R_max's initial value while the report
 * says the receiver has no RTT yet (it computes with that), s = the mean packet we send. */
static int
tx_claim (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4], uint8_t subtype,
    const uint8_t *data, size_t len, amcc_claim *c)
{
  struct amcc_tfmcc_report r;
  struct amcc_tfmcc_sender_state st;
  struct amcc_tfmcc_params p;

  (void) now;
  (void) subtype;
  if (memcmp (name, AMCC_TFMCC_APP_REPORT, 4) != 0 || amcc_tfmcc_report_decode (&r, data, len) < 0
      || r.leaving)
    return 0;
  amcc_tfmcc_sender_get_state (tx_of (s), &st);
  amcc_tfmcc_params_init (&p);
  double rtt = r.have_rtt ? st.r_max_s : fmax (st.r_max_s, amcc_time_to_s (p.r_max_initial));
  c->rate_bps = r.rate_bps;
  c->loss = -1;                   /* p is a loss event rate, not a fraction of packets */
  c->recv_bps = r.recv_rate_bps;
  c->model_bps = r.have_loss && rtt > 0
      ? amcc_tfmcc_rate (s->pkt_bytes, rtt, r.loss_event_rate) : 0;
  /* the CLR reports once per RTT (4.5), and a receiver learns late (from our echo) that it
   * no longer is: any receiver may report at the CLR's pace */
  c->period = st.has_clr && st.clr_rtt_s > 0 ? amcc_time_from_s (st.clr_rtt_s) : 0;
  (void) ssrc;
  return 1;
}

static int
tx_set_claim_rate (amcc_sender *s, uint8_t *buf, size_t len, double rate_bps)
{
  struct amcc_tfmcc_report r;
  int ret;

  (void) s;
  if ((ret = amcc_tfmcc_report_decode (&r, buf, len)) < 0)
    return ret;
  r.rate_bps = rate_bps;
  return (ret = amcc_tfmcc_report_encode (&r, buf, len)) < 0 ? ret : AMCC_OK;
}

static const amcc_sender_ops sender_ops = {
  .create = tx_create, .destroy = tx_destroy, .on_rtp_sent = tx_on_rtp_sent,
  .on_report_block = tx_on_report_block, .on_app = tx_on_app, .on_bye = tx_on_bye,
  .rate = tx_rate, .set_limits = tx_set_limits, .next_app = tx_next_app,
  .early_due = tx_early_due, .get_stats = tx_get_stats, .claim = tx_claim,
  .set_claim_rate = tx_set_claim_rate,
};

/* ---------------------------------------------------------------- receiver */

typedef struct {
  amcc_receiver base;
  struct amcc_tfmcc_receiver rx;
  uint64_t packets;
  int have_ext;                 /* range of the sender's extended seq, for the loss count */
  uint32_t ext_min, ext_max;
  double rate_bps, loss, rtt_s; /* last values made (stats) */
  int congested;
} tfmcc_rx;

static amcc_receiver *
rx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  tfmcc_rx *a = calloc (1, sizeof *a);
  struct amcc_tfmcc_params p;

  if (!a)
    return NULL;
  amcc_tfmcc_params_init (&p);
  amcc_tfmcc_receiver_init (&a->rx, &p, cfg->ssrc, now);
  return &a->base;
}

static void
rx_reset (amcc_receiver *r, amcc_time now)
{
  tfmcc_rx *a = (tfmcc_rx *) r;
  amcc_receiver base = a->base;
  struct amcc_tfmcc_params p;

  memset (a, 0, sizeof *a);
  a->base = base;
  amcc_tfmcc_params_init (&p);
  amcc_tfmcc_receiver_init (&a->rx, &p, base.cfg.ssrc, now);
}

static void rx_destroy (amcc_receiver *r) { free (r); }

static void
rx_set_ssrc (amcc_receiver *r, uint32_t ssrc)
{
  ((tfmcc_rx *) r)->rx.ssrc = ssrc;     /* the sender echoes by SSRC */
}

static void
rx_on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt)
{
  tfmcc_rx *a = (tfmcc_rx *) r;
  int has_ts = pkt->send_time != AMCC_TIME_NONE;

  a->packets++;
  if (pkt->has_extseq) {
    if (!a->have_ext || pkt->extseq < a->ext_min)
      a->ext_min = pkt->extseq;
    if (!a->have_ext || pkt->extseq > a->ext_max)
      a->ext_max = pkt->extseq;
    a->have_ext = 1;
  }
  /* tfmcc.h: sender timestamps are the sender clock in us, low 32 bits */
  amcc_tfmcc_receiver_on_rtp (&a->rx, now, pkt->seq, pkt->bytes, has_ts,
      has_ts ? (uint32_t) (pkt->send_time / AMCC_NS_PER_US) : 0);
}

static amcc_app_result
rx_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  struct amcc_tfmcc_sender_info info;

  if (memcmp (name, AMCC_TFMCC_APP_REPORT, 4) == 0)
    return AMCC_APP_TAKEN;      /* a peer's report: TFMCC suppresses via the sender's X_supp */
  if (memcmp (name, AMCC_TFMCC_APP_SENDER, 4) != 0)
    return AMCC_APP_FOREIGN;
  if (amcc_tfmcc_sender_info_decode (&info, data, len) < 0)
    return AMCC_APP_MALFORMED;
  /* uniform x in (0,1] for the feedback timer */
  amcc_tfmcc_receiver_on_sender_info (&((tfmcc_rx *) r)->rx, now, &info,
      1.0 - amcc_ctl_uniform (&r->rng));
  return AMCC_APP_TAKEN;
}

static int
rx_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  tfmcc_rx *a = (tfmcc_rx *) r;
  struct amcc_tfmcc_report rep;
  amcc_time due = amcc_tfmcc_receiver_next_report_time (&a->rx);
  int w;

  if (cap < AMCC_TFMCC_REPORT_LEN)
    return AMCC_ERR_NOSPACE;
  a->rtt_s = amcc_tfmcc_receiver_rtt (&a->rx);
  if (due == AMCC_TIME_NONE || due > now) {
    /* RFC 4654 4.5: only when the feedback timer (or the CLR's per-RTT report) is due; a
     * report in every RTCP packet would bypass the timer and X_supp suppression */
    a->rate_bps = amcc_tfmcc_receiver_rate (&a->rx);
    a->loss = amcc_tfmcc_receiver_loss_event_rate (&a->rx);
    a->congested = a->loss > 0;
    return 0;
  }
  amcc_tfmcc_receiver_make_report (&a->rx, now, &rep);
  a->rate_bps = rep.rate_bps;
  a->loss = rep.loss_event_rate;
  a->rtt_s = amcc_tfmcc_receiver_rtt (&a->rx);
  a->congested = rep.have_loss;
  if ((w = amcc_tfmcc_report_encode (&rep, buf, cap)) < 0)
    return w;
  return amcc_app_made (out, AMCC_TFMCC_APP_REPORT, 0, (size_t) w);
}

static amcc_time
rx_early_due (amcc_receiver *r, amcc_time now)
{
  return amcc_tfmcc_receiver_next_report_time (&((tfmcc_rx *) r)->rx);
}

static void
rx_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st)
{
  tfmcc_rx *a = (tfmcc_rx *) r;

  st->rate_bps = a->rate_bps;
  st->loss = a->loss;
  st->rtt_s = a->rtt_s;
  st->congested = a->congested;
  st->packets_lost = a->have_ext ? (int64_t) (a->ext_max - a->ext_min + 1)
      - (int64_t) a->packets : 0;
}

static const amcc_receiver_ops receiver_ops = {
  .create = rx_create, .destroy = rx_destroy, .set_ssrc = rx_set_ssrc, .on_rtp = rx_on_rtp,
  .on_app = rx_on_app, .next_app = rx_next_app, .early_due = rx_early_due,
  .get_stats = rx_get_stats, .reset = rx_reset,
};

const amcc_protocol amcc_tfmcc_protocol = {
  .name = "tfmcc",
  .description = "TFMCC (RFC 4654, comparator)",
  .rtp_profile = AMCC_RTP_AVPF, /* early RTCP carries the sender fields and due reports */
  .max_streams = 1,
  .sender = &sender_ops,
  .receiver = &receiver_ops,
};
