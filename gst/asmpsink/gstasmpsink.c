/* gstasmpsink.c - asmpsink: sends RTP from a payloader to a multicast group through rtpbin,
 * hears the receivers' RTCP, and lets lib/cc (ASMP or TFMCC) pick the encoder's bitrate.
 *
 *   ... ! x264enc ! rtph264pay ! asmpsink address=239.1.2.3 port=5004
 *
 * Inside (the base bin, gst/common/gstamsessionbin.h, makes session 0 and opens its sockets):
 *         ghost sink -> pacer (gst/common/gstampacer.c) -> rtpbin send_rtp_sink_0
 *           -> send_rtp_src_0 -> udpsink (RTP)
 *         rtpbin send_rtcp_src_0 -> udpsink (RTCP, port + 1, socket shared with the udpsrc)
 *         udpsrc (RTCP, port + 1) -> rtpbin recv_rtcp_sink_0
 * srtp-key: rtpbin's encoder (srtpenc) and RTCP decoder (srtpdec) are slots of
 *           gst/common/gstamsrtp.c; our probes sit on their plain side (RTP before
 *           encryption, RTCP after authentication), keyed or not
 * fec != off: send_rtp_src_0 -> rtpst2022-1-fecenc -> udpsink (RTP); its column and row FEC
 *           -> udpsinks to fec-address port + 2 / + 4 (gstasmpsink-fec.c, gst/common/gstamfec.c)
 * The element only translates: packets and RTCP in, lib/cc decisions out (gst/common). Its
 * instance struct is in gstasmpsink-priv.h, its properties in gstasmpsink-props.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasmpsink-priv.h"

#include <string.h>
#include "../common/gstampacer.h"
#include "../common/gstamsdp.h"

GST_DEBUG_CATEGORY (asmpsink_debug);    /* gstasmpsink-fec.c logs to it too */
#define GST_CAT_DEFAULT asmpsink_debug

enum { SIGNAL_EXCLUDE_RECEIVER, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (GstAsmpSink, gst_asmp_sink, GST_TYPE_AM_SESSION_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (asmpsink, "asmpsink", GST_RANK_NONE,
    GST_TYPE_ASMP_SINK, GST_DEBUG_CATEGORY_INIT (asmpsink_debug, "asmpsink", 0,
        "adaptive multicast RTP sender"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* Takes the target from lib/cc; on change hands it to the encoder (applied at the next key
 * frame) or, for encoders we cannot drive, to the app via the bus. Returns TRUE on change. */
gboolean
update_target_locked (GstAsmpSink * self, gint64 now)
{
  guint bps, media_bps;
  gdouble overhead;

  if (!self->cc)
    return FALSE;
  bps = gst_am_cc_sender_rate (self->cc, now);
  overhead = gst_asmp_sink_fec_share (&self->fec, self->cc, now);
  if (bps == self->target_bps && overhead == self->fec.share)
    return FALSE;
  self->fec.share = overhead;
  /* video + parity within the target: the encoder and the pacer get the video's share */
  media_bps = amcc_fec_media_rate (bps, overhead);
  self->media_bps = media_bps;
  gst_am_encoder_set_target (&self->enc, media_bps);
  gst_am_pacer_set_rate (GST_AM_PACER (self->pacer), media_bps);
  self->target_bps = bps;
  return TRUE;                  /* the target, or the video's share of it, changed */
}

/* bps: what the encoder should produce (the target less the FEC share) */
void
target_changed (GstAsmpSink * self, guint bps, GstAmEncKind kind)
{
  gst_asmp_sink_notify_target (self);
  if (kind == GST_AM_ENC_OTHER || kind == GST_AM_ENC_NONE)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("asmpsink-bitrate", "bitrate", G_TYPE_UINT, bps, NULL)));
}

static void attach_encoder (GstAsmpSink * self);

/* ---- RTP leaving rtpbin: sender stamps, sd.txt, byte counts ---- */
static void
process_rtp (GstAsmpSink * self, GstBuffer * buf, gint64 now)
{
  gsize size;

  gboolean fec;
  GstAmCodec codec;

  g_mutex_lock (self->lockp);
  size = gst_am_send_trace_packet (&self->send_trace, self->sd, buf, now);
  if (self->cc)
    gst_am_cc_sender_on_rtp_sent (self->cc, now, size);
  gst_asmp_sink_fec_on_rtp (&self->fec, size, now);
  fec = self->fec.mode != GST_AM_FEC_OFF;
  codec = self->send_trace.framer.codec;
  g_mutex_unlock (self->lockp);
  if (fec)
    gst_asmp_sink_fec_before (&self->fec, buf, codec);
}

static void
write_sdp (GstAsmpSink * self, GstCaps * caps)
{
  GstAmNetConfig net;
  gchar *path;

  g_mutex_lock (self->lockp);
  path = g_strdup (self->sdp_file);
  net = *self->net;
  net.address = g_strdup (self->net->address);
  g_mutex_unlock (self->lockp);
  gst_am_sdp_write_or_warn (GST_ELEMENT (self), path, caps, &net);
  g_free (net.address);
  g_free (path);
}

static GstPadProbeReturn
rtp_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstAsmpSink *self = user_data;
  gint64 now = gst_am_now ();

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    process_rtp (self, b, now);
    GST_PAD_PROBE_INFO_DATA (info) = b;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = gst_buffer_list_make_writable (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
    guint i;
    for (i = 0; i < gst_buffer_list_length (l); i++)
      process_rtp (self, gst_buffer_list_get_writable (l, i), now);
    GST_PAD_PROBE_INFO_DATA (info) = l;
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      GstCaps *caps;
      gst_event_parse_caps (ev, &caps);
      g_mutex_lock (self->lockp);
      gst_am_send_trace_set_codec (&self->send_trace, gst_am_codec_from_caps (caps));
      g_mutex_unlock (self->lockp);
      write_sdp (self, caps);
      /* linked after READY->PAUSED (dynamic pipeline): look for the encoder now */
      if (!self->enc.encoder)
        attach_encoder (self);
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS) {
      g_mutex_lock (self->lockp);
      gst_am_trace_flush (self->sd);
      gst_am_trace_flush (self->rate);
      g_mutex_unlock (self->lockp);
      gst_am_session_bin_arm_eos_guards (GST_AM_SESSION_BIN (self),
          2 * (gint64) self->rtcp_interval_ms * GST_MSECOND + 100 * GST_MSECOND);
    }
  }
  return GST_PAD_PROBE_OK;
}

/* ---- RTCP from the group ---- */
static GstPadProbeReturn
rtcp_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstAsmpSink *self = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint32 first = gst_am_rtcp_first_ssrc (buf), own;
  gboolean changed = FALSE;
  guint bps = 0;
  GstAmEncKind kind;

  own = gst_am_own_ssrc (self->lockp, &self->own_ssrc, self->rtpbin);
  g_mutex_lock (self->lockp);
  /* our own RTCP looped back (loop=true): rtpbin would call it an SSRC collision */
  if (first && first == own) {
    g_mutex_unlock (self->lockp);
    return GST_PAD_PROBE_DROP;
  }
  if (self->cc) {
    gint64 now = gst_am_now ();
    if (!gst_am_cc_sender_on_rtcp (self->cc, now, buf, self->own_ssrc)) {
      g_mutex_unlock (self->lockp);
      return GST_PAD_PROBE_DROP;        /* spoofed: rtpbin must not see its BYE or SR either */
    }
    changed = update_target_locked (self, now);
    bps = self->media_bps;
  }
  kind = self->enc.kind;
  g_mutex_unlock (self->lockp);
  if (changed)
    target_changed (self, bps, kind);
  return GST_PAD_PROBE_OK;
}

/* ---- RTCP about to leave (rtpsession's RTCP thread) ---- */
static gboolean
on_sending_rtcp (GObject * session, GstBuffer * buf, gboolean early, gpointer user_data)
{
  GstAsmpSink *self = user_data;
  gint64 now = gst_am_now ();
  gboolean appended = FALSE, changed = FALSE;
  GstStructure *stats = NULL, *outlier = NULL;
  guint bps = 0;
  GstAmEncKind kind;
  GstAmSessionLoad load;

  /* the session's lock, not ours: read it first (lock order: session, then ours) */
  if (!early)
    gst_am_session_load (session, &load);
  g_mutex_lock (self->lockp);
  self->own_ssrc = gst_am_rtcp_first_ssrc (buf);
  if (!early)
    gst_asmp_sink_fec_on_interval (&self->fec);
  if (self->cc) {
    if (!early)       /* the receivers' interval as the group grows: lib/cc's receiver timeout */
      gst_am_cc_sender_set_session (self->cc, now, &load);
    appended = gst_am_cc_sender_on_sending_rtcp (self->cc, now, buf, self->own_ssrc);
    changed = update_target_locked (self, now);
    bps = self->media_bps;
    if (!early) {
      stats = gst_am_cc_sender_stats (self->cc, now, self->target_bps, &outlier);
      gst_structure_set (stats, "encoder", G_TYPE_STRING,
          gst_am_encoder_kind_name (self->enc.kind), "encoder-bitrate", G_TYPE_UINT,
          self->enc.applied_bps, "encoder-setting", G_TYPE_UINT, self->enc.setting_bps, NULL);
      gst_am_pacer_add_stats (GST_AM_PACER (self->pacer), stats);
      gst_am_srtp_add_stats (self->srtp, stats);
      gst_asmp_sink_fec_add_stats (&self->fec, stats, self->media_bps);
      gst_am_trace_rate_row (self->rate, stats);
      if (self->stats)
        gst_structure_free (self->stats);
      self->stats = gst_structure_copy (stats);
    }
  }
  kind = self->enc.kind;
  g_mutex_unlock (self->lockp);
  if (changed)
    target_changed (self, bps, kind);
  if (stats)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), stats));
  if (outlier)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), outlier));
  /* TRUE keeps an early packet that carries our APP from being suppressed (AVPF) */
  return appended;
}

/* ---- extra RTCP packets carrying the sender APP, as lib/cc asks (TFMCC) ---- */
static gboolean early_cb (GstClock * clock, GstClockTime t, GstClockID id, gpointer data);

static void
arm_early_locked (GstAsmpSink * self)
{
  gint64 now = gst_am_now ();
  gint64 due = self->cc ? gst_am_cc_sender_early_due (self->cc, now) : 0;

  if (due > 0 && !self->early_id)
    self->early_id = gst_am_timer_start (MAX (due - now, 0), early_cb, GST_OBJECT (self));
}

static gboolean
early_cb (GstClock * clock, GstClockTime t, GstClockID id, gpointer data)
{
  GstAsmpSink *self = data;

  g_mutex_lock (self->lockp);
  if (self->early_id != id) {   /* stopped meanwhile */
    g_mutex_unlock (self->lockp);
    return TRUE;
  }
  gst_am_timer_stop (&self->early_id);
  arm_early_locked (self);
  g_mutex_unlock (self->lockp);
  gst_am_request_early_rtcp (self->session, GST_OBJECT (self), "the sender APP");
  return TRUE;
}

/* ---- one stream of a group (asspsimulcast) ---- */
void
gst_asmp_sink_join_group (GstAsmpSink * self, GMutex * lock, const amcc_protocol * proto)
{
  self->lockp = lock;
  self->group_protocol = proto;
}

amcc_sender *
gst_asmp_sink_controller (GstAsmpSink * self)
{
  return self->cc ? gst_am_cc_sender_controller (self->cc) : NULL;
}

/* ---- state ---- */
/* NULL -> READY, called by the base bin (lock held) before it opens the RTCP socket */
static gboolean
start_locked (GstAmSessionBin * bin)
{
  GstAsmpSink *self = GST_ASMP_SINK (bin);
  GstAmCcConfig cfg = { 0 };
  GError *err = NULL;
  gboolean mc = gst_am_address_is_multicast (self->net->address), ok;
  GBytes *key;

  if (self->min_bps > self->max_bps || self->initial_bps < self->min_bps
      || self->initial_bps > self->max_bps) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
        ("need min-bitrate <= initial-bitrate <= max-bitrate (%u, %u, %u)",
            self->min_bps, self->initial_bps, self->max_bps));
    return FALSE;
  }
  gst_am_session_bin_set_address (GST_AM_SESSION_BIN (self),
      gst_am_session_bin_session (GST_AM_SESSION_BIN (self), 0), self->net->address,
      self->net->port, NULL);
  GST_INFO_OBJECT (self, "sending to %s:%d (%s), RTCP on %d", self->net->address,
      self->net->port, mc ? "multicast" : "unicast", self->net->port + 1);
  key = gst_am_srtp_get_key (self->srtp);
  ok = gst_asmp_sink_fec_start (&self->fec, GST_ELEMENT (self), self->rtpbin, self->net, key,
      self->trace_dir, gst_am_now ());
  if (key)
    g_bytes_unref (key);
  if (!ok)
    return FALSE;
  cfg.protocol = self->group_protocol ? self->group_protocol
      : gst_am_protocol_get (self->protocol);
  g_object_set (self->rtpbin, "rtp-profile", gst_am_protocol_rtp_profile (cfg.protocol), NULL);
  gst_am_set_rtcp_interval (self->rtpbin, self->rtcp_interval_ms);

  cfg.initial_bps = self->initial_bps;
  cfg.min_bps = self->min_bps;
  cfg.max_bps = self->max_bps;
  cfg.rtcp_interval_ms = self->rtcp_interval_ms;
  cfg.max_ssrcs_per_host = self->max_ssrcs_per_host;
  cfg.max_unproven_members = self->max_unproven_members;
  cfg.receiver_timeout_ms = self->receiver_timeout_ms;
  self->cc = gst_am_cc_sender_new (&cfg, gst_am_now ());
  if (!self->cc) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("lib/cc rejected the parameters"));
    return FALSE;
  }
  self->target_bps = self->initial_bps;
  self->fec.share = gst_asmp_sink_fec_share (&self->fec, self->cc, gst_am_now ());
  self->media_bps = amcc_fec_media_rate (self->initial_bps, self->fec.share);
  gst_am_pacer_set_rate (GST_AM_PACER (self->pacer), self->media_bps);
  gst_am_send_trace_reset (&self->send_trace, GST_AM_CODEC_OTHER);
  if (self->trace_dir && !gst_am_trace_open_pair (self->trace_dir, "sd.txt", &self->sd,
          "rate.csv", "time_s,target_bps,sent_bps,receivers,min_receiver_bps,protocol",
          &self->rate, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, (NULL), ("%s", err->message));
    g_clear_error (&err);
    return FALSE;
  }
  return TRUE;
}

static void
stop_locked (GstAmSessionBin * bin)
{
  GstAsmpSink *self = GST_ASMP_SINK (bin);
  gst_am_timer_stop (&self->early_id);
  g_clear_pointer (&self->cc, gst_am_cc_sender_free);
  g_clear_pointer (&self->sd, gst_am_trace_close);
  g_clear_pointer (&self->rate, gst_am_trace_close);
  gst_asmp_sink_fec_stop (&self->fec);
  self->own_ssrc = 0;
}

static void
attach_encoder (GstAsmpSink * self)
{
  GstElement *enc;
  guint initial;

  g_mutex_lock (self->lockp);
  enc = self->encoder_prop ? gst_object_ref (self->encoder_prop) : NULL;
  initial = amcc_fec_media_rate (self->initial_bps, self->fec.share);
  g_mutex_unlock (self->lockp);
  gst_am_encoder_attach_auto (&self->enc, enc, self->sinkpad, initial, GST_OBJECT (self));
  gst_clear_object (&enc);
}

static GstStateChangeReturn
gst_asmp_sink_change_state (GstElement * element, GstStateChange transition)
{
  GstAsmpSink *self = GST_ASMP_SINK (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      attach_encoder (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      g_mutex_lock (self->lockp);
      arm_early_locked (self);
      g_mutex_unlock (self->lockp);
      break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      g_mutex_lock (self->lockp);
      gst_am_timer_stop (&self->early_id);
      gst_am_trace_flush (self->sd);
      gst_am_trace_flush (self->rate);
      g_mutex_unlock (self->lockp);
      break;
    default:
      break;
  }
  ret = GST_ELEMENT_CLASS (gst_asmp_sink_parent_class)->change_state (element, transition);
  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      gst_am_encoder_attach (&self->enc, NULL, 0);
      break;
    default:
      break;
  }
  return ret;
}

static void
gst_asmp_sink_init (GstAsmpSink * self)
{
  GstAmSessionBin *sb = GST_AM_SESSION_BIN (self);
  GstAmSession *s;
  GstPad *pad;

  g_mutex_init (&self->lock);
  self->lockp = &self->lock;
  gst_am_session_bin_set_lock (sb, &self->lockp);
  self->net = gst_am_session_bin_net (sb);
  gst_am_encoder_init (&self->enc);
  self->protocol = GST_AM_PROTOCOL_DEFAULT;
  self->initial_bps = DEFAULT_INITIAL_BPS;
  self->min_bps = DEFAULT_MIN_BPS;
  self->max_bps = DEFAULT_MAX_BPS;
  self->target_bps = DEFAULT_INITIAL_BPS;
  self->media_bps = DEFAULT_INITIAL_BPS;
  self->rtcp_interval_ms = GST_AM_DEFAULT_RTCP_INTERVAL_MS;
  self->max_ssrcs_per_host = GST_AM_GUARD_MAX_PER_HOST;
  self->max_unproven_members = GST_AM_GUARD_MAX_UNPROVEN;
  self->pacing = DEFAULT_PACING;
  self->pacing_factor = DEFAULT_PACING_FACTOR;
  self->max_pacing_delay_ms = DEFAULT_MAX_PACING_DELAY_MS;
  self->pacing_burst_ms = DEFAULT_PACING_BURST_MS;
  gst_asmp_sink_fec_init (&self->fec, GST_OBJECT (self));

  self->pacer = gst_am_pacer_new ("pacer");
  gst_bin_add (GST_BIN (self), self->pacer);
  configure_pacer_locked (self);
  self->rtpbin = gst_am_session_bin_rtpbin (sb);
  self->srtp = gst_am_session_bin_srtp (sb);
  self->sinkpad = gst_am_ghost_pad_from_static ("sink", &sink_template);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  pad = gst_element_get_static_pad (self->pacer, "sink");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), pad);
  gst_object_unref (pad);
  s = gst_am_session_bin_add (sb, GST_AM_SESSION_SEND | GST_AM_SESSION_RTCP_IN, "",
      self->pacer);
  if (!s)
    return;                     /* error posted; the element fails to start */
  self->rtp_sink = s->rtp_sink;
  self->rtcp_sink = s->rtcp_sink;
  self->rtcp_src = s->rtcp_src;

  /* RTP as it leaves rtpsession (before srtpenc: the stamps are authenticated, the payload
   * still readable), RTCP as it arrives (after srtpdec: only what authenticated) */
  gst_am_srtp_add_probe (self->srtp, 0, GST_AM_SRTP_RTP_SEND, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, rtp_out_probe, self);
  gst_am_srtp_add_probe (self->srtp, 0, GST_AM_SRTP_RTCP_RECV, GST_PAD_PROBE_TYPE_BUFFER,
      rtcp_in_probe, self);

  self->session = gst_am_internal_session (self->rtpbin);
  if (self->session)
    g_signal_connect (self->session, "on-sending-rtcp", G_CALLBACK (on_sending_rtcp), self);
  gst_am_set_rtcp_interval (self->rtpbin, self->rtcp_interval_ms);
}

static void
gst_asmp_sink_finalize (GObject * object)
{
  GstAsmpSink *self = GST_ASMP_SINK (object);

  stop_locked (GST_AM_SESSION_BIN (self));
  if (self->session) {
    g_signal_handlers_disconnect_by_data (self->session, self);
    g_object_unref (self->session);
  }
  gst_am_encoder_clear (&self->enc);
  gst_clear_object (&self->encoder_prop);
  g_free (self->trace_dir);
  g_free (self->sdp_file);
  gst_asmp_sink_fec_clear (&self->fec);
  if (self->stats)
    gst_structure_free (self->stats);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_asmp_sink_parent_class)->finalize (object);
}

/* Action signal: the application excludes (or readmits) a receiver, e.g. the SSRC of an
 * 'asmpsink-outlier' message; lib/cc then ignores its feedback. FALSE before PLAYING or when the
 * receiver table is full. */
static gboolean
gst_asmp_sink_exclude_receiver (GstAsmpSink * self, guint ssrc, gboolean exclude)
{
  gboolean ok = FALSE;

  g_mutex_lock (self->lockp);
  if (self->cc)
    ok = gst_am_cc_sender_exclude (self->cc, gst_am_now (), ssrc, exclude);
  g_mutex_unlock (self->lockp);
  return ok;
}

static void
gst_asmp_sink_class_init (GstAsmpSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_asmp_sink_set_property;
  gobject_class->get_property = gst_asmp_sink_get_property;
  gobject_class->finalize = gst_asmp_sink_finalize;
  element_class->change_state = gst_asmp_sink_change_state;
  GST_AM_SESSION_BIN_CLASS (klass)->start = start_locked;
  GST_AM_SESSION_BIN_CLASS (klass)->stop = stop_locked;

  gst_asmp_sink_install_properties (gobject_class);
  signals[SIGNAL_EXCLUDE_RECEIVER] = g_signal_new_class_handler ("exclude-receiver",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_asmp_sink_exclude_receiver), NULL, NULL, NULL, G_TYPE_BOOLEAN, 2,
      G_TYPE_UINT, G_TYPE_BOOLEAN);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class, "ASMP multicast RTP sink",
      "Sink/Network/RTP", "Sends RTP to a multicast group and adapts the upstream encoder's "
      "bitrate with ASMP (or TFMCC) from the receivers' RTCP reports",
      "gst-amcast <gst-amcast@localhost>");
  gst_type_mark_as_plugin_api (GST_TYPE_AM_PROTOCOL, 0);
}
