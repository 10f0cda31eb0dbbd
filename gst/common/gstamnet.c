/* gstamnet.c - rtpbin/udp plumbing and RTP header-extension glue shared by both elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamnet.h"

#include <gio/gio.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <string.h>

void
gst_am_net_config_init (GstAmNetConfig * c)
{
  c->address = g_strdup (GST_AM_DEFAULT_ADDRESS);
  c->port = GST_AM_DEFAULT_PORT;
  c->iface = NULL;
  c->ttl = 1;
  c->loop = FALSE;
}

void
gst_am_net_config_clear (GstAmNetConfig * c)
{
  g_clear_pointer (&c->address, g_free);
  g_clear_pointer (&c->iface, g_free);
}

gboolean
gst_am_address_is_multicast (const gchar * address)
{
  GInetAddress *a;
  gboolean mc;

  if (!address)
    return FALSE;
  a = g_inet_address_new_from_string (address);
  if (!a)
    return FALSE;
  mc = g_inet_address_get_is_multicast (a);
  g_object_unref (a);
  return mc;
}

GstElement *
gst_am_make (GstBin * bin, const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);

  if (!e) {
    GST_ELEMENT_ERROR (bin, CORE, MISSING_PLUGIN, (NULL),
        ("element '%s' is missing (install gst-plugins-good)", factory));
    return NULL;
  }
  gst_bin_add (bin, e);
  return e;
}

GstPad *
gst_am_ghost_pad_from_static (const gchar * name, GstStaticPadTemplate * t)
{
  GstPadTemplate *templ = gst_static_pad_template_get (t);
  GstPad *pad = gst_ghost_pad_new_no_target_from_template (name, templ);

  gst_object_unref (templ);     /* the pad holds its own ref */
  return pad;
}

void
gst_am_net_setup_udpsrc (GstElement * udpsrc, const GstAmNetConfig * c, gint port)
{
  gboolean mc = gst_am_address_is_multicast (c->address);

  g_object_set (udpsrc, "address", mc ? c->address : "0.0.0.0", "port", port,
      "auto-multicast", mc, "reuse", TRUE, "loop", c->loop, NULL);
  if (c->iface)
    g_object_set (udpsrc, "multicast-iface", c->iface, NULL);
}

void
gst_am_set_joined (GstElement * child, gboolean joined)
{
  gst_element_set_locked_state (child, !joined);
  if (joined)
    gst_element_sync_state_with_parent (child);
  else
    gst_element_set_state (child, GST_STATE_NULL);
}

void
gst_am_net_setup_udpsink (GstElement * udpsink, const GstAmNetConfig * c,
    const gchar * host, gint port)
{
  g_object_set (udpsink, "host", host, "port", port, "sync", FALSE,
      "async", FALSE, "auto-multicast", FALSE, "ttl-mc", c->ttl, "loop", c->loop, NULL);
  if (c->iface)
    g_object_set (udpsink, "multicast-iface", c->iface, NULL);
}

void
gst_am_net_share_socket (GstElement * udpsrc, GstElement * udpsink)
{
  GSocket *sock = NULL;

  g_object_get (udpsrc, "used-socket", &sock, NULL);
  if (!sock)
    return;
  g_object_set (udpsink, "socket", sock, "close-socket", FALSE, NULL);
  g_object_unref (sock);
}

GObject *
gst_am_internal_session (GstElement * rtpbin)
{
  GObject *session = NULL;

  g_signal_emit_by_name (rtpbin, "get-internal-session", 0, &session);
  return session;
}

void
gst_am_set_rtcp_interval (GstElement * rtpbin, guint ms)
{
  GObject *session = gst_am_internal_session (rtpbin);

  if (!session)
    return;
  g_object_set (session, "rtcp-min-interval", (guint64) ms * GST_MSECOND, NULL);
  g_object_unref (session);
}

guint32
gst_am_internal_ssrc (GstElement * rtpbin)
{
  GObject *session = gst_am_internal_session (rtpbin);
  guint ssrc = 0;

  if (!session)
    return 0;
  g_object_get (session, "internal-ssrc", &ssrc, NULL);
  g_object_unref (session);
  return ssrc;
}

guint32
gst_am_own_ssrc (GMutex * lock, guint32 * own, GstElement * rtpbin)
{
  guint32 v;

  g_mutex_lock (lock);
  v = *own;
  g_mutex_unlock (lock);
  if (v)
    return v;
  v = gst_am_internal_ssrc (rtpbin);
  g_mutex_lock (lock);
  if (!*own)
    *own = v;
  v = *own;
  g_mutex_unlock (lock);
  return v;
}

guint32
gst_am_rtcp_first_ssrc (GstBuffer * buf)
{
  guint8 b[8];

  /* every RTCP packet type starts with the sender's SSRC at offset 4 */
  if (gst_buffer_extract (buf, 0, b, 8) != 8 || (b[0] >> 6) != 2)
    return 0;
  return gst_am_be32 (b + 4);
}

gboolean
gst_am_rtcp_add_pli (GstBuffer * buf, guint32 own_ssrc, guint32 media_ssrc)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  gboolean ok;

  if (!gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp))
    return FALSE;
  ok = gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_PSFB, &pkt);
  if (ok) {
    gst_rtcp_packet_fb_set_type (&pkt, GST_RTCP_PSFB_TYPE_PLI);
    gst_rtcp_packet_fb_set_sender_ssrc (&pkt, own_ssrc);
    gst_rtcp_packet_fb_set_media_ssrc (&pkt, media_ssrc);
  }
  gst_rtcp_buffer_unmap (&rtcp);
  return ok;
}

GstBuffer *
gst_am_rtcp_new_bye (guint32 ssrc, const gchar * cname)
{
  GstBuffer *buf = gst_rtcp_buffer_new (128 + (cname ? 255 : 0));
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  gboolean ok;

  gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp);
  ok = gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt);
  if (ok)
    gst_rtcp_packet_rr_set_ssrc (&pkt, ssrc);
  if (ok && cname && *cname) {
    gsize len = MIN (strlen (cname), 255);
    ok = gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SDES, &pkt)
        && gst_rtcp_packet_sdes_add_item (&pkt, ssrc)
        && gst_rtcp_packet_sdes_add_entry (&pkt, GST_RTCP_SDES_CNAME, (guint8) len,
        (const guint8 *) cname);
  }
  ok = ok && gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_BYE, &pkt)
      && gst_rtcp_packet_bye_add_ssrc (&pkt, ssrc);
  gst_rtcp_buffer_unmap (&rtcp);
  if (!ok)
    gst_clear_buffer (&buf);
  return buf;
}

/* host:port as a socket address of the sending socket's family, NULL when host has none; a
 * name is resolved (the udpsink accepts names too) and its first address of that family taken:
 * GLib gives "localhost" as ::1 before 127.0.0.1, and an IPv4 socket cannot send to ::1. */
static GSocketAddress *
socket_address (const gchar * host, gint port, GSocketFamily family)
{
  GSocketAddress *sa = g_inet_socket_address_new_from_string (host, (guint) port);
  GResolver *r;
  GList *l;

  if (sa) {
    if (g_socket_address_get_family (sa) != family)
      g_clear_object (&sa);
    return sa;
  }
  r = g_resolver_get_default ();
  l = g_resolver_lookup_by_name (r, host, NULL, NULL);
  for (GList * x = l; x && !sa; x = x->next)
    if (g_inet_address_get_family (x->data) == family)
      sa = g_inet_socket_address_new (x->data, (guint16) port);
  g_resolver_free_addresses (l);
  g_object_unref (r);
  return sa;
}

GstBuffer *
gst_am_rtcp_session_bye (GObject * session, guint32 ssrc)
{
  GstStructure *sdes = NULL;
  GstBuffer *bye;

  if (session)
    g_object_get (session, "sdes", &sdes, NULL);
  bye = gst_am_rtcp_new_bye (ssrc, sdes ? gst_structure_get_string (sdes, "cname") : NULL);
  if (sdes)
    gst_structure_free (sdes);
  return bye;
}

gboolean
gst_am_rtcp_send_raw (GstElement * rtcp_src, GstElement * rtcp_sink, GstBuffer * pkt)
{
  GSocket *sock = NULL;
  GSocketAddress *to = NULL;
  GstMapInfo map;
  gchar *host = NULL;
  gint port = 0;
  gboolean ok = FALSE;

  if (!rtcp_src || !rtcp_sink || !pkt)
    return FALSE;
  g_object_get (rtcp_src, "used-socket", &sock, NULL);
  g_object_get (rtcp_sink, "host", &host, "port", &port, NULL);
  if (sock && host && port > 0 && (to = socket_address (host, port, g_socket_get_family (sock)))
      && gst_buffer_map (pkt, &map, GST_MAP_READ)) {
    ok = g_socket_send_to (sock, to, (const gchar *) map.data, map.size, NULL, NULL)
        == (gssize) map.size;
    gst_buffer_unmap (pkt, &map);
  }
  g_clear_object (&to);
  g_free (host);
  g_clear_object (&sock);
  return ok;
}

gboolean
gst_am_session_load (GObject * session, GstAmSessionLoad * l)
{
  GValueArray *sources = NULL;       /* rtpsession's "sources" is one (deprecated type) */
  gdouble bandwidth = 0, bitrates = 0;
  guint64 min_ns = 0;
  guint i;

  memset (l, 0, sizeof (*l));
  if (!session)
    return FALSE;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_object_get (session, "num-active-sources", &l->members, "bandwidth", &bandwidth,
      "rtcp-fraction", &l->rtcp_fraction, "rtcp-min-interval", &min_ns, "sources", &sources,
      NULL);
  for (i = 0; sources && i < sources->n_values; i++) {
    GObject *src = g_value_get_object (g_value_array_get_nth (sources, i));
    GstStructure *st = NULL;
    gboolean sender = FALSE;
    guint64 bps = 0;

    g_object_get (src, "is-sender", &sender, "stats", &st, NULL);
    l->senders += sender;
    if (st && gst_structure_get_uint64 (st, "bitrate", &bps))
      bitrates += (gdouble) bps;
    if (st)
      gst_structure_free (st);
  }
  if (sources)
    g_value_array_free (sources);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  /* rtpsession's estimate when no bandwidth is set, and its floor (RTP_STATS_BANDWIDTH) */
  l->rtp_bps = MAX (bandwidth > 0 ? bandwidth : bitrates, 64000.0);
  l->min_interval = (gint64) min_ns;
  return TRUE;
}

gint64
gst_am_now (void)
{
  GstClock *clock = gst_system_clock_obtain ();
  GstClockTime t = gst_clock_get_time (clock);

  gst_object_unref (clock);
  return (gint64) t;
}

gint64
gst_am_wall (gint64 now)
{
  static gsize once = 0;
  static gint64 offset;

  /* CLOCK_REALTIME - CLOCK_MONOTONIC (the system clock's default type), once per process: every
   * process on a machine finds the same offset (to a few us), so the traces of the sender and
   * the receivers line up, whatever clock a test installs; a later wall-clock step moves nothing */
  if (g_once_init_enter (&once)) {
    offset = (g_get_real_time () - g_get_monotonic_time ()) * 1000;
    g_once_init_leave (&once, 1);
  }
  return now + offset;
}

gboolean
gst_am_rtp_stamp_mapped (GstRTPBuffer * rtp, gint64 now_ns, guint32 extseq)
{
  guint8 ntp[8], seq[4];

  GST_WRITE_UINT64_BE (ntp, amcc_ntp64_from_unix (gst_am_wall (now_ns)));
  GST_WRITE_UINT32_BE (seq, extseq);
  return gst_rtp_buffer_add_extension_onebyte_header (rtp, GST_AM_EXT_ID_NTP64, ntp, 8)
      && gst_rtp_buffer_add_extension_onebyte_header (rtp, GST_AM_EXT_ID_EXTSEQ, seq, 4);
}

gboolean
gst_am_rtp_stamp (GstBuffer ** buf, gint64 now_ns, guint32 extseq)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gboolean ok;

  *buf = gst_buffer_make_writable (*buf);
  if (!gst_rtp_buffer_map (*buf, GST_MAP_READWRITE, &rtp))
    return FALSE;
  ok = gst_am_rtp_stamp_mapped (&rtp, now_ns, extseq);
  gst_rtp_buffer_unmap (&rtp);
  return ok;
}

gboolean
gst_am_rtp_read (GstBuffer * buf, GstAmRtpInfo * info)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gpointer data;
  guint size;

  memset (info, 0, sizeof (*info));
  /* gst_rtp_buffer_map validates version, padding and extension lengths */
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return FALSE;
  info->ssrc = gst_rtp_buffer_get_ssrc (&rtp);
  info->seq = gst_rtp_buffer_get_seq (&rtp);
  info->rtp_ts = gst_rtp_buffer_get_timestamp (&rtp);
  info->pt = gst_rtp_buffer_get_payload_type (&rtp);
  info->size = gst_buffer_get_size (buf);
  if (gst_rtp_buffer_get_extension_onebyte_header (&rtp, GST_AM_EXT_ID_NTP64, 0,
          &data, &size) && size == 8) {
    info->has_send_time = TRUE;
    /* the sender's wall clock on our time line: one-way delay = our wall - its wall */
    info->send_time_ns = amcc_unix_from_ntp64 (gst_am_be64 (data)) - (gst_am_wall (0));
  }
  if (gst_rtp_buffer_get_extension_onebyte_header (&rtp, GST_AM_EXT_ID_EXTSEQ, 0,
          &data, &size) && size == 4) {
    info->has_extseq = TRUE;
    info->extseq = gst_am_be32 (data);
  }
  gst_rtp_buffer_unmap (&rtp);
  return TRUE;
}

void
gst_am_request_early_rtcp (GObject * session, GstObject * who, const gchar * why)
{
  gboolean ok = FALSE;

  if (!session)
    return;
  /* rtpsession sends it as soon as the RTCP timing rules allow (RFC 4585 3.5.2) */
  g_signal_emit_by_name (session, "send-rtcp-full", (guint64) 0, &ok);
  GST_DEBUG_OBJECT (who, "early RTCP for %s %s", why, ok ? "scheduled" : "refused");
}

GstClockID
gst_am_timer_start (gint64 delay_ns, GstClockCallback cb, GstObject * obj)
{
  GstClock *clock = gst_system_clock_obtain ();
  GstClockID id = gst_clock_new_single_shot_id (clock,
      gst_clock_get_time (clock) + MAX (delay_ns, 0));

  gst_clock_id_wait_async (id, cb, gst_object_ref (obj), gst_object_unref);
  gst_object_unref (clock);
  return id;
}

void
gst_am_timer_stop (GstClockID * id)
{
  if (*id) {
    gst_clock_id_unschedule (*id);
    gst_clock_id_unref (*id);
    *id = NULL;
  }
}

static GstPadProbeReturn
eos_guard_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstAmEosGuard *g = data;
  GstEventType t = GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info));

  if (t == GST_EVENT_EOS || t == GST_EVENT_FLUSH_STOP) {
    g_mutex_lock (&g->lock);
    g->seen_eos = t == GST_EVENT_EOS;
    g_mutex_unlock (&g->lock);
  }
  return GST_PAD_PROBE_OK;
}

static gboolean
eos_guard_fire (GstClock * clock, GstClockTime t, GstClockID id, gpointer data)
{
  GstAmEosGuard *g = g_object_get_data (G_OBJECT (data), "gst-am-eos-guard");
  GstPad *pad = NULL;

  if (!g)
    return TRUE;
  g_mutex_lock (&g->lock);      /* nothing of g is read after it: clear may follow */
  if (g->id == id && !g->seen_eos && g->pad)
    pad = gst_object_ref (g->pad);
  g_mutex_unlock (&g->lock);
  if (pad) {
    GST_INFO_OBJECT (data, "rtpsession sent no RTCP EOS: sending it");
    gst_pad_send_event (pad, gst_event_new_eos ());
    gst_object_unref (pad);
  }
  return TRUE;
}

void
gst_am_eos_guard_init (GstAmEosGuard * g, GstObject * owner, GstElement * rtcp_sink)
{
  GstPad *pad;

  memset (g, 0, sizeof (*g));
  g_mutex_init (&g->lock);
  g->owner = owner;
  g->sink = rtcp_sink;
  g_object_set_data (G_OBJECT (owner), "gst-am-eos-guard", g);
  if (rtcp_sink && (pad = gst_element_get_static_pad (rtcp_sink, "sink"))) {
    g->probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM
        | GST_PAD_PROBE_TYPE_EVENT_FLUSH, eos_guard_probe, g, NULL);
    g->pad = pad;
  }
}

void
gst_am_eos_guard_arm (GstAmEosGuard * g, gint64 delay_ns)
{
  g_mutex_lock (&g->lock);
  if (!g->id && g->sink)
    g->id = gst_am_timer_start (delay_ns, eos_guard_fire, g->owner);
  g_mutex_unlock (&g->lock);
}

void
gst_am_eos_guard_reset (GstAmEosGuard * g)
{
  g_mutex_lock (&g->lock);
  gst_am_timer_stop (&g->id);
  g->seen_eos = FALSE;
  g_mutex_unlock (&g->lock);
}

void
gst_am_eos_guard_clear (GstAmEosGuard * g)
{
  gst_am_eos_guard_reset (g);
  g_object_set_data (G_OBJECT (g->owner), "gst-am-eos-guard", NULL);
  g_mutex_lock (&g->lock);
  if (g->pad) {
    gst_pad_remove_probe (g->pad, g->probe);
    gst_clear_object (&g->pad);
  }
  g_mutex_unlock (&g->lock);
  g_mutex_clear (&g->lock);
}

gboolean
gst_am_net_config_set_property (GstAmNetConfig * net, GParamSpec * pspec, const GValue * value)
{
  const gchar *name = g_param_spec_get_name (pspec);

  if (!strcmp (name, "address")) {
    g_free (net->address);
    net->address = g_value_dup_string (value);
  } else if (!strcmp (name, "port")) {
    net->port = g_value_get_int (value);
  } else if (!strcmp (name, "multicast-iface")) {
    g_free (net->iface);
    net->iface = g_value_dup_string (value);
  } else if (!strcmp (name, "ttl-mc")) {
    net->ttl = g_value_get_int (value);
  } else if (!strcmp (name, "loop")) {
    net->loop = g_value_get_boolean (value);
  } else {
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_am_net_config_get_property (const GstAmNetConfig * net, GParamSpec * pspec, GValue * value)
{
  const gchar *name = g_param_spec_get_name (pspec);

  if (!strcmp (name, "address"))
    g_value_set_string (value, net->address);
  else if (!strcmp (name, "port"))
    g_value_set_int (value, net->port);
  else if (!strcmp (name, "multicast-iface"))
    g_value_set_string (value, net->iface);
  else if (!strcmp (name, "ttl-mc"))
    g_value_set_int (value, net->ttl);
  else if (!strcmp (name, "loop"))
    g_value_set_boolean (value, net->loop);
  else
    return FALSE;
  return TRUE;
}

static gboolean
h264_nal_is_key (guint8 type)
{
  return type == 7 || type == 5;        /* SPS (precedes an IDR in-band) or an IDR slice */
}

gboolean
gst_am_h264_key_start (const guint8 * p, gsize len)
{
  guint8 type;

  if (len < 1)
    return FALSE;
  type = p[0] & 0x1f;
  if (type >= 1 && type <= 23)
    return h264_nal_is_key (type);
  if (type == 24)               /* STAP-A: 16-bit size, then the first NAL's header */
    return len >= 4 && h264_nal_is_key (p[3] & 0x1f);
  if (type == 28)               /* FU-A: the start fragment of a key NAL */
    return len >= 2 && (p[1] & 0x80) && h264_nal_is_key (p[1] & 0x1f);
  return FALSE;
}
