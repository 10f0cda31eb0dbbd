/* gstamccrx.c - the receiver side of the lib/cc glue (ASMP or TFMCC receiver). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamcc.h"

#include <string.h>
#include <amcc/asmp.h>
#include <amcc/tfmcc.h>

#define MAX_ECHO_IN 256

struct _GstAmCcReceiver {
  GstAmCcConfig cfg;
  GstAmCcCounters c;
  amcc_asmp_receiver asmp;
  struct amcc_tfmcc_receiver tfmcc;
  gboolean is_tfmcc;
  GRand *rand;
  gint64 now;
  guint32 own_ssrc, sender_ssrc;
  guint group_size;
  gint64 report_due;            /* ASMP eq. 20 time, 0 = regular RTCP */
  guint64 packets, bytes, bytes_at_stats;
  gint64 stats_time;
  gboolean have_send_time;
  gboolean have_ext;            /* range of the sender's extended seq, for the loss count */
  guint32 ext_min, ext_max;
  guint64 reports_sent, reports_suppressed, echoes;
  /* last values made for stats */
  gdouble rate_bps, loss, rtt_s, jitter_s, queue_s;
  gboolean congested;
  const gchar *mode;            /* controller regime, "" when the protocol has none */
};

GstAmCcReceiver *
gst_am_cc_receiver_new (const GstAmCcConfig * cfg, gint64 now, guint32 own_ssrc)
{
  GstAmCcReceiver *r = g_new0 (GstAmCcReceiver, 1);

  r->cfg = *cfg;
  r->own_ssrc = own_ssrc;
  r->rand = g_rand_new ();
  r->stats_time = now;
  r->is_tfmcc = cfg->protocol == GST_AM_PROTOCOL_TFMCC;
  if (r->is_tfmcc) {
    struct amcc_tfmcc_params p;
    amcc_tfmcc_params_init (&p);
    amcc_tfmcc_receiver_init (&r->tfmcc, &p, own_ssrc, now);
  } else {
    amcc_asmp_params p;
    amcc_asmp_params_init (&p);
    if (cfg->initial_bps)
      p.initial_rate_bps = cfg->initial_bps;
    amcc_asmp_receiver_init (&r->asmp, &p, cfg->clock_rate ? cfg->clock_rate : 90000);
  }
  return r;
}

void
gst_am_cc_receiver_free (GstAmCcReceiver * r)
{
  if (!r)
    return;
  g_rand_free (r->rand);
  g_free (r);
}

void
gst_am_cc_receiver_on_rtp (GstAmCcReceiver * r, gint64 now, const GstAmRtpInfo * info)
{
  r->packets++;
  r->bytes += info->size;
  r->sender_ssrc = info->ssrc;
  r->have_send_time = info->has_send_time;
  if (info->has_extseq) {
    if (!r->have_ext || info->extseq < r->ext_min)
      r->ext_min = info->extseq;
    if (!r->have_ext || info->extseq > r->ext_max)
      r->ext_max = info->extseq;
    r->have_ext = TRUE;
  }
  if (r->is_tfmcc) {
    /* tfmcc.h: sender timestamps are the sender clock in us, low 32 bits */
    amcc_tfmcc_receiver_on_rtp (&r->tfmcc, now, info->seq, info->size,
        info->has_send_time, (guint32) (info->send_time_ns / 1000));
  } else {
    amcc_asmp_receiver_on_rtp (&r->asmp, now, info->seq, info->rtp_ts,
        info->has_send_time ? info->send_time_ns : AMCC_TIME_NONE, (guint32) info->size);
  }
}

static void
rx_sender_report (gpointer u, guint32 ssrc)
{
  GstAmCcReceiver *r = u;
  gint64 interval = (gint64) r->cfg.rtcp_interval_ms * GST_MSECOND;
  gint64 due;

  if (r->is_tfmcc || ssrc == r->own_ssrc)
    return;
  /* each SR starts an ASMP feedback round; lib/cc says when to report (eq. 20 above T_suspend) */
  due = amcc_asmp_receiver_schedule (&r->asmp, r->now, interval, MAX (r->group_size, 1),
      g_rand_double (r->rand));
  r->report_due = due < r->now + interval ? due : 0;
}

static void
rx_app (gpointer u, guint32 ssrc, const gchar * name, guint8 subtype,
    const guint8 * data, gsize len)
{
  GstAmCcReceiver *r = u;

  if (ssrc == r->own_ssrc)
    return;
  if (!r->is_tfmcc && memcmp (name, AMCC_ASMP_APP_NAME, 4) == 0) {
    r->c.app_in++;
    if (subtype == AMCC_ASMP_SUBTYPE_ECHO) {
      amcc_asmp_echo_entry e[MAX_ECHO_IN];
      size_t n = MAX_ECHO_IN, i;
      int ret = amcc_asmp_echo_decode (data, len, e, &n);
      if (ret == AMCC_ERR_NOSPACE) {  /* more entries than we keep: look ours up directly */
        amcc_time rtt;
        if (amcc_asmp_echo_lookup (data, len, r->own_ssrc, &rtt) == AMCC_OK
            && amcc_asmp_receiver_on_rtt_echo (&r->asmp, r->now, rtt) == AMCC_OK)
          r->echoes++;
        return;
      }
      if (ret != AMCC_OK) {
        r->c.app_malformed++;
        return;
      }
      for (i = 0; i < n; i++)
        if (e[i].ssrc == r->own_ssrc
            && amcc_asmp_receiver_on_rtt_echo (&r->asmp, r->now, e[i].rtt) == AMCC_OK)
          r->echoes++;
    } else if (subtype == AMCC_ASMP_SUBTYPE_REPORT) {
      amcc_asmp_report rep;
      if (amcc_asmp_report_decode (data, len, &rep) != AMCC_OK) {
        r->c.app_malformed++;
        return;
      }
      /* a peer's report: feedback suppression (section 3.8) */
      amcc_asmp_receiver_on_peer_report (&r->asmp, r->now, rep.rate_bps);
    } else {
      r->c.app_malformed++;
    }
  } else if (r->is_tfmcc && memcmp (name, AMCC_TFMCC_APP_SENDER, 4) == 0) {
    struct amcc_tfmcc_sender_info info;
    r->c.app_in++;
    if (amcc_tfmcc_sender_info_decode (&info, data, len) < 0) {
      r->c.app_malformed++;
      return;
    }
    /* uniform x in (0,1] for the feedback timer */
    amcc_tfmcc_receiver_on_sender_info (&r->tfmcc, r->now, &info,
        1.0 - g_rand_double (r->rand));
  } else if (r->is_tfmcc && memcmp (name, AMCC_TFMCC_APP_REPORT, 4) == 0) {
    r->c.app_in++;              /* a peer's report: TFMCC suppresses via the sender's X_supp */
  } else {
    r->c.app_foreign++;
  }
}

void
gst_am_cc_receiver_on_rtcp (GstAmCcReceiver * r, gint64 now, GstBuffer * buf,
    guint32 own_ssrc, guint group_size)
{
  static const GstAmRtcpVisitor visitor = { rx_sender_report, NULL, rx_app, NULL };

  r->now = now;
  r->own_ssrc = own_ssrc;
  r->group_size = group_size;
  r->c.rtcp_in++;
  if (!gst_am_rtcp_walk (buf, &visitor, r))
    r->c.rtcp_malformed++;
}

gboolean
gst_am_cc_receiver_on_sending_rtcp (GstAmCcReceiver * r, gint64 now, GstBuffer * buf,
    guint32 own_ssrc)
{
  guint8 payload[64];
  gsize written = 0;
  gboolean ok;

  r->own_ssrc = own_ssrc;
  if (gst_am_rtcp_app_room (buf) < MAX (AMCC_ASMP_REPORT_LEN, AMCC_TFMCC_REPORT_LEN)) {
    r->c.app_no_room++;
    return FALSE;
  }
  if (r->is_tfmcc) {
    struct amcc_tfmcc_report rep;
    amcc_time due = amcc_tfmcc_receiver_next_report_time (&r->tfmcc);
    int w;
    if (due == AMCC_TIME_NONE || due > now) {
      /* RFC 4654 4.5: only when the feedback timer (or the CLR's per-RTT report) is due; a
       * report in every RTCP packet would bypass the timer and X_supp suppression */
      r->rate_bps = amcc_tfmcc_receiver_rate (&r->tfmcc);
      r->loss = amcc_tfmcc_receiver_loss_event_rate (&r->tfmcc);
      r->rtt_s = amcc_tfmcc_receiver_rtt (&r->tfmcc);
      r->congested = r->loss > 0;
      return FALSE;
    }
    amcc_tfmcc_receiver_make_report (&r->tfmcc, now, &rep);
    r->rate_bps = rep.rate_bps;
    r->loss = rep.loss_event_rate;
    r->rtt_s = amcc_tfmcc_receiver_rtt (&r->tfmcc);
    r->congested = rep.have_loss;
    w = amcc_tfmcc_report_encode (&rep, payload, sizeof (payload));
    if (w < 0)
      return FALSE;
    written = w;
    ok = gst_am_rtcp_append_app (buf, 0, own_ssrc, AMCC_TFMCC_APP_REPORT, payload, written);
  } else {
    amcc_asmp_report rep;
    /* every RTCP interval closes a measurement interval, suppressed or not */
    amcc_asmp_receiver_make_report (&r->asmp, now, &rep);
    r->report_due = 0;
    r->rate_bps = rep.rate_bps;
    r->loss = rep.loss;
    r->rtt_s = rep.rtt_s;
    r->jitter_s = rep.jitter_s;
    r->congested = rep.ci == AMCC_CI_CONGESTED;
    r->queue_s = rep.queue_s;
    r->mode = rep.mode == AMCC_ASMP_STARTUP ? "startup" : rep.mode == AMCC_ASMP_DELAY ? "delay"
        : "competing";
    if (amcc_asmp_receiver_suppressed (&r->asmp)) {
      r->reports_suppressed++;
      return FALSE;
    }
    if (amcc_asmp_report_encode (&rep, payload, sizeof (payload), &written) != AMCC_OK)
      return FALSE;
    ok = gst_am_rtcp_append_app (buf, AMCC_ASMP_SUBTYPE_REPORT, own_ssrc,
        AMCC_ASMP_APP_NAME, payload, written);
  }
  if (ok) {
    r->c.app_sent++;
    r->reports_sent++;
  } else {
    r->c.app_no_room++;
  }
  return ok;
}

gint64
gst_am_cc_receiver_report_due (GstAmCcReceiver * r)
{
  if (r->is_tfmcc) {
    amcc_time t = amcc_tfmcc_receiver_next_report_time (&r->tfmcc);
    return t == AMCC_TIME_NONE ? 0 : t;
  }
  return r->report_due;
}

const GstAmCcCounters *
gst_am_cc_receiver_counters (GstAmCcReceiver * r)
{
  return &r->c;
}

GstStructure *
gst_am_cc_receiver_stats (GstAmCcReceiver * r, gint64 now)
{
  gdouble dt = (now - r->stats_time) / 1e9;
  gdouble recv_bps = dt > 0 ? (r->bytes - r->bytes_at_stats) * 8.0 / dt : 0;
  gint64 lost = r->is_tfmcc ? (r->have_ext ? (gint64) (r->ext_max - r->ext_min + 1)
      - (gint64) r->packets : 0) : amcc_seq_lost (&r->asmp.seq);

  r->stats_time = now;
  r->bytes_at_stats = r->bytes;
  return gst_structure_new ("asmpsrc-stats",
      "protocol", G_TYPE_STRING, gst_am_protocol_name (r->cfg.protocol),
      "time", G_TYPE_DOUBLE, now / 1e9,
      "ssrc", G_TYPE_UINT, r->own_ssrc,
      "sender-ssrc", G_TYPE_UINT, r->sender_ssrc,
      "rate-bps", G_TYPE_DOUBLE, r->rate_bps,
      "recv-bitrate", G_TYPE_DOUBLE, recv_bps,
      "loss", G_TYPE_DOUBLE, r->loss,
      "rtt-s", G_TYPE_DOUBLE, r->rtt_s,
      "jitter-s", G_TYPE_DOUBLE, r->jitter_s,
      "congested", G_TYPE_BOOLEAN, r->congested,
      "mode", G_TYPE_STRING, r->mode ? r->mode : "",
      "queue-s", G_TYPE_DOUBLE, r->queue_s,
      "packets-received", G_TYPE_UINT64, r->packets,
      "bytes-received", G_TYPE_UINT64, r->bytes,
      "packets-lost", G_TYPE_INT64, lost,
      "have-send-time", G_TYPE_BOOLEAN, r->have_send_time,
      "reports-sent", G_TYPE_UINT64, r->reports_sent,
      "reports-suppressed", G_TYPE_UINT64, r->reports_suppressed,
      "echoes-received", G_TYPE_UINT64, r->echoes,
      "rtcp-received", G_TYPE_UINT64, r->c.rtcp_in,
      "rtcp-malformed", G_TYPE_UINT64, r->c.rtcp_malformed,
      "app-received", G_TYPE_UINT64, r->c.app_in,
      "app-malformed", G_TYPE_UINT64, r->c.app_malformed, NULL);
}
