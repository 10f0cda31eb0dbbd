/* gstamccrx.c - the receiver side of the lib/cc glue (an amcc_receiver of any protocol). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamcc.h"

struct _GstAmCcReceiver {
  GstAmCcCounters c;
  amcc_receiver *cc;
  GstAmSourceGuard *guard;
  gint64 now;
  guint32 own_ssrc;
  guint group_size;
  guint64 packets, bytes, bytes_at_stats;
  gint64 stats_time;
  gboolean have_send_time;
  gdouble avg_rtcp;             /* mean compound RTCP packet, bytes (gst_am_rtcp_avg_update) */
};

GstAmCcReceiver *
gst_am_cc_receiver_new (const GstAmCcConfig * cfg, gint64 now, guint32 own_ssrc)
{
  GstAmCcReceiver *r;
  amcc_ctl_config c;
  amcc_receiver *cc;

  amcc_ctl_config_init (&c);
  c.initial_bps = cfg->initial_bps;
  c.rtcp_interval = (gint64) MAX (cfg->rtcp_interval_ms, 1) * GST_MSECOND;
  c.clock_rate = cfg->clock_rate;
  c.ssrc = own_ssrc;
  c.seed = ((guint64) g_random_int () << 32) | g_random_int ();
  if (!(cc = amcc_receiver_new (cfg->protocol, &c, now)))
    return NULL;
  r = g_new0 (GstAmCcReceiver, 1);
  r->cc = cc;
  r->guard = gst_am_cc_guard_new (cfg, GST_AM_GUARD_PEER_SLACK);   /* SRs as they reached us */
  r->own_ssrc = own_ssrc;
  r->stats_time = now;
  r->avg_rtcp = GST_AM_RTCP_AVG_INIT;
  return r;
}

void
gst_am_cc_receiver_set_session (GstAmCcReceiver * r, gint64 now, const GstAmSessionLoad * l)
{
  gint64 td = gst_am_rtcp_interval (l, FALSE, r->avg_rtcp);

  if (td > 0)
    amcc_receiver_set_rtcp_interval (r->cc, now, td);
}

void
gst_am_cc_receiver_free (GstAmCcReceiver * r)
{
  if (!r)
    return;
  amcc_receiver_free (r->cc);
  gst_am_source_guard_free (r->guard);
  g_free (r);
}

static void
set_own_ssrc (GstAmCcReceiver * r, guint32 own_ssrc)
{
  if (own_ssrc == r->own_ssrc)
    return;
  r->own_ssrc = own_ssrc;
  amcc_receiver_set_ssrc (r->cc, own_ssrc);
}

void
gst_am_cc_receiver_on_extra_bytes (GstAmCcReceiver * r, gint64 now, gsize bytes)
{
  r->bytes += bytes;
  amcc_receiver_on_extra_bytes (r->cc, now, bytes);
}

void
gst_am_cc_receiver_on_rtp (GstAmCcReceiver * r, gint64 now, const GstAmRtpInfo * info)
{
  amcc_packet pkt = {
    .ssrc = info->ssrc, .seq = info->seq, .rtp_ts = info->rtp_ts,
    .bytes = (guint32) info->size,
    .send_time = info->has_send_time ? info->send_time_ns : AMCC_TIME_NONE,
    .has_extseq = info->has_extseq, .extseq = info->extseq,
  };

  r->packets++;
  r->bytes += info->size;
  r->have_send_time = info->has_send_time;
  amcc_receiver_on_rtp (r->cc, now, &pkt);
}

static void
rx_sender_report (gpointer u, guint32 ssrc)
{
  GstAmCcReceiver *r = u;

  amcc_receiver_on_sender_report (r->cc, r->now, ssrc, r->group_size);
}

static void
rx_app (gpointer u, guint32 ssrc, const gchar * name, guint8 subtype,
    const guint8 * data, gsize len)
{
  GstAmCcReceiver *r = u;

  gst_am_cc_count_app (&r->c, amcc_receiver_on_app (r->cc, r->now, ssrc, name, subtype, data,
          len));
}

gboolean
gst_am_cc_receiver_on_rtcp (GstAmCcReceiver * r, gint64 now, GstBuffer * buf,
    guint32 own_ssrc, guint group_size)
{
  static const GstAmRtcpVisitor visitor = { rx_sender_report, NULL, rx_app, NULL };
  guint32 sender;

  /* peers prove they receive the sender lib/cc measures */
  if (amcc_receiver_sender (r->cc, &sender))
    gst_am_source_guard_set_stream (r->guard, sender, TRUE);
  if (!gst_am_cc_guard_pass (&r->c, r->guard, buf, now))
    return FALSE;
  r->now = now;
  set_own_ssrc (r, own_ssrc);
  r->group_size = group_size;
  r->c.rtcp_in++;
  r->avg_rtcp = gst_am_rtcp_avg_update (r->avg_rtcp, gst_buffer_get_size (buf));
  if (!gst_am_rtcp_walk (buf, &visitor, r))
    r->c.rtcp_malformed++;
  return TRUE;
}

gboolean
gst_am_cc_receiver_on_sending_rtcp (GstAmCcReceiver * r, gint64 now, GstBuffer * buf,
    guint32 own_ssrc)
{
  guint8 payload[GST_AM_APP_MAX];
  amcc_app app;
  gint ret;
  gboolean appended;

  set_own_ssrc (r, own_ssrc);
  ret = amcc_receiver_next_app (r->cc, now, payload, MIN (gst_am_rtcp_app_room (buf),
          sizeof (payload)), &app);
  appended = gst_am_cc_append_app (&r->c, buf, own_ssrc, ret, &app, payload);
  /* rtpsession counts what leaves in its mean RTCP size: our APP included */
  r->avg_rtcp = gst_am_rtcp_avg_update (r->avg_rtcp, gst_buffer_get_size (buf));
  return appended;
}

gint64
gst_am_cc_receiver_report_due (GstAmCcReceiver * r, gint64 now)
{
  amcc_time due = amcc_receiver_early_due (r->cc, now);

  return due == AMCC_TIME_NONE ? 0 : due;
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
  amcc_receiver_stats cs;

  GstStructure *st;

  amcc_receiver_get_stats (r->cc, now, &cs);
  r->stats_time = now;
  r->bytes_at_stats = r->bytes;
  st = gst_structure_new ("asmpsrc-stats",
      "protocol", G_TYPE_STRING, amcc_receiver_protocol (r->cc)->name,
      "time", G_TYPE_DOUBLE, gst_am_wall (now) / 1e9,
      "ssrc", G_TYPE_UINT, r->own_ssrc,
      "sender-ssrc", G_TYPE_UINT, cs.sender_ssrc,
      "sender-changes", G_TYPE_UINT64, (guint64) cs.sender_changes,
      "rate-bps", G_TYPE_DOUBLE, cs.rate_bps,
      "recv-bitrate", G_TYPE_DOUBLE, recv_bps,
      "loss", G_TYPE_DOUBLE, cs.loss,
      "rtt-s", G_TYPE_DOUBLE, cs.rtt_s,
      "jitter-s", G_TYPE_DOUBLE, cs.jitter_s,
      "congested", G_TYPE_BOOLEAN, cs.congested,
      "mode", G_TYPE_STRING, cs.mode,
      "queue-s", G_TYPE_DOUBLE, cs.queue_s,
      "packets-received", G_TYPE_UINT64, r->packets,
      "bytes-received", G_TYPE_UINT64, r->bytes,
      "packets-lost", G_TYPE_INT64, (gint64) cs.packets_lost,
      "have-send-time", G_TYPE_BOOLEAN, r->have_send_time,
      "reports-sent", G_TYPE_UINT64, r->c.app_sent,
      "reports-suppressed", G_TYPE_UINT64, cs.reports_suppressed,
      "random-losses", G_TYPE_UINT64, cs.random_losses,
      "echoes-received", G_TYPE_UINT64, cs.echoes,
      "rtcp-received", G_TYPE_UINT64, r->c.rtcp_in,
      "rtcp-malformed", G_TYPE_UINT64, r->c.rtcp_malformed,
      "rtcp-spoofed", G_TYPE_UINT64, r->c.rtcp_spoofed,
      "rtcp-ssrc-full", G_TYPE_UINT64, r->c.rtcp_ssrc_full,
      "rtcp-host-full", G_TYPE_UINT64, r->c.rtcp_host_full,
      "rtcp-unproven-full", G_TYPE_UINT64, r->c.rtcp_unproven_full,
      "app-received", G_TYPE_UINT64, r->c.app_in,
      "app-malformed", G_TYPE_UINT64, r->c.app_malformed,
      "rtcp-interval-s", G_TYPE_DOUBLE, amcc_receiver_rtcp_interval (r->cc) / 1e9, NULL);
  if (amcc_receiver_protocol (r->cc)->max_streams > 1)      /* simulcast: where it is, wants */
    gst_structure_set (st, "stream", G_TYPE_UINT, cs.stream, "wanted-stream", G_TYPE_UINT,
        cs.wanted_stream, "stream-ups", G_TYPE_UINT64, (guint64) cs.stream_ups,
        "stream-downs", G_TYPE_UINT64, (guint64) cs.stream_downs, "share-bps", G_TYPE_DOUBLE,
        cs.share_bps, NULL);
  return st;
}

amcc_receiver *
gst_am_cc_receiver_controller (GstAmCcReceiver * r)
{
  return r->cc;
}
