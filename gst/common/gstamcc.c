/* gstamcc.c - RTCP walking/appending, the protocol enum and the sender side of the lib/cc glue. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamcc.h"

#include <gst/rtp/gstrtcpbuffer.h>
#include <gst/rtp/gstrtpdefs.h>
#include <amcc/rtcp_app.h>
#include <string.h>

GType
gst_am_protocol_get_type (void)
{
  static gsize id = 0;

  if (g_once_init_enter (&id)) {
    gsize i, k = 0, n = amcc_protocol_count ();
    GEnumValue *v = g_new0 (GEnumValue, n + 1);      /* lives as long as the type */
    /* the single-stream protocols: a simulcast one (ASSP) has elements of its own */
    for (i = 0; i < n; i++) {
      if (amcc_protocol_at (i)->max_streams != 1 || amcc_protocol_at (i)->max_layers)
        continue;       /* layered (AVMRC) has no sender role: elements of its own */
      v[k].value = (gint) i;
      v[k].value_name = amcc_protocol_at (i)->description;
      v[k].value_nick = amcc_protocol_at (i)->name;
      k++;
    }
    g_once_init_leave (&id, g_enum_register_static ("GstAmProtocol", v));
  }
  return (GType) id;
}

const amcc_protocol *
gst_am_protocol_get (gint value)
{
  const amcc_protocol *p = value >= 0 ? amcc_protocol_at ((gsize) value) : NULL;

  return p && p->max_streams == 1 && !p->max_layers ? p
      : amcc_protocol_at (GST_AM_PROTOCOL_DEFAULT);
}

const gchar *
gst_am_enum_blurb (GType enum_type, const gchar * lead, const gchar * tail)
{
  GEnumClass *klass = g_type_class_ref (enum_type);
  GString *s = g_string_new (lead);
  const gchar *interned;
  guint i;

  for (i = 0; i < klass->n_values; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 < klass->n_values ? ", " : " or ",
        klass->values[i].value_nick);
  g_string_append (s, tail);
  interned = g_intern_string (s->str);      /* lives as long as the process */
  g_string_free (s, TRUE);
  g_type_class_unref (klass);
  return interned;
}

gint
gst_am_protocol_rtp_profile (const amcc_protocol * p)
{
  /* AVPF allows the early RTCP a protocol may need to work at all */
  return p->rtp_profile == AMCC_RTP_AVPF ? GST_RTP_PROFILE_AVPF : GST_RTP_PROFILE_AVP;
}

guint32
gst_am_ntp_mid32 (gint64 now)
{
  return amcc_ntp_mid32 (amcc_ntp64_from_unix (gst_am_wall (now)));
}

gboolean
gst_am_rtcp_walk (GstBuffer * buf, const GstAmRtcpVisitor * v, gpointer u)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  gboolean more;

  /* reduced-size RTCP (RFC 5506) is accepted too: validation checks every length field */
  if (!gst_rtcp_buffer_validate_reduced (buf))
    return FALSE;
  if (!gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp))
    return FALSE;
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &pkt); more;
      more = gst_rtcp_packet_move_to_next (&pkt)) {
    GstRTCPType type = gst_rtcp_packet_get_type (&pkt);
    gsize bytes = ((gsize) gst_rtcp_packet_get_length (&pkt) + 1) * 4;

    if (type == GST_RTCP_TYPE_SR || type == GST_RTCP_TYPE_RR) {
      guint32 reporter;
      guint i, n = gst_rtcp_packet_get_rb_count (&pkt);
      gsize hdr = type == GST_RTCP_TYPE_SR ? 28 : 8;

      if (type == GST_RTCP_TYPE_SR) {
        if (bytes < 28)
          continue;
        gst_rtcp_packet_sr_get_sender_info (&pkt, &reporter, NULL, NULL, NULL, NULL);
        if (v->sender_report)
          v->sender_report (u, reporter);
      } else {
        reporter = gst_rtcp_packet_rr_get_ssrc (&pkt);
      }
      /* the block count must agree with the packet length */
      if (hdr + (gsize) n * 24 > bytes)
        continue;
      for (i = 0; i < n && v->report_block; i++) {
        guint32 ssrc, jitter, lsr, dlsr;
        guint8 fl;
        gint32 pl;
        guint32 ehs;

        gst_rtcp_packet_get_rb (&pkt, i, &ssrc, &fl, &pl, &ehs, &jitter, &lsr, &dlsr);
        v->report_block (u, reporter, ssrc, lsr, dlsr);
      }
    } else if (type == GST_RTCP_TYPE_APP && v->app) {
      const gchar *name = gst_rtcp_packet_app_get_name (&pkt);
      guint8 *data = gst_rtcp_packet_app_get_data (&pkt);
      gsize len = (gsize) gst_rtcp_packet_app_get_data_length (&pkt) * 4;

      if (bytes < 12 || !name || len > bytes - 12 || (len && !data))
        continue;
      v->app (u, gst_rtcp_packet_app_get_ssrc (&pkt), name,
          gst_rtcp_packet_app_get_subtype (&pkt), data, len);
    } else if (type == GST_RTCP_TYPE_BYE && v->bye) {
      guint i, n = gst_rtcp_packet_bye_get_ssrc_count (&pkt);
      for (i = 0; i < n && 4 + (gsize) (i + 1) * 4 <= bytes; i++)
        v->bye (u, gst_rtcp_packet_bye_get_nth_ssrc (&pkt, i));
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
  return TRUE;
}

/* An APP may go into a compound packet that starts with SR or RR (RFC 3550 6.1) and has no
 * BYE (the BYE must stay last). */
static gboolean
starts_with_report (GstRTCPBuffer * rtcp)
{
  GstRTCPPacket pkt;
  GstRTCPType t;
  gboolean more;

  if (!gst_rtcp_buffer_get_first_packet (rtcp, &pkt))
    return FALSE;
  t = gst_rtcp_packet_get_type (&pkt);
  if (t != GST_RTCP_TYPE_SR && t != GST_RTCP_TYPE_RR)
    return FALSE;
  for (more = TRUE; more; more = gst_rtcp_packet_move_to_next (&pkt))
    if (gst_rtcp_packet_get_type (&pkt) == GST_RTCP_TYPE_BYE)
      return FALSE;
  return TRUE;
}

gsize
gst_am_rtcp_app_room (GstBuffer * buf)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  gsize room = 0;

  if (!gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp))
    return 0;
  /* map.maxsize is what rtpsession allocated: the RTCP MTU */
  if (starts_with_report (&rtcp) && rtcp.map.maxsize > rtcp.map.size + 12)
    room = (rtcp.map.maxsize - rtcp.map.size - 12) & ~(gsize) 3;
  gst_rtcp_buffer_unmap (&rtcp);
  return room;
}

gboolean
gst_am_rtcp_append_app (GstBuffer * buf, guint8 subtype, guint32 ssrc,
    const gchar name[4], const guint8 * data, gsize len)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  gboolean ok = FALSE;

  if (len % 4 || !gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp))
    return FALSE;
  if (starts_with_report (&rtcp) && gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_APP, &pkt)) {
    gst_rtcp_packet_app_set_subtype (&pkt, subtype);
    gst_rtcp_packet_app_set_ssrc (&pkt, ssrc);
    gst_rtcp_packet_app_set_name (&pkt, name);
    /* fails (and we remove the packet) when the payload would exceed the MTU */
    if (gst_rtcp_packet_app_set_data_length (&pkt, len / 4)) {
      if (len)
        memcpy (gst_rtcp_packet_app_get_data (&pkt), data, len);
      ok = TRUE;
    } else {
      gst_rtcp_packet_remove (&pkt);
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
  return ok;
}

GstAmSourceGuard *
gst_am_cc_guard_new (const GstAmCcConfig * cfg, gint64 proof_slack)
{
  return gst_am_source_guard_new (MAX ((gint64) cfg->rtcp_interval_ms * 10, 30000) * GST_MSECOND,
      cfg->max_ssrcs_per_host, cfg->max_unproven_members, proof_slack);
}

GParamSpec *
gst_am_cc_unproven_param (GParamFlags flags)
{
  return g_param_spec_uint ("max-unproven-members", "Max unproven members",
      "RTCP SSRCs, from all source addresses together, that have not proven they receive the "
      "stream (a report block about it echoing one of its last 16 SRs; docs/security.md); "
      "while this many are live, RTCP from further new unproven SSRCs is dropped "
      "(rtcp-unproven-full), so that many hosts or spoofed addresses cannot grow the member "
      "count and the RTCP interval. Proven members do not count; an unproven one leaves after "
      "10 RTCP intervals (30 s at least) of silence. 0 = no limit", 0, G_MAXUINT,
      GST_AM_GUARD_MAX_UNPROVEN, flags);
}

gboolean
gst_am_cc_guard_pass (GstAmCcCounters * c, GstAmSourceGuard * g, GstBuffer * buf, gint64 now)
{
  switch (gst_am_source_guard_check (g, buf, now)) {
    case GST_AM_GUARD_SPOOFED:
      c->rtcp_spoofed++;
      return FALSE;
    case GST_AM_GUARD_FULL:
      c->rtcp_ssrc_full++;
      return FALSE;
    case GST_AM_GUARD_CROWDED:
      c->rtcp_host_full++;
      return FALSE;
    case GST_AM_GUARD_UNPROVEN:
      c->rtcp_unproven_full++;
      return FALSE;
    default:
      return TRUE;
  }
}

void
gst_am_cc_count_app (GstAmCcCounters * c, amcc_app_result res)
{
  if (res == AMCC_APP_TAKEN || res == AMCC_APP_MALFORMED)
    c->app_in++;
  if (res == AMCC_APP_MALFORMED)
    c->app_malformed++;
  else if (res == AMCC_APP_FOREIGN)
    c->app_foreign++;
  else if (res == AMCC_APP_UNPROVEN)
    c->app_unproven++;
  else if (res == AMCC_APP_EXCLUDED)
    c->app_excluded++;
}

gboolean
gst_am_cc_append_app (GstAmCcCounters * c, GstBuffer * buf, guint32 own_ssrc, gint ret,
    const amcc_app * app, const guint8 * payload)
{
  if (ret == AMCC_ERR_NOSPACE)
    c->app_no_room++;
  if (ret <= 0)
    return FALSE;
  if (!gst_am_rtcp_append_app (buf, app->subtype, own_ssrc, app->name, payload, app->len)) {
    c->app_no_room++;
    return FALSE;
  }
  c->app_sent++;
  return TRUE;
}

gint64
gst_am_rtcp_interval (const GstAmSessionLoad * l, gboolean we_send, gdouble avg_rtcp_bytes)
{
  gdouble rtcp_Bps = (l->rtcp_fraction < 1 ? l->rtcp_fraction * l->rtp_bps : l->rtcp_fraction)
      / 8;

  if (!(rtcp_Bps > 0))
    return 0;
  return (gint64) (amcc_rtcp_interval_det (l->members, l->senders, rtcp_Bps, we_send,
          avg_rtcp_bytes, MAX (l->min_interval, 1) / 1e9, 0) * GST_SECOND);
}

gdouble
gst_am_rtcp_avg_update (gdouble avg, gsize rtcp_bytes)
{
  return avg + ((gdouble) (rtcp_bytes + GST_AM_UDP_IP_OVERHEAD) - avg) / 16;
}

/* ---------------------------------------------------------------- sender */

struct _GstAmCcSender {
  GstAmCcCounters c;
  amcc_sender *cc;
  GstAmSourceGuard *guard;
  gint64 now;                   /* time of the event being handled */
  guint32 own_ssrc;
  guint64 packets, bytes, bytes_at_stats;
  gint64 stats_time;
  guint32 outlier_posted;       /* the outlier last announced, 0 = none */
  gdouble avg_rtcp;             /* mean compound RTCP packet, bytes (gst_am_rtcp_avg_update) */
  gint64 rtcp_interval;         /* the receivers' Td we last gave lib/cc, 0 = none yet */
};

gboolean
gst_am_cc_sender_exclude (GstAmCcSender * s, gint64 now, guint32 ssrc, gboolean exclude)
{
  return amcc_sender_exclude (s->cc, now, ssrc, exclude) == AMCC_OK;
}

amcc_sender *
gst_am_cc_sender_controller (GstAmCcSender * s)
{
  return s->cc;
}

GstAmCcSender *
gst_am_cc_sender_new (const GstAmCcConfig * cfg, gint64 now)
{
  GstAmCcSender *s;
  amcc_ctl_config c;
  amcc_sender *cc;

  amcc_ctl_config_init (&c);
  c.initial_bps = cfg->initial_bps;
  c.min_bps = cfg->min_bps;
  c.max_bps = cfg->max_bps;
  c.rtcp_interval = (gint64) MAX (cfg->rtcp_interval_ms, 1) * GST_MSECOND;
  c.receiver_timeout = (gint64) cfg->receiver_timeout_ms * GST_MSECOND;
  c.seed = ((guint64) g_random_int () << 32) | g_random_int ();
  /* a report counts once its receiver echoed one of our SRs (docs/security.md) */
  c.proofs = 1;
  if (!(cc = amcc_sender_new (cfg->protocol, &c, now)))
    return NULL;
  s = g_new0 (GstAmCcSender, 1);
  s->cc = cc;
  s->guard = gst_am_cc_guard_new (cfg, 0);   /* our SRs' send times: no slack */
  s->stats_time = now;
  s->avg_rtcp = GST_AM_RTCP_AVG_INIT;
  return s;
}

void
gst_am_cc_sender_set_session (GstAmCcSender * s, gint64 now, const GstAmSessionLoad * l)
{
  /* what a receiver of this session computes: its reports, not our SRs, are what lib/cc waits
   * for before it forgets a receiver */
  gint64 td = gst_am_rtcp_interval (l, FALSE, s->avg_rtcp);

  if (td <= 0)
    return;
  s->rtcp_interval = td;
  amcc_sender_set_rtcp_interval (s->cc, now, td);
}

void
gst_am_cc_sender_free (GstAmCcSender * s)
{
  if (!s)
    return;
  amcc_sender_free (s->cc);
  gst_am_source_guard_free (s->guard);
  g_free (s);
}

void
gst_am_cc_sender_on_rtp_sent (GstAmCcSender * s, gint64 now, gsize bytes)
{
  s->packets++;
  s->bytes += bytes;
  amcc_sender_on_rtp_sent (s->cc, now, bytes);
}

static void
tx_report_block (gpointer u, guint32 reporter, guint32 about, guint32 lsr, guint32 dlsr)
{
  GstAmCcSender *s = u;

  /* A of eq. 9 (A - LSR - DLSR): our wall clock as NTP 16.16, the clock rtpsession's SRs use */
  amcc_sender_on_report_block (s->cc, s->now, reporter, about, lsr, dlsr,
      gst_am_ntp_mid32 (s->now));
}

static void
tx_app (gpointer u, guint32 ssrc, const gchar * name, guint8 subtype,
    const guint8 * data, gsize len)
{
  GstAmCcSender *s = u;

  gst_am_cc_count_app (&s->c, amcc_sender_on_app (s->cc, s->now, ssrc, name, subtype, data,
          len));
}

static void
tx_bye (gpointer u, guint32 ssrc)
{
  GstAmCcSender *s = u;

  amcc_sender_on_bye (s->cc, s->now, ssrc);
}

gboolean
gst_am_cc_sender_on_rtcp (GstAmCcSender * s, gint64 now, GstBuffer * buf, guint32 own_ssrc)
{
  static const GstAmRtcpVisitor visitor = { NULL, tx_report_block, tx_app, tx_bye };

  gst_am_source_guard_set_stream (s->guard, own_ssrc, FALSE);      /* receivers prove they hear us */
  if (!gst_am_cc_guard_pass (&s->c, s->guard, buf, now))
    return FALSE;
  s->now = now;
  s->own_ssrc = own_ssrc;
  amcc_sender_set_ssrc (s->cc, own_ssrc);
  s->c.rtcp_in++;
  s->avg_rtcp = gst_am_rtcp_avg_update (s->avg_rtcp, gst_buffer_get_size (buf));
  if (!gst_am_rtcp_walk (buf, &visitor, s))
    s->c.rtcp_malformed++;
  return TRUE;
}

/* lib/cc keeps our SRs' NTP times: their receivers' LSR proves reception and gives eq. 9 on
 * our own clock */
static void
note_sr (GstAmCcSender * s, gint64 now, GstBuffer * buf, guint32 own_ssrc)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  guint32 ssrc;
  guint64 ntp;

  if (!gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp))
    return;
  if (gst_rtcp_buffer_get_first_packet (&rtcp, &p)
      && gst_rtcp_packet_get_type (&p) == GST_RTCP_TYPE_SR) {
    gst_rtcp_packet_sr_get_sender_info (&p, &ssrc, &ntp, NULL, NULL, NULL);
    if (ssrc == own_ssrc) {
      amcc_sender_on_sr_sent (s->cc, now, amcc_ntp_mid32 (ntp));
      gst_am_source_guard_set_stream (s->guard, own_ssrc, FALSE);
      gst_am_source_guard_note_sr (s->guard, now, amcc_ntp_mid32 (ntp));
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
}

gboolean
gst_am_cc_sender_on_sending_rtcp (GstAmCcSender * s, gint64 now, GstBuffer * buf,
    guint32 own_ssrc)
{
  guint8 payload[GST_AM_APP_MAX];
  amcc_app app;
  gint ret;
  gboolean appended;

  s->own_ssrc = own_ssrc;
  amcc_sender_set_ssrc (s->cc, own_ssrc);
  note_sr (s, now, buf, own_ssrc);
  ret = amcc_sender_next_app (s->cc, now, payload, MIN (gst_am_rtcp_app_room (buf),
          sizeof (payload)), &app);
  appended = gst_am_cc_append_app (&s->c, buf, own_ssrc, ret, &app, payload);
  /* rtpsession counts what leaves in its mean RTCP size: our APP included */
  s->avg_rtcp = gst_am_rtcp_avg_update (s->avg_rtcp, gst_buffer_get_size (buf));
  return appended;
}

guint
gst_am_cc_sender_rate (GstAmCcSender * s, gint64 now)
{
  return (guint) amcc_sender_rate (s->cc, now);
}

gint64
gst_am_cc_sender_early_due (GstAmCcSender * s, gint64 now)
{
  amcc_time due = amcc_sender_early_due (s->cc, now);

  return due == AMCC_TIME_NONE ? 0 : due;
}

void
gst_am_cc_sender_set_limits (GstAmCcSender * s, guint min_bps, guint max_bps)
{
  amcc_sender_set_limits (s->cc, min_bps, max_bps);
}

gdouble
gst_am_cc_sender_worst_loss (GstAmCcSender * s, gint64 now)
{
  amcc_time timeout = amcc_sender_receiver_timeout (s->cc);
  const amcc_peer *p;
  gsize it = 0;
  gdouble worst = 0;

  while ((p = amcc_sender_next_peer (s->cc, &it)))
    if (p->reported != AMCC_TIME_NONE && now - p->reported <= timeout && p->loss > worst)
      worst = p->loss;
  return worst;
}

const GstAmCcCounters *
gst_am_cc_sender_counters (GstAmCcSender * s)
{
  return &s->c;
}

GstStructure *
gst_am_cc_sender_stats (GstAmCcSender * s, gint64 now, guint target_bps,
    GstStructure ** outlier)
{
  GValue arr = G_VALUE_INIT;
  GstStructure *st;
  amcc_sender_stats cs;
  const amcc_peer *p;
  gsize it = 0;
  gdouble dt = (now - s->stats_time) / 1e9;
  gdouble sent_bps = dt > 0 ? (s->bytes - s->bytes_at_stats) * 8.0 / dt : 0;

  s->stats_time = now;
  s->bytes_at_stats = s->bytes;
  amcc_sender_get_stats (s->cc, now, &cs);
  if (outlier)
    *outlier = NULL;
  if (cs.have_outlier && cs.outlier_ssrc != s->outlier_posted && outlier)
    *outlier = gst_structure_new ("asmpsink-outlier",
        "ssrc", G_TYPE_UINT, cs.outlier_ssrc,
        "rate-bps", G_TYPE_DOUBLE, cs.outlier_rate_bps,
        "next-rate-bps", G_TYPE_DOUBLE, cs.next_rate_bps, NULL);
  s->outlier_posted = cs.have_outlier ? cs.outlier_ssrc : 0;

  g_value_init (&arr, GST_TYPE_ARRAY);
  while ((p = amcc_sender_next_peer (s->cc, &it))) {
    GValue sv = G_VALUE_INIT;
    g_value_init (&sv, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&sv, gst_structure_new ("receiver",
            "ssrc", G_TYPE_UINT, p->ssrc,
            "rate-bps", G_TYPE_DOUBLE, p->rate_bps,
            "loss", G_TYPE_DOUBLE, p->loss,
            "rtt-s", G_TYPE_DOUBLE, p->rtt_s,
            "jitter-s", G_TYPE_DOUBLE, p->jitter_s,
            "congested", G_TYPE_BOOLEAN, p->congested,
            "sender-rtt-s", G_TYPE_DOUBLE, p->sender_rtt_s,
            "excluded", G_TYPE_BOOLEAN, p->excluded,
            "age-s", G_TYPE_DOUBLE, (now - p->reported) / 1e9, NULL));
    gst_value_array_append_and_take_value (&arr, &sv);
  }

  st = gst_structure_new ("asmpsink-stats",
      "protocol", G_TYPE_STRING, amcc_sender_protocol (s->cc)->name,
      "time", G_TYPE_DOUBLE, gst_am_wall (now) / 1e9,
      "ssrc", G_TYPE_UINT, s->own_ssrc,
      "target-bitrate", G_TYPE_UINT, target_bps,
      "sent-bitrate", G_TYPE_DOUBLE, sent_bps,
      "receivers", G_TYPE_UINT, cs.receivers,
      "min-receiver-bitrate", G_TYPE_DOUBLE, cs.have_slowest ? cs.slowest_rate_bps : 0.0,
      "slowest-ssrc", G_TYPE_UINT, cs.have_slowest ? cs.slowest_ssrc : 0,
      "packets-sent", G_TYPE_UINT64, s->packets,
      "bytes-sent", G_TYPE_UINT64, s->bytes,
      "rtcp-received", G_TYPE_UINT64, s->c.rtcp_in,
      "rtcp-malformed", G_TYPE_UINT64, s->c.rtcp_malformed,
      "rtcp-spoofed", G_TYPE_UINT64, s->c.rtcp_spoofed,
      "rtcp-ssrc-full", G_TYPE_UINT64, s->c.rtcp_ssrc_full,
      "rtcp-host-full", G_TYPE_UINT64, s->c.rtcp_host_full,
      "rtcp-unproven-full", G_TYPE_UINT64, s->c.rtcp_unproven_full,
      "app-received", G_TYPE_UINT64, s->c.app_in,
      "app-malformed", G_TYPE_UINT64, s->c.app_malformed,
      "app-unproven", G_TYPE_UINT64, s->c.app_unproven,
      "app-excluded", G_TYPE_UINT64, s->c.app_excluded,
      "app-implausible", G_TYPE_UINT64, (guint64) cs.implausible,
      "app-limited", G_TYPE_UINT64, (guint64) cs.limited,
      "app-damped", G_TYPE_UINT64, (guint64) cs.damped,
      "app-held", G_TYPE_UINT64, (guint64) cs.held,
      "acker-demoted", G_TYPE_UINT64, (guint64) cs.demoted,
      "outlier-ssrc", G_TYPE_UINT, cs.have_outlier ? cs.outlier_ssrc : 0,
      "excluded", G_TYPE_UINT, cs.excluded,
      "app-sent", G_TYPE_UINT64, s->c.app_sent,
      "app-no-room", G_TYPE_UINT64, s->c.app_no_room,
      "rtcp-interval-s", G_TYPE_DOUBLE, s->rtcp_interval / 1e9,
      "receiver-timeout-s", G_TYPE_DOUBLE, amcc_sender_receiver_timeout (s->cc) / 1e9, NULL);
  gst_structure_take_value (st, "reports", &arr);
  return st;
}
