/* gstamcc.c - RTCP walking/appending and the sender side of the lib/cc glue. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamcc.h"

#include <gst/rtp/gstrtcpbuffer.h>
#include <string.h>
#include <amcc/asmp.h>
#include <amcc/rtt.h>
#include <amcc/tfmcc.h>

#define MAX_ECHO 128            /* echo entries per SR at most (the MTU usually binds first) */

guint32
gst_am_ntp_mid32 (gint64 wall_ns)
{
  return (guint32) (gst_am_ntp64_from_unix_ns (wall_ns) >> 16);
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

/* ---------------------------------------------------------------- sender */

typedef struct {
  guint32 ssrc;
  gint64 last;                  /* wall ns of the last report */
  gdouble rate_bps, loss, rtt_s, jitter_s;
  gboolean congested;
  gdouble echo_rtt_s;           /* our RTCP RTT for it (eq. 9), 0 = unknown */
  gint64 heard;                 /* TFMCC: wall ns of its last RTCP about us (RR or report) */
} ReceiverView;

struct _GstAmCcSender {
  GstAmCcConfig cfg;
  GstAmCcCounters c;
  amcc_asmp_sender *asmp;
  struct amcc_tfmcc_sender *tfmcc;
  GHashTable *rx;               /* ssrc -> ReceiverView, for stats only */
  gint64 now;                   /* time of the event being handled */
  guint32 own_ssrc;
  guint64 packets, bytes, bytes_at_stats;
  gint64 stats_time;
};

static ReceiverView *
view (GstAmCcSender * s, guint32 ssrc)
{
  ReceiverView *v = g_hash_table_lookup (s->rx, GUINT_TO_POINTER (ssrc));

  if (!v) {
    v = g_new0 (ReceiverView, 1);
    v->ssrc = ssrc;
    g_hash_table_insert (s->rx, GUINT_TO_POINTER (ssrc), v);
  }
  return v;
}

GstAmCcSender *
gst_am_cc_sender_new (const GstAmCcConfig * cfg, gint64 now)
{
  GstAmCcSender *s = g_new0 (GstAmCcSender, 1);

  s->cfg = *cfg;
  s->rx = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->stats_time = now;
  if (cfg->protocol == GST_AM_PROTOCOL_TFMCC) {
    struct amcc_tfmcc_params p;
    amcc_tfmcc_params_init (&p);
    /* slowstart from the encoder's initial bitrate, not 1 packet per R_max (docs/elements.md) */
    p.initial_rate_bps = cfg->initial_bps;
    p.min_rate_bps = cfg->min_bps;
    p.max_rate_bps = cfg->max_bps;
    s->tfmcc = amcc_tfmcc_sender_new (&p, now);
  } else {
    amcc_asmp_params p;
    amcc_asmp_params_init (&p);
    p.initial_rate_bps = cfg->initial_bps;
    p.min_rate_bps = cfg->min_bps;
    p.max_rate_bps = cfg->max_bps;
    /* a receiver is gone after 3 silent RTCP intervals (spec: "e.g. after 3 intervals") */
    p.receiver_timeout = (gint64) (cfg->receiver_timeout_ms ? cfg->receiver_timeout_ms
        : MAX (cfg->rtcp_interval_ms, 1) * 3) * GST_MSECOND;
    s->asmp = amcc_asmp_sender_new (&p, now);
  }
  if (!s->asmp && !s->tfmcc) {
    gst_am_cc_sender_free (s);
    return NULL;
  }
  return s;
}

void
gst_am_cc_sender_free (GstAmCcSender * s)
{
  if (!s)
    return;
  if (s->asmp)
    amcc_asmp_sender_free (s->asmp);
  if (s->tfmcc)
    amcc_tfmcc_sender_free (s->tfmcc);
  g_hash_table_destroy (s->rx);
  g_free (s);
}

void
gst_am_cc_sender_on_rtp_sent (GstAmCcSender * s, gint64 now, gsize bytes)
{
  s->packets++;
  s->bytes += bytes;
  if (s->tfmcc)
    amcc_tfmcc_sender_on_packet_sent (s->tfmcc, now, bytes);
}

static void
tx_report_block (gpointer u, guint32 reporter, guint32 about, guint32 lsr, guint32 dlsr)
{
  GstAmCcSender *s = u;
  amcc_time rtt;

  /* TFMCC counts receivers by their RTCP: suppression keeps most TFMR reports rare (4.5) */
  if (about == s->own_ssrc && s->tfmcc)
    view (s, reporter)->heard = s->now;
  if (about != s->own_ssrc || !s->asmp)
    return;
  /* eq. 9 (A - LSR - DLSR) is computed by lib/cc; A is our wall clock as NTP 16.16 */
  if (amcc_rtcp_rtt (gst_am_ntp_mid32 (s->now), lsr, dlsr, &rtt) != AMCC_OK)
    return;
  if (amcc_asmp_sender_on_report_block (s->asmp, s->now, reporter, rtt) == AMCC_OK)
    view (s, reporter)->echo_rtt_s = amcc_time_to_s (rtt);
}

static void
tx_app (gpointer u, guint32 ssrc, const gchar * name, guint8 subtype,
    const guint8 * data, gsize len)
{
  GstAmCcSender *s = u;
  ReceiverView *v;

  if (s->asmp && memcmp (name, AMCC_ASMP_APP_NAME, 4) == 0) {
    amcc_asmp_report r;
    if (subtype == AMCC_ASMP_SUBTYPE_ECHO)
      return;                   /* another sender's echo (or our own, looped back) */
    s->c.app_in++;
    if (subtype != AMCC_ASMP_SUBTYPE_REPORT
        || amcc_asmp_report_decode (data, len, &r) != AMCC_OK
        || amcc_asmp_sender_on_report (s->asmp, s->now, ssrc, &r) != AMCC_OK) {
      s->c.app_malformed++;
      return;
    }
    v = view (s, ssrc);
    v->last = s->now;
    v->rate_bps = r.rate_bps;
    v->loss = r.loss;
    v->rtt_s = r.rtt_s;
    v->jitter_s = r.jitter_s;
    v->congested = r.ci == AMCC_CI_CONGESTED;
  } else if (s->tfmcc && memcmp (name, AMCC_TFMCC_APP_REPORT, 4) == 0) {
    struct amcc_tfmcc_report r;
    s->c.app_in++;
    if (amcc_tfmcc_report_decode (&r, data, len) < 0) {
      s->c.app_malformed++;
      return;
    }
    amcc_tfmcc_sender_on_report (s->tfmcc, s->now, ssrc, &r);
    if (r.leaving) {            /* RFC 4654 4: the leave flag, like a BYE */
      g_hash_table_remove (s->rx, GUINT_TO_POINTER (ssrc));
      return;
    }
    v = view (s, ssrc);
    v->heard = s->now;
    v->last = s->now;
    v->rate_bps = r.rate_bps;
    v->loss = r.loss_event_rate;
    v->congested = r.have_loss;
  } else if (memcmp (name, AMCC_TFMCC_APP_SENDER, 4) != 0) {
    s->c.app_foreign++;
  }
}

static void
tx_bye (gpointer u, guint32 ssrc)
{
  GstAmCcSender *s = u;

  if (s->asmp)
    amcc_asmp_sender_on_bye (s->asmp, s->now, ssrc);
  if (s->tfmcc)
    amcc_tfmcc_sender_on_bye (s->tfmcc, s->now, ssrc);
  g_hash_table_remove (s->rx, GUINT_TO_POINTER (ssrc));
}

void
gst_am_cc_sender_on_rtcp (GstAmCcSender * s, gint64 now, GstBuffer * buf, guint32 own_ssrc)
{
  static const GstAmRtcpVisitor visitor = { NULL, tx_report_block, tx_app, tx_bye };

  s->now = now;
  s->own_ssrc = own_ssrc;
  s->c.rtcp_in++;
  if (!gst_am_rtcp_walk (buf, &visitor, s))
    s->c.rtcp_malformed++;
}

gboolean
gst_am_cc_sender_on_sending_rtcp (GstAmCcSender * s, gint64 now, GstBuffer * buf,
    guint32 own_ssrc)
{
  gsize room = gst_am_rtcp_app_room (buf);
  guint8 payload[AMCC_ASMP_ECHO_HEADER_LEN + MAX_ECHO * AMCC_ASMP_ECHO_ENTRY_LEN];
  gsize written = 0;
  gboolean ok;

  s->own_ssrc = own_ssrc;
  if (s->asmp) {
    amcc_asmp_echo_entry e[MAX_ECHO];
    size_t n = MIN ((size_t) AMCC_ASMP_ECHO_FIT (room), (size_t) MAX_ECHO);
    if (room < AMCC_ASMP_ECHO_HEADER_LEN) {
      s->c.app_no_room++;
      return FALSE;
    }
    /* ask only for what fits, so no fresh RTT is consumed and then dropped */
    n = amcc_asmp_sender_fill_echo (s->asmp, now, e, n);
    if (amcc_asmp_echo_encode (e, n, payload, sizeof (payload), &written) != AMCC_OK)
      return FALSE;
    ok = gst_am_rtcp_append_app (buf, AMCC_ASMP_SUBTYPE_ECHO, own_ssrc,
        AMCC_ASMP_APP_NAME, payload, written);
  } else {
    struct amcc_tfmcc_sender_info info;
    int w;
    if (room < AMCC_TFMCC_SENDER_INFO_LEN) {
      s->c.app_no_room++;
      return FALSE;
    }
    amcc_tfmcc_sender_fill_info (s->tfmcc, now, &info);
    w = amcc_tfmcc_sender_info_encode (&info, payload, sizeof (payload));
    if (w < 0)
      return FALSE;
    ok = gst_am_rtcp_append_app (buf, 0, own_ssrc, AMCC_TFMCC_APP_SENDER, payload, w);
  }
  if (ok)
    s->c.app_sent++;
  else
    s->c.app_no_room++;
  return ok;
}

guint
gst_am_cc_sender_rate (GstAmCcSender * s, gint64 now)
{
  gdouble r = s->asmp ? amcc_asmp_sender_rate (s->asmp, now)
      : amcc_tfmcc_sender_rate (s->tfmcc, now);

  if (!(r >= s->cfg.min_bps))
    r = s->cfg.min_bps;
  if (r > s->cfg.max_bps)
    r = s->cfg.max_bps;
  return (guint) r;
}

gint64
gst_am_cc_sender_early_interval (GstAmCcSender * s)
{
  struct amcc_tfmcc_sender_state st;

  if (!s->tfmcc)
    return 0;
  /* tfmcc.h: extra sender APPs about every R_max / 4 keep feedback rounds going */
  amcc_tfmcc_sender_get_state (s->tfmcc, &st);
  return (gint64) (st.r_max_s / 4 * GST_SECOND);
}

void
gst_am_cc_sender_set_limits (GstAmCcSender * s, guint min_bps, guint max_bps)
{
  s->cfg.min_bps = min_bps;
  s->cfg.max_bps = max_bps;
}

const GstAmCcCounters *
gst_am_cc_sender_counters (GstAmCcSender * s)
{
  return &s->c;
}

GstStructure *
gst_am_cc_sender_stats (GstAmCcSender * s, gint64 now, guint target_bps)
{
  GValue arr = G_VALUE_INIT;
  GHashTableIter it;
  gpointer val;
  GstStructure *st;
  gdouble dt = (now - s->stats_time) / 1e9;
  gdouble sent_bps = dt > 0 ? (s->bytes - s->bytes_at_stats) * 8.0 / dt : 0;
  guint receivers = 0;
  guint32 slowest = 0;
  gdouble slowest_bps = 0;

  s->stats_time = now;
  s->bytes_at_stats = s->bytes;
  if (s->asmp) {
    amcc_asmp_sender_stats as;
    amcc_asmp_sender_get_stats (s->asmp, &as);
    receivers = as.receivers;
    if (as.rated) {
      slowest = as.slowest_ssrc;
      slowest_bps = as.slowest_rate_bps;
    }
  } else {
    struct amcc_tfmcc_sender_state ts;
    amcc_tfmcc_sender_get_state (s->tfmcc, &ts);
    /* heard within the ASMP receiver timeout (3 RTCP intervals unless set) */
    gint64 timeout = (gint64) (s->cfg.receiver_timeout_ms ? s->cfg.receiver_timeout_ms
        : MAX (s->cfg.rtcp_interval_ms, 1) * 3) * GST_MSECOND;
    g_hash_table_iter_init (&it, s->rx);
    while (g_hash_table_iter_next (&it, NULL, &val)) {
      ReceiverView *v = val;
      if (v->heard && now - v->heard <= timeout)
        receivers++;
    }
    if (ts.has_clr) {
      slowest = ts.clr_ssrc;
      slowest_bps = ts.clr_rate_bps;
    }
  }

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_hash_table_iter_init (&it, s->rx);
  while (g_hash_table_iter_next (&it, NULL, &val)) {
    ReceiverView *v = val;
    GValue sv = G_VALUE_INIT;
    gint64 seen = MAX (v->last, v->heard);
    /* stats only: forget receivers silent for 10 RTCP intervals */
    if (seen && now - seen > (gint64) s->cfg.rtcp_interval_ms * 10 * GST_MSECOND) {
      g_hash_table_iter_remove (&it);
      continue;
    }
    if (!v->last)
      continue;                 /* TFMCC: heard (RR) but no report yet */
    g_value_init (&sv, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&sv, gst_structure_new ("receiver",
            "ssrc", G_TYPE_UINT, v->ssrc,
            "rate-bps", G_TYPE_DOUBLE, v->rate_bps,
            "loss", G_TYPE_DOUBLE, v->loss,
            "rtt-s", G_TYPE_DOUBLE, v->rtt_s,
            "jitter-s", G_TYPE_DOUBLE, v->jitter_s,
            "congested", G_TYPE_BOOLEAN, v->congested,
            "sender-rtt-s", G_TYPE_DOUBLE, v->echo_rtt_s,
            "age-s", G_TYPE_DOUBLE, v->last ? (now - v->last) / 1e9 : -1.0, NULL));
    gst_value_array_append_and_take_value (&arr, &sv);
  }

  st = gst_structure_new ("asmpsink-stats",
      "protocol", G_TYPE_STRING, gst_am_protocol_name (s->cfg.protocol),
      "time", G_TYPE_DOUBLE, now / 1e9,
      "ssrc", G_TYPE_UINT, s->own_ssrc,
      "target-bitrate", G_TYPE_UINT, target_bps,
      "sent-bitrate", G_TYPE_DOUBLE, sent_bps,
      "receivers", G_TYPE_UINT, receivers,
      "min-receiver-bitrate", G_TYPE_DOUBLE, slowest_bps,
      "slowest-ssrc", G_TYPE_UINT, slowest,
      "packets-sent", G_TYPE_UINT64, s->packets,
      "bytes-sent", G_TYPE_UINT64, s->bytes,
      "rtcp-received", G_TYPE_UINT64, s->c.rtcp_in,
      "rtcp-malformed", G_TYPE_UINT64, s->c.rtcp_malformed,
      "app-received", G_TYPE_UINT64, s->c.app_in,
      "app-malformed", G_TYPE_UINT64, s->c.app_malformed,
      "app-sent", G_TYPE_UINT64, s->c.app_sent,
      "app-no-room", G_TYPE_UINT64, s->c.app_no_room, NULL);
  gst_structure_take_value (st, "reports", &arr);
  return st;
}
