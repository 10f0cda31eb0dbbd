/* gstasmpsink.c - asmpsink: sends RTP from a payloader to a multicast group through rtpbin,
 * hears the receivers' RTCP, and lets lib/cc (ASMP or TFMCC) pick the encoder's bitrate.
 *
 *   ... ! x264enc ! rtph264pay ! asmpsink address=239.1.2.3 port=5004
 *
 * Inside: ghost sink -> pacer (gst/common/gstampacer.c) -> rtpbin send_rtp_sink_0
 *           -> send_rtp_src_0 -> udpsink (RTP)
 *         rtpbin send_rtcp_src_0 -> udpsink (RTCP, port + 1, socket shared with the udpsrc)
 *         udpsrc (RTCP, port + 1) -> rtpbin recv_rtcp_sink_0
 * fec != off: send_rtp_src_0 -> rtpst2022-1-fecenc -> udpsink (RTP); its column and row FEC
 *           -> udpsinks to fec-address port + 2 / + 4 (gst/common/gstamfec.c)
 * The element only translates: packets and RTCP in, lib/cc decisions out (gst/common). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasmpsink.h"

#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>
#include "../common/gstamcc.h"
#include "../common/gstamenc.h"
#include "../common/gstamfec.h"
#include <amcc/fec.h>
#include "../common/gstamnet.h"
#include "../common/gstampacer.h"
#include "../common/gstamsdp.h"
#include "../common/gstamtrace.h"

GST_DEBUG_CATEGORY_STATIC (asmpsink_debug);
#define GST_CAT_DEFAULT asmpsink_debug

#define DEFAULT_INITIAL_BPS 500000
#define DEFAULT_MIN_BPS 64000
#define DEFAULT_MAX_BPS 20000000
#ifndef DEFAULT_PACING          /* -DDEFAULT_PACING=FALSE etc.: builds to compare settings */
#define DEFAULT_PACING TRUE
#endif
#ifndef DEFAULT_PACING_FACTOR
#define DEFAULT_PACING_FACTOR 1.5
#endif
#ifndef DEFAULT_MAX_PACING_DELAY_MS
#define DEFAULT_MAX_PACING_DELAY_MS 100
#endif
#define DEFAULT_FEC_COLUMNS 5
#define DEFAULT_FEC_ROWS 0

enum {
  PROP_0, PROP_ADDRESS, PROP_PORT, PROP_MULTICAST_IFACE, PROP_TTL_MC, PROP_LOOP,
  PROP_PROTOCOL, PROP_INITIAL_BITRATE, PROP_MIN_BITRATE, PROP_MAX_BITRATE,
  PROP_TARGET_BITRATE, PROP_ENCODER, PROP_RTCP_INTERVAL, PROP_MAX_SSRCS_PER_HOST, PROP_TRACE_DIR, PROP_SDP_FILE,
  PROP_STATS, PROP_RECEIVER_TIMEOUT, PROP_PACING, PROP_PACING_FACTOR, PROP_MAX_PACING_DELAY,
  PROP_RATE_MATCH, PROP_INTRA_REFRESH, PROP_FEC, PROP_FEC_ADDRESS, PROP_FEC_COLUMNS, PROP_FEC_ROWS,
  N_PROPS
};
static GParamSpec *props[N_PROPS];

enum { SIGNAL_EXCLUDE_RECEIVER, N_SIGNALS };
static guint signals[N_SIGNALS];

struct _GstAsmpSink {
  GstBin parent;
  GstPad *sinkpad;
  GstElement *rtpbin, *rtp_sink, *rtcp_sink, *rtcp_src, *pacer;
  GObject *session;

  GMutex lock;
  GMutex *lockp;                /* everything below: &lock, or a group's (asspsimulcast) */
  const amcc_protocol *group_protocol;  /* set by a group: overrides `protocol` */
  GstAmNetConfig net;
  gint protocol;                /* GST_TYPE_AM_PROTOCOL: index into lib/cc's registry */
  guint initial_bps, min_bps, max_bps, target_bps;
  GstElement *encoder_prop;
  guint rtcp_interval_ms, receiver_timeout_ms;
  guint max_ssrcs_per_host;
  gchar *trace_dir, *sdp_file;
  gboolean pacing;
  gdouble pacing_factor;
  guint max_pacing_delay_ms;

  GstAmCcSender *cc;
  GstAmEncoder enc;
  GstAmTrace *sd, *rate;
  GstAmSendTrace send_trace;
  guint32 own_ssrc;
  GstStructure *stats;
  GstClockID early_id;
  GstAmEosGuard eos_guard;

  /* FEC (gstamfec.h): the bytes of parity count inside target_bps */
  gint fec_mode;                /* GstAmFecMode */
  gchar *fec_address;
  guint fec_columns, fec_rows;  /* fixed mode */
  GstAmFecSend fec;
  amcc_fec_params fec_params;
  amcc_fec_choice fec_choice;   /* auto: the last choice */
  gdouble fec_overhead;         /* FEC share of the target the encoder is given less */
  guint media_bps;              /* the encoder's share: target x (1 - fec_overhead) */
  gdouble fec_byte_share;       /* parity bytes / all bytes over the last RTCP interval */
  guint64 fec_bytes_then, media_bytes, media_bytes_then;
  gdouble worst_loss;
  gint64 pps_start;             /* media packet rate over ~1 s windows */
  guint pps_count;
  gdouble pps;
};

G_DEFINE_TYPE (GstAsmpSink, gst_asmp_sink, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (asmpsink, "asmpsink", GST_RANK_NONE,
    GST_TYPE_ASMP_SINK, GST_DEBUG_CATEGORY_INIT (asmpsink_debug, "asmpsink", 0,
        "adaptive multicast RTP sender"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* Takes the target from lib/cc; on change hands it to the encoder (applied at the next key
 * frame) or, for encoders we cannot drive, to the app via the bus. Returns TRUE on change. */
/* fec=auto: the matrix lib/cc chooses for the worst loss reported; the overhead it costs. */
static gdouble
choose_fec_locked (GstAsmpSink * self, gint64 now)
{
  amcc_fec_choice c;

  /* parity packets are as long as the longest packet they cover: their share of the bytes
   * (measured) can exceed their share of the packets (modelled) */
  if (self->fec_mode == GST_AM_FEC_FIXED)
    return MAX (self->fec_byte_share,
        amcc_fec_parity_ratio (self->fec_columns, self->fec_rows)
        / (1.0 + amcc_fec_parity_ratio (self->fec_columns, self->fec_rows)));
  if (self->fec_mode != GST_AM_FEC_AUTO)
    return 0.0;
  self->worst_loss = gst_am_cc_sender_worst_loss (self->cc, now);
  if (amcc_fec_update (&self->fec_params, self->worst_loss, self->pps, &self->fec_choice, &c)
      != AMCC_OK)
    return self->fec_overhead;
  if (c.columns != self->fec_choice.columns || c.rows != self->fec_choice.rows) {
    GST_INFO_OBJECT (self, "loss %.4f at %.0f packet/s: FEC %u x %u (overhead %.3f)",
        self->worst_loss, self->pps, c.columns, c.rows, c.overhead);
    gst_am_fec_send_request (&self->fec, c.columns, c.rows);
  }
  self->fec_choice = c;
  return c.columns ? MAX (c.overhead, self->fec_byte_share) : 0.0;
}

static gboolean
update_target_locked (GstAsmpSink * self, gint64 now)
{
  guint bps, media_bps;
  gdouble overhead;

  if (!self->cc)
    return FALSE;
  bps = gst_am_cc_sender_rate (self->cc, now);
  overhead = choose_fec_locked (self, now);
  if (bps == self->target_bps && overhead == self->fec_overhead)
    return FALSE;
  self->fec_overhead = overhead;
  /* video + parity within the target: the encoder and the pacer get the video's share */
  media_bps = MAX (1, (guint) (bps * (1.0 - overhead)));
  self->media_bps = media_bps;
  gst_am_encoder_set_target (&self->enc, media_bps);
  gst_am_pacer_set_rate (GST_AM_PACER (self->pacer), media_bps);
  self->target_bps = bps;
  return TRUE;                  /* the target, or the video's share of it, changed */
}

/* Does this RTP packet start a key frame? (FEC matrices change there, as the bitrate does) */
static gboolean
rtp_key_start (GstBuffer * buf, GstAmCodec codec)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gboolean key = FALSE;

  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return FALSE;
  if (codec == GST_AM_CODEC_H264)
    key = gst_am_h264_key_start (gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp));
  else if (codec == GST_AM_CODEC_VP8)
    key = gst_am_vp8_payload_type (gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp)) == 'I';
  else
    key = !GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  gst_rtp_buffer_unmap (&rtp);
  return key;
}

/* bps: what the encoder should produce (the target less the FEC share) */
static void
target_changed (GstAsmpSink * self, guint bps, GstAmEncKind kind)
{
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TARGET_BITRATE]);
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
  self->pps_count++;
  self->media_bytes += size;
  if (now - self->pps_start >= GST_SECOND) {
    self->pps = self->pps_count * (gdouble) GST_SECOND / (now - self->pps_start);
    self->pps_start = now;
    self->pps_count = 0;
  }
  fec = self->fec_mode != GST_AM_FEC_OFF;
  codec = self->send_trace.framer.codec;
  g_mutex_unlock (self->lockp);
  if (fec)
    gst_am_fec_send_before (&self->fec, buf, rtp_key_start (buf, codec));
}

static void
write_sdp (GstAsmpSink * self, GstCaps * caps)
{
  GstAmNetConfig net;
  gchar *path;

  g_mutex_lock (self->lockp);
  path = g_strdup (self->sdp_file);
  net = self->net;
  net.address = g_strdup (self->net.address);
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
      gst_am_eos_guard_arm (&self->eos_guard, 2 * (gint64) self->rtcp_interval_ms * GST_MSECOND
          + 100 * GST_MSECOND);
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

  g_mutex_lock (self->lockp);
  self->own_ssrc = gst_am_rtcp_first_ssrc (buf);
  if (!early && self->fec_mode != GST_AM_FEC_OFF) {
    guint64 fb = gst_am_fec_send_bytes (&self->fec);
    gdouble df = fb - self->fec_bytes_then, dm = self->media_bytes - self->media_bytes_then;
    self->fec_byte_share = df + dm > 0 ? df / (df + dm) : 0.0;
    self->fec_bytes_then = fb;
    self->media_bytes_then = self->media_bytes;
  }
  if (self->cc) {
    appended = gst_am_cc_sender_on_sending_rtcp (self->cc, now, buf, self->own_ssrc);
    changed = update_target_locked (self, now);
    bps = self->media_bps;
    if (!early) {
      stats = gst_am_cc_sender_stats (self->cc, now, self->target_bps, &outlier);
      gst_structure_set (stats, "encoder", G_TYPE_STRING,
          gst_am_encoder_kind_name (self->enc.kind), "encoder-bitrate", G_TYPE_UINT,
          self->enc.applied_bps, "encoder-setting", G_TYPE_UINT, self->enc.setting_bps, NULL);
      gst_am_pacer_add_stats (GST_AM_PACER (self->pacer), stats);
      if (self->fec_mode != GST_AM_FEC_OFF) {
        gst_structure_set (stats, "fec-overhead", G_TYPE_DOUBLE, self->fec_overhead,
            "media-bitrate", G_TYPE_UINT, self->media_bps,
            "fec-byte-share", G_TYPE_DOUBLE, self->fec_byte_share,
            "fec-worst-loss", G_TYPE_DOUBLE, self->worst_loss, "media-packet-rate",
            G_TYPE_DOUBLE, self->pps, NULL);
        gst_am_fec_send_add_stats (&self->fec, stats);
      }
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

/* ---- properties ---- */
static void
configure_pacer_locked (GstAsmpSink * self)
{
  if (self->pacer)
    gst_am_pacer_configure (GST_AM_PACER (self->pacer), self->pacing, self->pacing_factor,
        self->max_pacing_delay_ms);
}

static void
gst_asmp_sink_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstAsmpSink *self = GST_ASMP_SINK (object);

  g_mutex_lock (self->lockp);
  switch (prop_id) {
    case PROP_PROTOCOL:
      self->protocol = g_value_get_enum (value);
      break;
    case PROP_INITIAL_BITRATE:
      self->initial_bps = g_value_get_uint (value);
      break;
    case PROP_MIN_BITRATE:
      self->min_bps = g_value_get_uint (value);
      if (self->cc)
        gst_am_cc_sender_set_limits (self->cc, self->min_bps, self->max_bps);
      break;
    case PROP_MAX_BITRATE:
      self->max_bps = g_value_get_uint (value);
      /* takes effect while playing: the target is re-clamped at once */
      if (self->cc)
        gst_am_cc_sender_set_limits (self->cc, self->min_bps, self->max_bps);
      break;
    case PROP_ENCODER:
      gst_object_replace ((GstObject **) & self->encoder_prop, g_value_get_object (value));
      break;
    case PROP_RTCP_INTERVAL:
      self->rtcp_interval_ms = g_value_get_uint (value);
      break;
    case PROP_MAX_SSRCS_PER_HOST:
      self->max_ssrcs_per_host = g_value_get_uint (value);
      break;
    case PROP_RECEIVER_TIMEOUT:
      self->receiver_timeout_ms = g_value_get_uint (value);
      break;
    case PROP_TRACE_DIR:
      g_free (self->trace_dir);
      self->trace_dir = g_value_dup_string (value);
      break;
    case PROP_SDP_FILE:
      g_free (self->sdp_file);
      self->sdp_file = g_value_dup_string (value);
      break;
    case PROP_PACING:
      self->pacing = g_value_get_boolean (value);
      break;
    case PROP_PACING_FACTOR:
      self->pacing_factor = g_value_get_double (value);
      break;
    case PROP_MAX_PACING_DELAY:
      self->max_pacing_delay_ms = g_value_get_uint (value);
      break;
    case PROP_RATE_MATCH:
      gst_am_encoder_set_match (&self->enc, g_value_get_boolean (value));
      break;
    case PROP_INTRA_REFRESH:
      gst_am_encoder_set_intra_refresh (&self->enc, g_value_get_boolean (value));
      break;
    case PROP_FEC:
      self->fec_mode = g_value_get_enum (value);
      break;
    case PROP_FEC_ADDRESS:
      g_free (self->fec_address);
      self->fec_address = g_value_dup_string (value);
      break;
    case PROP_FEC_COLUMNS:
      self->fec_columns = g_value_get_uint (value);
      break;
    case PROP_FEC_ROWS:
      self->fec_rows = g_value_get_uint (value);
      break;
    default:
      if (!gst_am_net_config_set_property (&self->net, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (prop_id == PROP_PACING || prop_id == PROP_PACING_FACTOR
      || prop_id == PROP_MAX_PACING_DELAY)
    configure_pacer_locked (self);
  if (prop_id == PROP_MIN_BITRATE || prop_id == PROP_MAX_BITRATE) {
    gboolean changed = update_target_locked (self, gst_am_now ());
    guint bps = self->media_bps;
    GstAmEncKind kind = self->enc.kind;
    g_mutex_unlock (self->lockp);
    if (changed)
      target_changed (self, bps, kind);
    return;
  }
  g_mutex_unlock (self->lockp);
  /* outside our lock: rtpsession takes its own (lock order: session, then ours) */
  if (prop_id == PROP_RTCP_INTERVAL)
    gst_am_set_rtcp_interval (self->rtpbin, g_value_get_uint (value));
}

static void
gst_asmp_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAsmpSink *self = GST_ASMP_SINK (object);

  g_mutex_lock (self->lockp);
  switch (prop_id) {
    case PROP_PROTOCOL: g_value_set_enum (value, self->protocol); break;
    case PROP_INITIAL_BITRATE: g_value_set_uint (value, self->initial_bps); break;
    case PROP_MIN_BITRATE: g_value_set_uint (value, self->min_bps); break;
    case PROP_MAX_BITRATE: g_value_set_uint (value, self->max_bps); break;
    case PROP_TARGET_BITRATE: g_value_set_uint (value, self->target_bps); break;
    case PROP_ENCODER:
      g_value_set_object (value, self->encoder_prop ? self->encoder_prop : self->enc.encoder);
      break;
    case PROP_RTCP_INTERVAL: g_value_set_uint (value, self->rtcp_interval_ms); break;
    case PROP_MAX_SSRCS_PER_HOST: g_value_set_uint (value, self->max_ssrcs_per_host); break;
    case PROP_RECEIVER_TIMEOUT: g_value_set_uint (value, self->receiver_timeout_ms); break;
    case PROP_TRACE_DIR: g_value_set_string (value, self->trace_dir); break;
    case PROP_SDP_FILE: g_value_set_string (value, self->sdp_file); break;
    case PROP_PACING: g_value_set_boolean (value, self->pacing); break;
    case PROP_PACING_FACTOR: g_value_set_double (value, self->pacing_factor); break;
    case PROP_MAX_PACING_DELAY: g_value_set_uint (value, self->max_pacing_delay_ms); break;
    case PROP_RATE_MATCH: g_value_set_boolean (value, self->enc.match); break;
    case PROP_INTRA_REFRESH: g_value_set_boolean (value, self->enc.intra_refresh); break;
    case PROP_FEC: g_value_set_enum (value, self->fec_mode); break;
    case PROP_FEC_ADDRESS: g_value_set_string (value, self->fec_address); break;
    case PROP_FEC_COLUMNS: g_value_set_uint (value, self->fec_columns); break;
    case PROP_FEC_ROWS: g_value_set_uint (value, self->fec_rows); break;
    case PROP_STATS:
      if (self->stats)
        g_value_set_boxed (value, self->stats);
      else
        g_value_take_boxed (value, gst_structure_new_empty ("asmpsink-stats"));
      break;
    default:
      if (!gst_am_net_config_get_property (&self->net, pspec, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (self->lockp);
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
static gboolean
start_locked (GstAsmpSink * self)
{
  GstAmCcConfig cfg = { 0 };
  GError *err = NULL;
  gboolean mc = gst_am_address_is_multicast (self->net.address);

  if (self->min_bps > self->max_bps || self->initial_bps < self->min_bps
      || self->initial_bps > self->max_bps) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
        ("need min-bitrate <= initial-bitrate <= max-bitrate (%u, %u, %u)",
            self->min_bps, self->initial_bps, self->max_bps));
    return FALSE;
  }
  gst_am_net_setup_udpsink (self->rtp_sink, &self->net, self->net.address, self->net.port);
  gst_am_net_setup_udpsink (self->rtcp_sink, &self->net, self->net.address,
      self->net.port + 1);
  gst_am_net_setup_udpsrc (self->rtcp_src, &self->net, self->net.port + 1);
  GST_INFO_OBJECT (self, "sending to %s:%d (%s), RTCP on %d", self->net.address,
      self->net.port, mc ? "multicast" : "unicast", self->net.port + 1);
  if (self->fec_mode != GST_AM_FEC_OFF) {
    GstPad *up = gst_element_get_static_pad (self->rtpbin, "send_rtp_src_0");
    gboolean ok;
    if (!self->fec_address || (self->fec_mode == GST_AM_FEC_FIXED && !self->fec_columns)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
          ("fec=%s needs fec-address%s", self->fec_mode == GST_AM_FEC_AUTO ? "auto" : "fixed",
              self->fec_mode == GST_AM_FEC_FIXED ? " and fec-columns > 0" : ""));
      gst_clear_object (&up);
      return FALSE;
    }
    if (self->fec_mode == GST_AM_FEC_FIXED)
      gst_am_fec_send_request (&self->fec, self->fec_columns, self->fec_rows);
    else
      gst_am_fec_send_request (&self->fec, 0, 0);
    ok = up && gst_am_fec_send_setup (&self->fec, GST_BIN (self), up, &self->net,
        self->fec_address, self->net.port);
    gst_clear_object (&up);
    if (!ok)
      return FALSE;
  }
  memset (&self->fec_choice, 0, sizeof self->fec_choice);
  self->fec_byte_share = 0;
  self->fec_bytes_then = self->media_bytes = self->media_bytes_then = 0;
  self->worst_loss = 0;
  self->pps = 0;
  self->pps_count = 0;
  self->pps_start = gst_am_now ();
  cfg.protocol = self->group_protocol ? self->group_protocol
      : gst_am_protocol_get (self->protocol);
  g_object_set (self->rtpbin, "rtp-profile", gst_am_protocol_rtp_profile (cfg.protocol), NULL);
  gst_am_set_rtcp_interval (self->rtpbin, self->rtcp_interval_ms);

  cfg.initial_bps = self->initial_bps;
  cfg.min_bps = self->min_bps;
  cfg.max_bps = self->max_bps;
  cfg.rtcp_interval_ms = self->rtcp_interval_ms;
  cfg.max_ssrcs_per_host = self->max_ssrcs_per_host;
  cfg.receiver_timeout_ms = self->receiver_timeout_ms;
  self->cc = gst_am_cc_sender_new (&cfg, gst_am_now ());
  if (!self->cc) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("lib/cc rejected the parameters"));
    return FALSE;
  }
  self->target_bps = self->initial_bps;
  self->fec_overhead = choose_fec_locked (self, gst_am_now ());
  self->media_bps = MAX (1, (guint) (self->initial_bps * (1.0 - self->fec_overhead)));
  gst_am_pacer_set_rate (GST_AM_PACER (self->pacer),
      (guint) (self->initial_bps * (1.0 - self->fec_overhead)));
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
stop_locked (GstAsmpSink * self)
{
  gst_am_timer_stop (&self->early_id);
  gst_am_eos_guard_reset (&self->eos_guard);
  g_clear_pointer (&self->cc, gst_am_cc_sender_free);
  g_clear_pointer (&self->sd, gst_am_trace_close);
  g_clear_pointer (&self->rate, gst_am_trace_close);
  self->own_ssrc = 0;
}

static void
attach_encoder (GstAsmpSink * self)
{
  GstElement *enc;
  guint initial;

  g_mutex_lock (self->lockp);
  enc = self->encoder_prop ? gst_object_ref (self->encoder_prop) : NULL;
  initial = MAX (1, (guint) (self->initial_bps * (1.0 - self->fec_overhead)));
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
    case GST_STATE_CHANGE_NULL_TO_READY:
      g_mutex_lock (self->lockp);
      if (!start_locked (self)) {
        stop_locked (self);
        g_mutex_unlock (self->lockp);
        return GST_STATE_CHANGE_FAILURE;
      }
      g_mutex_unlock (self->lockp);
      /* open the RTCP socket first and send RTCP from it */
      if (gst_element_set_state (self->rtcp_src, GST_STATE_READY) == GST_STATE_CHANGE_FAILURE)
        return GST_STATE_CHANGE_FAILURE;
      gst_am_net_share_socket (self->rtcp_src, self->rtcp_sink);
      break;
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
      gst_am_eos_guard_reset (&self->eos_guard);
      break;
    default:
      break;
  }
  ret = GST_ELEMENT_CLASS (gst_asmp_sink_parent_class)->change_state (element, transition);
  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      gst_am_encoder_attach (&self->enc, NULL, 0);
      break;
    case GST_STATE_CHANGE_READY_TO_NULL:
      g_mutex_lock (self->lockp);
      stop_locked (self);
      g_mutex_unlock (self->lockp);
      break;
    default:
      break;
  }
  return ret;
}

static void
gst_asmp_sink_init (GstAsmpSink * self)
{
  GstBin *bin = GST_BIN (self);
  GstPad *pad;

  g_mutex_init (&self->lock);
  self->lockp = &self->lock;
  gst_am_net_config_init (&self->net);
  gst_am_encoder_init (&self->enc);
  self->protocol = GST_AM_PROTOCOL_DEFAULT;
  self->initial_bps = DEFAULT_INITIAL_BPS;
  self->min_bps = DEFAULT_MIN_BPS;
  self->max_bps = DEFAULT_MAX_BPS;
  self->target_bps = DEFAULT_INITIAL_BPS;
  self->media_bps = DEFAULT_INITIAL_BPS;
  self->rtcp_interval_ms = GST_AM_DEFAULT_RTCP_INTERVAL_MS;
  self->max_ssrcs_per_host = GST_AM_GUARD_MAX_PER_HOST;
  self->pacing = DEFAULT_PACING;
  self->pacing_factor = DEFAULT_PACING_FACTOR;
  self->max_pacing_delay_ms = DEFAULT_MAX_PACING_DELAY_MS;
  self->fec_columns = DEFAULT_FEC_COLUMNS;
  self->fec_rows = DEFAULT_FEC_ROWS;
  amcc_fec_params_default (&self->fec_params);

  self->pacer = gst_am_pacer_new ("pacer");
  gst_bin_add (bin, self->pacer);
  configure_pacer_locked (self);
  self->rtpbin = gst_am_make (bin, "rtpbin", "rtpbin");
  self->rtp_sink = gst_am_make (bin, "udpsink", "rtp_sink");
  self->rtcp_sink = gst_am_make (bin, "udpsink", "rtcp_sink");
  self->rtcp_src = gst_am_make (bin, "udpsrc", "rtcp_src");
  self->sinkpad = gst_ghost_pad_new_no_target_from_template ("sink",
      gst_static_pad_template_get (&sink_template));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  if (!self->rtpbin || !self->rtp_sink || !self->rtcp_sink || !self->rtcp_src)
    return;                     /* error posted; the element fails to start */

  pad = gst_element_get_static_pad (self->pacer, "sink");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), pad);
  gst_object_unref (pad);
  gst_element_link_pads (self->pacer, "src", self->rtpbin, "send_rtp_sink_0");
  gst_element_link_pads (self->rtpbin, "send_rtp_src_0", self->rtp_sink, "sink");
  gst_element_link_pads (self->rtpbin, "send_rtcp_src_0", self->rtcp_sink, "sink");
  gst_element_link_pads (self->rtcp_src, "src", self->rtpbin, "recv_rtcp_sink_0");

  pad = gst_element_get_static_pad (self->rtpbin, "send_rtp_src_0");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, rtp_out_probe, self, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (self->rtcp_src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, rtcp_in_probe, self, NULL);
  gst_object_unref (pad);
  gst_am_eos_guard_init (&self->eos_guard, GST_OBJECT (self), self->rtcp_sink);

  self->session = gst_am_internal_session (self->rtpbin);
  if (self->session)
    g_signal_connect (self->session, "on-sending-rtcp", G_CALLBACK (on_sending_rtcp), self);
  gst_am_set_rtcp_interval (self->rtpbin, self->rtcp_interval_ms);
}

static void
gst_asmp_sink_finalize (GObject * object)
{
  GstAsmpSink *self = GST_ASMP_SINK (object);

  stop_locked (self);
  if (self->session) {
    g_signal_handlers_disconnect_by_data (self->session, self);
    g_object_unref (self->session);
  }
  gst_am_encoder_clear (&self->enc);
  gst_am_eos_guard_clear (&self->eos_guard);
  gst_clear_object (&self->encoder_prop);
  gst_am_net_config_clear (&self->net);
  g_free (self->trace_dir);
  g_free (self->sdp_file);
  g_free (self->fec_address);
  gst_am_fec_send_clear (&self->fec);
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
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  const GParamFlags rw_ready = rw | GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_asmp_sink_set_property;
  gobject_class->get_property = gst_asmp_sink_get_property;
  gobject_class->finalize = gst_asmp_sink_finalize;
  element_class->change_state = gst_asmp_sink_change_state;

  props[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Multicast group (or unicast address) to send RTP to; RTCP goes to the same address "
      "on port + 1", GST_AM_DEFAULT_ADDRESS, rw_ready);
  props[PROP_PORT] = g_param_spec_int ("port", "Port",
      "RTP port (RTCP uses port + 1)", 1, 65534, GST_AM_DEFAULT_PORT, rw_ready);
  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface to join the group on (NULL: the kernel's choice)", NULL, rw_ready);
  props[PROP_TTL_MC] = g_param_spec_int ("ttl-mc", "Multicast TTL",
      "TTL of multicast RTP and RTCP packets (hops)", 0, 255, 1, rw_ready);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Loop multicast back to this host (needed when receivers run in the same network "
      "namespace; our own looped RTCP is dropped)", FALSE, rw_ready);
  props[PROP_PROTOCOL] = g_param_spec_enum ("protocol", "Protocol",
      "Congestion control: asmp, or tfmcc as the comparator", GST_TYPE_AM_PROTOCOL,
      GST_AM_PROTOCOL_DEFAULT, rw_ready);
  props[PROP_INITIAL_BITRATE] = g_param_spec_uint ("initial-bitrate", "Initial bitrate",
      "Target before any receiver report (bit/s); applied to the encoder at start",
      1, G_MAXUINT, DEFAULT_INITIAL_BPS, rw_ready);
  props[PROP_MIN_BITRATE] = g_param_spec_uint ("min-bitrate", "Minimum bitrate",
      "Lower clamp of the target (bit/s)", 1, G_MAXUINT, DEFAULT_MIN_BPS,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_MAX_BITRATE] = g_param_spec_uint ("max-bitrate", "Maximum bitrate",
      "Upper clamp of the target (bit/s); may change while playing", 1, G_MAXUINT,
      DEFAULT_MAX_BPS, rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_TARGET_BITRATE] = g_param_spec_uint ("target-bitrate", "Target bitrate",
      "Current target from the congestion controller (bit/s, read-only, notifies); the "
      "encoder gets it at its next key frame", 0, G_MAXUINT, DEFAULT_INITIAL_BPS,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_ENCODER] = g_param_spec_object ("encoder", "Encoder",
      "Encoder to drive (x264enc: bitrate kbit/s; vp8enc: target-bitrate bit/s; openh264enc: "
      "bitrate bit/s; others: 'asmpsink-bitrate' bus message). NULL: search upstream",
      GST_TYPE_ELEMENT, rw_ready);
  props[PROP_RTCP_INTERVAL] = g_param_spec_uint ("rtcp-interval", "RTCP interval",
      "Minimum RTCP interval (ms), given to rtpsession's rtcp-min-interval; stats are "
      "posted once per RTCP packet", 1, 600000, GST_AM_DEFAULT_RTCP_INTERVAL_MS, rw_ready);
  props[PROP_MAX_SSRCS_PER_HOST] = g_param_spec_uint ("max-ssrcs-per-host", "Max SSRCs per host",
      "RTCP SSRCs one source address may speak for at a time; RTCP that would bind more is "
      "dropped (rtcp-host-full), so one host cannot grow the member count and the RTCP interval "
      "(docs/security.md). 0 = no limit (e.g. many test receivers on one host)", 0, G_MAXUINT,
      GST_AM_GUARD_MAX_PER_HOST, rw_ready);
  props[PROP_RECEIVER_TIMEOUT] = g_param_spec_uint ("receiver-timeout", "Receiver timeout",
      "ASMP: a receiver silent this long (ms; no RR, no report) no longer holds the rate down; "
      "0 = 3 x rtcp-interval. Raise it when receivers use a longer RTCP interval (large "
      "groups)", 0, G_MAXUINT, 0, rw_ready);
  props[PROP_TRACE_DIR] = g_param_spec_string ("trace-dir", "Trace directory",
      "Directory for sd.txt and rate.csv (docs/run-directory.md); NULL: no traces", NULL,
      rw_ready);
  props[PROP_SDP_FILE] = g_param_spec_string ("sdp-file", "SDP file",
      "Write an SDP describing the stream here when caps are known (NULL: none)", NULL,
      rw_ready);
  props[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Last 'asmpsink-stats' structure (see docs/elements.md)", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_PACING] = g_param_spec_boolean ("pacing", "Pacing",
      "Space RTP packets so the instantaneous rate is at most pacing-factor x target-bitrate "
      "(TFMCC: RFC 4654 3.7's 8 s / X); false: packets leave as they arrive (a key frame in "
      "one burst)", DEFAULT_PACING, rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_PACING_FACTOR] = g_param_spec_double ("pacing-factor", "Pacing factor",
      "Packets leave at up to this multiple of the target (absorbs the encoder's key-frame "
      "overshoot; 1.0 = exactly 8 s / X)", 1.0, 10.0, DEFAULT_PACING_FACTOR,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_MAX_PACING_DELAY] = g_param_spec_uint ("max-pacing-delay", "Maximum pacing delay",
      "A packet waits at most this long (ms) in the pacer, then leaves at once, so pacing "
      "never adds more latency", 0, 10000, DEFAULT_MAX_PACING_DELAY_MS,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_RATE_MATCH] = g_param_spec_boolean ("rate-match", "Rate matching",
      "Scale the bitrate set on the encoder (within 0.75-1.33 x the target, once per GOP) so "
      "that its measured output matches the target (x264 with a short VBV stays under its "
      "setting; with its default VBV the gain learnt in easy scenes adds to its bursts, so "
      "off by default)", FALSE,
      rw | GST_PARAM_MUTABLE_PLAYING);
  props[PROP_INTRA_REFRESH] = g_param_spec_boolean ("intra-refresh", "Intra refresh",
      "Set the upstream x264enc to periodic intra refresh (a column of intra blocks sweeps the "
      "picture once per key-int-max frames) instead of an IDR frame per key interval: no "
      "key-frame burst for the bottleneck queue to drop; the bitrate changes at each sweep's "
      "start. false leaves the encoder's own setting", FALSE, rw_ready);
  props[PROP_FEC] = g_param_spec_enum ("fec", "FEC",
      "SMPTE 2022-1 FEC (rtpst2022-1-fecenc) on fec-address: off; auto: the matrix from the "
      "worst loss the receivers report (none while nobody loses; lib/cc/fec.c); fixed: "
      "fec-columns x fec-rows. The parity counts inside target-bitrate: the encoder gets "
      "target x (1 - overhead); matrix changes are applied at a key frame",
      GST_TYPE_AM_FEC_MODE, GST_AM_FEC_OFF, rw_ready);
  props[PROP_FEC_ADDRESS] = g_param_spec_string ("fec-address", "FEC group",
      "Multicast group of the FEC streams: column FEC on port + 2, row FEC on port + 4 (a "
      "receiver opts in by joining it); required when fec is not off", NULL, rw_ready);
  props[PROP_FEC_COLUMNS] = g_param_spec_uint ("fec-columns", "FEC columns",
      "fec=fixed: L, media packets per row FEC packet (1-20)", 1, 20, DEFAULT_FEC_COLUMNS,
      rw_ready);
  props[PROP_FEC_ROWS] = g_param_spec_uint ("fec-rows", "FEC rows",
      "fec=fixed: D, rows per column FEC packet (4-20; 0 = row FEC only)", 0, 20,
      DEFAULT_FEC_ROWS, rw_ready);
  g_object_class_install_properties (gobject_class, N_PROPS, props);
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
  gst_type_mark_as_plugin_api (GST_TYPE_AM_FEC_MODE, 0);
}
